// The prover loop (verify/prove/prove.h).
#include "verify/prove/prove.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/checks.h"
#include "rewriter/greedy.h"
#include "rewriter/rules/rules.h"
#include "verify/prove/instance.h"
#include "verify/fastmath.h"
#include "verify/refine.h"
#include "verify/report.h"

namespace ptir::prove {
namespace {

using clock = std::chrono::steady_clock;
double ms_since(clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); }

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}
uint64_t hash_str(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The one-pattern frozen set for `name`.
FrozenPatternSet single(const Populate& populate, const std::string& name) {
  PatternSet set;
  populate(set);
  PatternFilter f;
  f.enabled_names = {name};
  return std::move(set).freeze(f);
}

const rules::RulePattern* as_rule(const FrozenPatternSet& s) {
  return s.size() == 1 ? dynamic_cast<const rules::RulePattern*>(s.all()[0]) : nullptr;
}

/// The outcome of running and checking one instance.
enum class Outcome : uint8_t { NotFired, Proved, Tested, Refuted, Unknown };

struct Checked {
  Outcome outcome = Outcome::NotFired;
  std::unique_ptr<Program> rewritten;
  std::string detail;
  int solver_calls = 0;
};

/// Interpreter campaign (verify/fastmath.h): >= runs edge-biased inputs, each target run checked
/// against every behaviour the source allows (its nsz zero signs and reassoc orders included). Returns
/// "" when TESTED; else why not, with `refuted` set when an input refutes.
std::string campaign(const Program& src, const Program& tgt, int runs, uint64_t seed, bool* refuted) {
  verify::Campaign c = verify::reassoc_campaign(src, src.entry(), tgt, tgt.entry(), runs, seed);
  *refuted = c.refuting.has_value();
  if (c.refuting) {
    std::string s = "interpreter counterexample (no behaviour the source allows matches the target's):\n";
    for (size_t i = 0; i < c.refuting->size(); ++i)
      s += "  input " + std::to_string(i) + ": " + print_literal((*c.refuting)[i]) + "\n";
    RunResult a = run_body(src, src.entry(), *c.refuting), b = run_body(tgt, tgt.entry(), *c.refuting);
    for (size_t r = 0; r < a.results.size() && a.status == RunStatus::Ok; ++r)
      s += "  source result " + std::to_string(r) + ": " + print_literal(a.results[r]) + "\n";
    if (b.status != RunStatus::Ok) s += "  target: " + b.message + "\n";
    for (size_t r = 0; r < b.results.size() && b.status == RunStatus::Ok; ++r)
      s += "  target result " + std::to_string(r) + ": " + print_literal(b.results[r]) + "\n";
    return s;
  }
  if (c.tested()) return "";
  if (!c.undecided.empty()) return "the campaign could not decide: " + c.undecided;
  return "the campaign ran " + std::to_string(c.inputs) + " inputs (" + std::to_string(c.skipped) +
         " skipped: source UB or not runnable), too few to count as TESTED";
}

}  // namespace

/// Applies `one` once (no folding, no DCE of the driver beyond what it always does): one application,
/// so a wrong rule that undoes itself (concat(x, y) => concat(y, x)) cannot come back to the instance
/// and hide the wrong step. The driver's contract is always checked here, as `opt --expensive-checks`
/// would: a rewrite that reports failure but changed the IR, or success without a change, and every
/// mutation verified (types, shapes, dominance), all before anything interprets or encodes the result.
/// Replay is left to the callers, whose checkers find counterexamples rather than mismatches.
Applied apply_once(Program& p, const FrozenPatternSet& one) {
  Applied a;
  GreedyConfig cfg;
  cfg.fold = false;
  cfg.expensive_checks = false;
  cfg.max_num_rewrites = 1;
  ProgramRewriter rw(p);
  ExpensiveChecks contract(rw, CheckOptions{.fingerprints = true, .verify = true, .replay = false});
  rw.add_listener(&contract);
  GreedyResult r = apply_patterns_and_fold_greedily(rw, one, cfg);
  if (!contract.failed() && !rw.has_error()) contract.finish();
  rw.remove_listener(&contract);
  a.changed = r.changed;
  if (rw.has_error() || contract.failed()) {
    a.error = "the pattern broke the program: " + (contract.failed() ? contract.report() : rw.error()) + "\n";
  } else if (r.changed) {
    if (auto d = verify_program(p); !d.empty())  // finish() verified it; the last guard before encoding
      a.error = "the pattern built an invalid program: " + d[0].message + "\n";
  }
  return a;
}

