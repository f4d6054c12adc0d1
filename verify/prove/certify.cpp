// Certified optimization (verify/prove/certify.h).
#include "verify/prove/certify.h"

#include <chrono>
#include <cstdio>

namespace ptir::prove {

Certificate certify(const RewriteRecorder& rec, const Populate& populate,
                    const std::vector<std::pair<std::string, std::string>>& cpp_templates, const ProveOptions& po,
                    const allshape::Options& ao) {
  const auto t0 = std::chrono::steady_clock::now();
  Certificate c;
  std::vector<Subject> subjects = subjects_of(populate, cpp_templates);
  c.certified = true;
  for (const auto& [key, n] : rec.applied) {
    // Trusted by provenance: only the drivers' own hooks, whatever a pattern is called.
    if (key.kind != RewriteKind::Pattern) {
      c.trusted[key.name] += n;
      // Under reassoc (contract) a change that alters a use count or the op at the edge of an add/mul
      // tree (a * b + c site) changes which evaluation orders (fusions) the function allows: even DCE,
      // by leaving an add with one use (docs/semantics.md "Fast-math flags"). Nothing here is proved
      // in context, so such a run is not certified.
      const auto re = rec.under_reassoc.find(key);
      const auto ce = rec.under_contract.find(key);
      if (re != rec.under_reassoc.end() || ce != rec.under_contract.end()) {
        c.trusted[key.name + " in functions with reassoc or contract"] +=
            (re != rec.under_reassoc.end() ? re->second : 0) + (ce != rec.under_contract.end() ? ce->second : 0);
        c.certified = false;
      }
      continue;
    }
    const std::string& name = key.name;
    CertifiedPattern cp;
    cp.name = name;
    cp.rewrites = n;
    const Subject* s = nullptr;
    int same = 0;
    for (const Subject& x : subjects)
      if (x.name == name && x.origin == key.origin) s = &x, ++same;
    if (rec.renamed.count(key)) {
      cp.why = "it tried to change its name or origin while the pipeline ran, or is no pattern of a frozen set "
               "(provenance is fixed when the pattern set is frozen): not certified";
      cp.origin = key.origin;
      s = nullptr;
    } else if (same > 1) {
      cp.why = "several patterns share this name and origin: the certificate cannot tell which one fired";
      s = nullptr;
      cp.origin = key.origin;
    } else if (!s) {
      cp.why = "not a canonicalization pattern of this run: nothing to prove it against";
      cp.origin = key.origin;
    } else {
      cp.origin = s->origin;
      if (s->rule)
        for (int f = 0; f < kNumFastMathFlags; ++f)
          if (s->rule->assumes & (1u << f))
            cp.assumes += (cp.assumes.empty() ? "" : " ") + std::string(fastmath_flag_name(static_cast<FastMathFlag>(f)));
      const allshape::Result a = prove_pattern_all_shapes(*s, populate, po, ao);
      const auto re = rec.under_reassoc.find(key);
      const bool reassoc_uncovered = re != rec.under_reassoc.end();
      const auto ce = rec.under_contract.find(key);
      const bool contract_uncovered = ce != rec.under_contract.end();
      // Whether or not the rule assumes the flag: its proofs check each instance alone, and under
      // reassoc (contract) a rewrite can merge add/mul trees (create a * b + c fusions) with the code
      // around it, by changing a use count or the op at a tree's edge, so refinement of the instance does
      // not carry to the program.
      if (reassoc_uncovered) {
        cp.why = "fired " + std::to_string(re->second) +
                 " times in functions with reassoc, which its proofs do not cover (a rewrite there can merge add or "
                 "mul trees with the code around it)";
      } else if (contract_uncovered) {
        cp.why = "fired " + std::to_string(ce->second) +
                 " times in functions with contract, which its proofs do not cover (a rewrite there can create a * b "
                 "+ c fusions with the code around it)";
      } else if (a.verdict != allshape::Verdict::Proved) {
        cp.why = std::string("all shapes: ") + allshape::verdict_word(a.verdict) + ": " + a.why;
      } else {
        const Report b = prove_pattern(*s, populate, po);  // the safety net: the bounded proof agrees
        if (b.status != Status::Proved) cp.why = std::string("all-shape PROVED but the bounded proof says ") + status_word(b.status);
        else {
          cp.certified = true;
          cp.why = a.scope() + "; bounded: " + b.scope();
        }
      }
    }
    c.certified = c.certified && cp.certified;
    c.patterns.push_back(std::move(cp));
  }
  for (const auto& [key, n] : rec.failed_but_changed) {
    // A pattern that changed the IR and reported failure (found by a red team: a plugin pattern that
    // rewrote neg(neg(x)) to neg(x) and returned false was CERTIFIED): what it did is unproved.
    c.trusted["changes by '" + key.name + "', which reported failure"] += n;
    c.certified = false;
  }
  if (rec.unseen_edits > 0) {
    // An edit no rewriter made (a plugin that cast away the const of rw.program() and changed the
    // Program itself, found by a red team: CERTIFIED for a wrong output): nothing proves it.
    c.trusted["edits made around the rewriter (through the Program itself)"] += rec.unseen_edits;
    c.certified = false;
  }
  if (rec.dce_loops > 0) {
    c.trusted["dce of while loops (they may not finish)"] = rec.dce_loops;
    c.certified = false;
  }
  if (rec.unattributed > 0) {
    // A change no named rewrite announced (a pass that edits without brackets, e.g. hoist-params):
    // nothing proves it, so the run is not certified.
    c.trusted["changes outside any named rewrite"] = rec.unattributed;
    c.certified = false;
  }
  c.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string Certificate::format() const {
  int64_t total = 0, bad = 0;
  for (const auto& p : patterns) {
    total += p.rewrites;
    bad += p.certified ? 0 : p.rewrites;
  }
  std::string s = std::string("certificate: ") + (certified ? "CERTIFIED" : "NOT CERTIFIED") + " - " +
                  std::to_string(total) + " pattern rewrites by " + std::to_string(patterns.size()) + " patterns, " +
                  std::to_string(total - bad) + " from patterns PROVED FOR ALL SHAPES (and bounded-PROVED)";
  char ms[32];
  std::snprintf(ms, sizeof ms, "; %.0f ms", this->ms);
  s += ms;
  s += "\n";
  for (const auto& p : patterns) {
    s += "  " + std::string(p.certified ? "certified   " : "UNCERTIFIED ") + p.name + " x" + std::to_string(p.rewrites) +
         (p.origin.empty() ? "" : " (" + p.origin + ")") + (p.assumes.empty() ? "" : " assumes " + p.assumes) + ": " +
         p.why + "\n";
  }
  if (trusted.empty()) {
    s += "  trusted, not proved: nothing (no change by the built-in fold, CSE or DCE)\n";
  } else {
    s += "  trusted, not proved:";
    for (const auto& [name, n] : trusted) {
      // Keys here come from RewriteKind (never a pattern's name), or the unattributed count.
      const char* what = name == "fold" ? " (the driver's constant folding through the reference interpreter and the fold hooks)"
                         : name == "cse" ? " (the driver's common subexpression elimination)"
                         : name == "dce" ? " (the driver's dead code elimination)"
                                         : " (makes the run uncertified)";  // unattributed, or under reassoc/contract
      s += " " + name + " x" + std::to_string(n) + what + ";";
    }
    s += "\n";
  }
  return s;
}

}  // namespace ptir::prove