namespace {

Checked check_instance(const Program& inst, const FrozenPatternSet& one, const ProveOptions& o, uint64_t seed) {
  Checked c;
  c.rewritten = std::make_unique<Program>(inst);
  const Applied r = apply_once(*c.rewritten, one);
  if (!r.error.empty()) {
    c.outcome = Outcome::Refuted;
    c.detail = r.error;
    return c;
  }
  if (!r.changed) return c;
  verify::CheckOptions co;
  co.timeout_ms = o.timeout_ms;
  co.seed = seed;
  co.threads = o.solver_threads;
  const verify::ProgramVerdict v = verify::check_program_refinement(inst, *c.rewritten, co);
  for (const auto& f : v.functions) c.solver_calls += f.verdict.solver_calls;
  switch (v.kind()) {
    case 0: c.outcome = Outcome::Proved; return c;
    case 1: c.outcome = Outcome::Refuted; c.detail = verify::format_program_text(v, inst); return c;
    default: break;
  }
  // UNKNOWN (or a malformed rewrite, ERROR): an interpreter campaign decides between REFUTED and TESTED.
  if (v.kind() == 3) {
    c.outcome = Outcome::Refuted;
    c.detail = "the rewritten program cannot be compared with the instance: " + verify::program_summary_line(v) + "\n";
    return c;
  }
  bool refuted = false;
  std::string why = campaign(inst, *c.rewritten, o.campaign_runs, seed, &refuted);
  if (refuted || !why.empty()) {
    c.outcome = refuted ? Outcome::Refuted : Outcome::Unknown;
    c.detail = "Z3: " + verify::program_summary_line(v) + "\n" + why;
    return c;
  }
  c.outcome = Outcome::Tested;
  c.detail = "Z3: " + verify::program_summary_line(v) + "; " + std::to_string(o.campaign_runs) +
             " interpreter runs on edge-biased inputs agreed";
  return c;
}

Perturb perturbation(int i) {
  if (i % 4 != 3) return Perturb::None;
  switch ((i / 4) % 3) {
    case 0: return Perturb::Splat;
    case 1: return Perturb::SplitCapture;
    default: return Perturb::ExtraUse;
  }
}

/// The instance's root: the instruction defining the function's first result.
InstId root_of(const Program& p) { return p.def_inst(p.operand(p.terminator(0), 0)); }

struct Attempt {
  Instance inst;
  bool faithful = false;  ///< unperturbed and (for rules) matching the source and constraints
};

/// Generates instance `i`: up to 40 tries for a well-typed one; unperturbed rule instances also retry
/// until the rule matches (a rule whose constraints are rarely met still gets instances that fire).
Attempt generate(const Subject& s, const rules::RulePattern* rule, const ProveOptions& o, int i, int rank, int dim,
                 Perturb pert, std::string* why, bool small_flagged = true) {
  std::mt19937_64 rng(mix(mix(o.seed, hash_str(s.name)), static_cast<uint64_t>(i)));
  Attempt best;
  for (int t = 0; t < 200; ++t) {
    // A rule fires in every function whose flags include its assumptions: a third of the instances
    // carry extra nnan/ninf/nsz flags (reassoc is outside the prover's scope: docs/verification.md).
    uint8_t extra = 0;
    // (Faithful instances only: a near miss that returns an inner value under nsz asks the checker for
    // the source's inner zero-sign choices, which it leaves UNKNOWN.)
    if (i % 3 == 2 && pert == Perturb::None) extra = static_cast<uint8_t>(std::uniform_int_distribution<int>(1, 7)(rng));
    // Flagged instances stay small (rank <= 1, dims <= 2): UB queries under nnan/ninf cost more.
    // (The sweep has no Z3 query: its flagged instances keep the full rank and dims, `small_flagged`.)
    const bool small = extra && small_flagged;
    InstanceOptions io{.rank = small ? std::min(rank, 1) : rank, .max_dim = small ? std::min(dim, 2) : dim,
                       .perturb = pert, .fastmath = static_cast<uint8_t>(s.assumes | extra), .dtype_hint = s.dtype_hint};
    const auto& tmpl = s.templates[i % s.templates.size()];
    Instance inst = make_instance(*tmpl, io, rng);
    // f64 under nnan/ninf: the UB queries bit-blast f64 division and time out; those instances keep the
    // rule's own flags (f16/bf16/f32 instances cover the extra flags).
    if (inst.program && small && inst.dtype == "f64") inst.program->body(inst.program->entry()).fastmath.bits = s.assumes;
    if (!inst.program) {
      *why = inst.why_not;
      continue;
    }
    // Faithful: nothing perturbed and (for a rule) its source and constraints match. A perturbed
    // instance is a near miss as generated; an unperturbed one that a rule does not match is retried
    // (a rule whose constraints are rarely met still gets instances that fire) and kept as a near
    // miss when no try matches.
    const bool matches = !rule || rule->matches(*inst.program, root_of(*inst.program));
    const bool faithful = !inst.perturbed && matches;
    if (faithful || inst.perturbed) {
      best.inst = std::move(inst);
      best.faithful = faithful;
      return best;
    }
    if (!best.inst.program) best.inst = std::move(inst);
  }
  return best;
}

/// Total elements of the instance's inputs: the size shrinking minimises.
int64_t elements(const Program& p) {
  int64_t n = 0;
  for (ValueId v : p.body(p.entry()).params) n += p.type_of(v).num_elements();
  return n;
}

/// Looks for a smaller failing instance: ranks and dims from the smallest up, a few seeds each; returns
/// the first that fails and is smaller (fewer input elements) than the one found.
std::optional<std::pair<std::pair<Attempt, Checked>, std::string>> shrink(const Subject& s, const rules::RulePattern* rule,
                                                                         const FrozenPatternSet& one, const ProveOptions& o,
                                                                         int rank, Perturb pert, int64_t size) {
  for (int d = 0; d <= o.max_dim; ++d)
    for (int r = 0; r <= rank; ++r)
      for (int t = 0; t < 12; ++t) {
        std::string why;
        const int i = 100000 + (d * 16 + r) * 64 + t;  // instance ids past the main loop's
        Attempt a = generate(s, rule, o, i, r, d, pert, &why);
        if (!a.inst.program || elements(*a.inst.program) >= size) continue;
        Checked c = check_instance(*a.inst.program, one, o, mix(o.seed, i));
        if (c.outcome != Outcome::Refuted) continue;
        std::string how = "root rank " + std::to_string(r) + ", dims <= " + std::to_string(d) + ", " +
                          std::to_string(elements(*a.inst.program)) + " input elements instead of " + std::to_string(size);
        return std::make_pair(std::make_pair(std::move(a), std::move(c)), how);
      }
  return std::nullopt;
}

/// The dtypes a rule's constraints name: dtype_is words and the classes of is_float, is_int, ...
std::vector<DType> dtype_hint(const rules::Rule& r) {
  std::vector<DType> out;
  auto add_if = [&](auto pred) {
    for (int d = 0; d < kNumDTypes; ++d)
      if (pred(static_cast<DType>(d)) && std::find(out.begin(), out.end(), static_cast<DType>(d)) == out.end())
        out.push_back(static_cast<DType>(d));
  };
  for (const rules::Constraint& c : r.where) {
    if (c.negated) continue;
    if (c.pred == "dtype_is")
      for (const auto& a : c.args)
        if (auto d = parse_dtype(a.name)) add_if([&](DType x) { return x == *d; });
    if (c.pred == "is_float") add_if([](DType x) { return is_float(x); });
    if (c.pred == "is_int") add_if([](DType x) { return is_integer(x); });
    if (c.pred == "is_signed") add_if([](DType x) { return is_signed_int(x); });
    if (c.pred == "is_unsigned") add_if([](DType x) { return is_integer(x) && !is_signed_int(x); });
    if (c.pred == "is_bool") add_if([](DType x) { return x == DType::I1; });
  }
  return out;
}

}  // namespace

const char* status_word(Status s) {
  switch (s) {
    case Status::Proved: return "PROVED";
    case Status::Tested: return "TESTED";
    case Status::Refuted: return "REFUTED";
    case Status::NotExercised: return "NOT EXERCISED";
    case Status::Error: return "ERROR";
    case Status::Unknown: return "UNKNOWN";
  }
  return "?";
}

std::string Report::scope() const {
  std::string d;
  for (const std::string& x : dtypes) d += (d.empty() ? "" : ",") + x;
  return std::to_string(fired) + " fired of " + std::to_string(instances) + " instances (" +
         std::to_string(shapes.size()) + " root shapes; dtypes " + (d.empty() ? "-" : d) + ")";
}

Report prove_pattern(const Subject& s, const Populate& populate, const ProveOptions& o) {
  const auto start = clock::now();
  Report rep;
  rep.name = s.name;
  rep.origin = s.origin;
  if (!s.error.empty() || s.templates.empty()) {
    rep.status = Status::Error;
    rep.detail = s.error.empty() ? "no instance template: the prover cannot generate what it must handle" : s.error;
    return rep;
  }
  FrozenPatternSet one = single(populate, s.name);
  if (one.size() != 1) {
    rep.status = Status::Error;
    rep.detail = one.size() == 0 ? "no pattern of that name" : "several patterns share this name";
    return rep;
  }
  const rules::RulePattern* rule = as_rule(one);
  std::string why;
  std::vector<std::string> tested, unknown;
  for (int i = 0; i < o.instances; ++i) {
    const int rank = i % (o.max_rank + 1);
    const Perturb pert = perturbation(i);
    Attempt a = generate(s, rule, o, i, rank, o.max_dim, pert, &why);
    if (!a.inst.program) continue;
    ++rep.instances;
    const bool near = !a.faithful;
    rep.near_misses += near;
    Checked c = check_instance(*a.inst.program, one, o, mix(o.seed, i));
    rep.solver_calls += c.solver_calls;
    if (c.outcome == Outcome::NotFired) continue;
    ++rep.fired;
    rep.near_fired += near;
    rep.shapes.insert(a.inst.shape);
    rep.dtypes.insert(a.inst.dtype);
    if (c.outcome == Outcome::Proved) ++rep.proved;
    if (c.outcome == Outcome::Unknown) {
      ++rep.unknown;
      if (unknown.size() < 3) unknown.push_back(a.inst.shape + ": " + c.detail);
    }
    if (c.outcome == Outcome::Tested) {
      ++rep.tested;
      if (tested.size() < 3) tested.push_back(a.inst.shape + ": " + c.detail);
    }
    if (c.outcome == Outcome::Refuted) {
      rep.status = Status::Refuted;
      std::string head = "instance " + std::to_string(i) + (near ? " (near miss)" : "");
      if (auto smaller = o.shrink ? shrink(s, rule, one, o, rank, pert, elements(*a.inst.program)) : std::nullopt) {
        head += ", shrunk to the smallest failing instance found (" + smaller->second + ")";
        a = std::move(smaller->first.first);
        c = std::move(smaller->first.second);
      }
      rep.detail = head + ":\n" + print_program(*a.inst.program) + "rewritten by " + s.name + " to:\n" +
                   print_program(*c.rewritten) + c.detail;
      rep.ms = ms_since(start);
      return rep;
    }
  }
  // The sweep (ProveOptions::sweep_factor): more instances of the same kind, each run through the real
  // pattern and compared by the interpreter only. Z3 proves the sampled instances exactly, but a wrong
  // rule may fire rarely or break only some shapes (a result type that does not fit, a helper's
  // attribute out of bounds): the prover fuzzer found such rules PROVED on 16 sampled instances.
  if (rep.fired > 0 && o.sweep_factor > 0) {
    const int n = o.sweep_factor * o.instances;
    for (int k = 0; k < n; ++k) {
      const int i = 200000 + k;  // instance ids past the main loop's and the shrinker's
      std::string w;
      Attempt a = generate(s, rule, o, i, k % (o.max_rank + 1), o.max_dim, Perturb::None, &w, /*small_flagged=*/false);
      if (!a.inst.program) continue;
      Program tgt(*a.inst.program);
      const Applied g = apply_once(tgt, one);
      if (g.error.empty() && !g.changed) continue;
      std::string why = g.error;
      if (why.empty()) {
        bool refuted = false;
        const std::string d = campaign(*a.inst.program, tgt, o.sweep_runs, mix(o.seed, i), &refuted);
        if (!refuted) continue;
        why = d;
      }
      rep.status = Status::Refuted;
      rep.detail = "sweep instance " + std::to_string(k) + " (the " + std::to_string(rep.fired) +
                   " sampled instances it fired on were checked by Z3; this one by the interpreter):\n" +
                   print_program(*a.inst.program) + "rewritten by " + s.name + " to:\n" + print_program(tgt) + why;
      rep.ms = ms_since(start);
      return rep;
    }
  }
  if (rep.fired == 0) {
    rep.status = rep.instances == 0 ? Status::Error : Status::NotExercised;
    rep.detail = rep.instances == 0 ? "no well-typed instance could be generated (" + why + ")"
                                    : "the pattern never fired on " + std::to_string(rep.instances) + " instances";
  } else if (rep.unknown > 0) {
    rep.status = Status::Unknown;
    for (const std::string& t : unknown) rep.detail += t + "\n";
  } else if (rep.tested > 0) {
    rep.status = Status::Tested;
    for (const std::string& t : tested) rep.detail += t + "\n";
  } else {
    rep.status = Status::Proved;
  }
  rep.ms = ms_since(start);
  return rep;
}

allshape::Result prove_pattern_all_shapes(const Subject& s, const Populate& populate, const ProveOptions& o,
                                          const allshape::Options& ao) {
  allshape::Result res;
  if (!s.rule) {
    res.verdict = allshape::Verdict::BoundedOnly;
    res.why = "a C++ pattern: there is no rule text to prove for all shapes (bounded proof only)";
    return res;
  }
  FrozenPatternSet one = single(populate, s.name);
  if (one.size() != 1) {
    res.verdict = allshape::Verdict::Unknown;
    res.why = one.size() == 0 ? "no pattern of that name" : "several patterns share this name";
    return res;
  }
  uint64_t n = 0;
  auto replay = [&](const Program& inst) {
    allshape::Replay r;
    Checked c = check_instance(inst, one, o, mix(o.seed, 900000 + n++));
    r.fired = c.outcome != Outcome::NotFired;
    r.refuted = c.outcome == Outcome::Refuted;
    if (r.fired && c.rewritten) r.detail = "rewritten by " + s.name + " to:\n" + print_program(*c.rewritten) + c.detail;
    return r;
  };
  auto canary = [&](const Program& inst, int runs) {
    allshape::Replay r;
    Program tgt(inst);
    const Applied g = apply_once(tgt, one);  // one application, contract checked, as in check_instance
    if (!g.error.empty()) {
      r.fired = r.refuted = true;
      r.detail = g.error;
      return r;
    }
    if (!g.changed) return r;
    r.fired = true;
    bool refuted = false;
    (void)campaign(inst, tgt, runs, mix(o.seed, 700000 + n++), &refuted);
    r.refuted = refuted;
    if (refuted) r.detail = "rewritten to:\n" + print_program(tgt);
    return r;
  };
  return allshape::prove_all_shapes(*s.rule, replay, canary, ao);
}

std::vector<Subject> subjects_of(const Populate& populate,
                                 const std::vector<std::pair<std::string, std::string>>& cpp_templates) {
  PatternSet set;
  populate(set);
  std::vector<Subject> out;
  for (const auto& p : set.patterns()) {
    Subject s;
    s.name = std::string(p->debug_name());
    s.origin = std::string(p->origin());
    if (const auto* r = dynamic_cast<const rules::RulePattern*>(p.get())) {
      s.templates.push_back(std::shared_ptr<const rules::Node>(r->file(), r->rule().source.get()));
      s.rule = std::shared_ptr<const rules::Rule>(r->file(), &r->rule());
      s.assumes = r->rule().assumes;
      s.dtype_hint = dtype_hint(r->rule());
    } else {
      for (const auto& [name, text] : cpp_templates) {
        if (name != s.name) continue;
        auto parsed = rules::parse_rule_text("rule t : " + text + " => %x", "template of " + name);
        if (auto* e = std::get_if<rules::RuleError>(&parsed)) {
          s.error = e->format();
          break;
        }
        auto file = std::make_shared<rules::RuleFile>(std::move(std::get<rules::RuleFile>(parsed)));
        s.templates.push_back(std::shared_ptr<const rules::Node>(file, file->rules[0].source.get()));
      }
      if (s.templates.empty() && s.error.empty())
        s.error = "C++ pattern without instance templates: declare the DAGs it must handle";
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ptir::prove
