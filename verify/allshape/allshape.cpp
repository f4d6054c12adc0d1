// All-shape proofs (verify/allshape/allshape.h, docs/verification.md "All-shape proofs"): the driver.
//
// One configuration = a rank r for the root, a choice of dtypes for the rule's free dtype slots
// (captures, cast results, untyped roots) and of permutations for its transposes. For each, both DAGs
// are evaluated at a symbolic output index i = (i_0, ..., i_{r-1}) with per-axis integer sizes (0
// allowed) and per-axis integer attributes; captures are uninterpreted functions Int^r -> element.
// The query asks for sizes, attributes, inputs and an in-bounds i where the source has no UB at i and
// the target differs from it at i (spec element equality: NaNs equal, +0 != -0), has UB there, or is
// ill-formed. Unsat for every configuration at every rank 0..B, with B the rank bound of the argument
// in docs/verification.md, is PROVED FOR ALL SHAPES.
//
// The parts: fragment.cpp (the gate on the rule's text), words.cpp (the permutation-word premise),
// chooser.h (the odometer of configurations), encoder.cpp / encode_source.cpp / encode_target.cpp (one
// configuration at one rank), bound.cpp (the rank bound), concretize.cpp (model -> program), and here
// the driver: the gate, the bound, every configuration through the staged queries, the canary.
#include "verify/allshape/allshape.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>

#include "ir/text.h"
#include "verify/allshape/encoder.h"
#include "verify/encode/transcendental.h"
#include "verify/prove/instance.h"
#include "verify/smt/solver.h"

namespace ptir::allshape {

using namespace detail;
using rules::Node;
using smt::Expr;
using clock = std::chrono::steady_clock;

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::Proved: return "PROVED FOR ALL SHAPES";
    case Verdict::BoundedOnly: return "BOUNDED ONLY";
    case Verdict::Refuted: return "REFUTED";
    case Verdict::Unknown: return "UNKNOWN";
  }
  return "?";
}

std::string Result::scope() const {
  std::string d;
  for (const std::string& x : dtypes) d += (d.empty() ? "" : ",") + x;
  std::string s = "every rank (ranks 0.." + std::to_string(rank_bound) + " checked, rank bound " +
                  std::to_string(rank_bound) + "), every size incl. 0, " + std::to_string(configs) +
                  " configurations, dtypes " + (d.empty() ? "-" : d);
  s += "; fast-math: the rule's assumptions plus any of nnan, ninf, nsz (free in the query); functions with "
       "reassoc or contract the rule does not assume are not covered";
  for (const std::string& n : notes) s += "; " + n;
  return s;
}

Result prove_all_shapes(const rules::Rule& r, const ReplayFn& replay, const CanaryFn& canary, const Options& o) {
  const auto start = clock::now();
  Result res;
  // The whole proof's budget, deterministic like each query's (smt::kRlimitPerMs): Z3 resource units
  // spent by its queries, with the wall clock only as a safety net (kWallFactor times the budget).
  smt::UnitBudget budget(o.total_ms, start);
  auto done = [&](Verdict v, std::string why) {
    res.verdict = v;
    res.why = std::move(why);
    res.ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    return res;
  };
  if (std::string w = outside_fragment(r); !w.empty()) return done(Verdict::BoundedOnly, w);
  // contract: the fused alternatives of a*b+c are not encoded here (only in the bounded encoder).
  if (r.assumes & rules::kContract)
    return done(Verdict::BoundedOnly, "assumes contract: the fused alternatives of a*b+c are not encoded in the all-shape engine");
  const RuleFacts facts = facts_of(r);
  // reassoc: the target's other association orders of float add/mul trees are not encoded, and whatever
  // the rule builds, its rewrite can merge add/mul trees with the code around it (an inner tree value
  // has exactly one use: a rewrite that changes a use count, or the op at a tree's edge, changes which
  // orders the function allows), which a proof of the rule alone does not cover.
  if (r.assumes & rules::kReassoc)
    return done(Verdict::BoundedOnly,
                "assumes reassoc: the rewrite can merge add/mul trees with the code around it, which a proof of "
                "the rule alone does not cover (nor are the other association orders of trees it builds encoded)");
  const RuleAxes axes = rule_axes(r, facts);
  const bool has_transpose = axes.has_transpose;
  // P3: with a transpose, every capture's words and the one-frame constraints' arguments; without
  // one, the one-frame constraints' arguments still (an axis-moving op -- a reduction, broadcast_to,
  // reshape, a dot_general side -- is a letter of the words too, and a one-frame constraint whose
  // arguments reach the root through different letters relates axes of two frames:
  // `axes_all_size($T, $a, 1)` with $T a reduction's result and $a its axes, an adversarial review).
  // A capture read through different opaque letters is P2's, checked at every evaluated read; a
  // captured type has no reads, so the nodes it ties are compared as words in every rule (words.cpp).
  if (std::string w = perm_words_premise(r, facts, has_transpose); !w.empty())
    return done(Verdict::BoundedOnly, "premise of the rank argument fails: " + w);

  try {
    std::optional<smt::Context> ctx;
    ctx.emplace();
    // 1. The rank bound (bound.cpp).
    std::string p2;
    const std::optional<int> counted = rank_bound(r, facts, axes, budget, &p2);
    if (!counted)
      return done(Verdict::Unknown, "the proof's budget of " + std::to_string(o.total_ms / 1000) +
                                        " s ran out while counting the rank bound");
    // P2 at every configuration the count evaluated (ranks 1 to 3), not only at ranks 0..B: a red team's
    // rule read %x through reduce_max(keepdims false) under broadcast_to and directly, maps that differ
    // only from rank 2 on, and with B = 1 was PROVED FOR ALL SHAPES (wrong at 2x1).
    if (!p2.empty()) return done(Verdict::BoundedOnly, "premise of the rank argument fails: " + p2);
    const int bound = *counted;
    res.rank_bound = bound;
    if (bound > o.max_rank_bound)
      return done(Verdict::Unknown, "rank bound " + std::to_string(bound) + " exceeds the cap " +
                                        std::to_string(o.max_rank_bound));
    // 2. Every configuration at every rank 0..bound.
    std::set<std::string> notes;
    smt::StageCache stage1;  // unsat answers of the cheap stages, by canonical form
    // One configuration through the three stages. Unknown carries why.
    struct Decision {
      smt::Result r = smt::Result::Unknown;
      std::string why;
      std::unique_ptr<smt::Model> model;  // Sat: a model, small sizes first
    };
    auto decide = [&](Enc& e, int rank) -> Decision {
      Decision d;
      const Expr bad = (e.in_bounds && !e.src_ub && (e.tgt_ub || e.differ)) || e.tgt_ill;
      // The cheap stages (smt::run_cheap_stages, shared with verify/refine.cpp), each with more models
      // than the query, so unsat there is unsat here; each asked once per canonical form (stage1).
      // First: integers fixed by equations (a size forced to 1, a start to 0) substituted away, the
      // uninterpreted applications (input reads, transcendentals) replaced by fresh constants and
      // integer-only conjuncts dropped; then the goal alone, abstracted the same way, with no assumption
      // (first with arithmetic abstracted too); often pure bit-vector/float logic, which Z3 decides fast.
      // (The eliminated stage goes first: with the assumptions substituted it is usually unsat and small,
      // and configurations that differ in what the substitution removes share its canonical form; asked
      // last, the goal alone was bit-blasted first, mostly to a satisfiable answer: the library's
      // all-shape proofs took about half the CPU time this way, docs/verification.md "Verdict cache".)
      const Expr abs = bad.abstractFunctions();
      std::optional<Expr> elim;
      auto eliminated = [&]() -> const Expr& {
        if (elim) return *elim;
        std::vector<Expr> all = e.assume;
        all.push_back(bad);
        std::vector<Expr> kept;
        for (const Expr& c : smt::eliminate(all).abstractFunctions().conjuncts()) {
          // A conjunct the elimination reduced to false decides the stage (it mentions no bits or
          // floats, but dropping it would leave `true`: the common case, a size forced to 0 or 1
          // that makes the two sides one term, went on to the costlier stages).
          if (c.isFalse()) return *(elim = c);
          if (c.mentionsBitsOrFloats()) kept.push_back(c);
        }
        return *(elim = Expr::all(kept));
      };
      // The eliminated stage is asked first with the float arithmetic (and bit-vector multiplication,
      // division, remainder) abstracted too: where both sides apply the same operations to the same
      // terms, what is left is the case split on flags, classes and zero signs around them, which Z3
      // decides without bit-blasting an f64 division (div_neg_neg: 5 s per configuration before).
      // When the abstraction changes nothing, run_cheap_stages does not ask the same term twice.
      const std::function<Expr()> cheap[] = {
          [&] { return eliminated().abstractArithmetic(); },
          [&] { return eliminated(); },
          [&] { return abs.abstractArithmetic(); },
          [&] { return abs; },
      };
      const smt::StagesRun cheap_run = smt::run_cheap_stages(cheap, 0, [&](const Expr& f, size_t) {
        return stage1.unsat(f, std::max(1u, o.timeout_ms / 2), budget, &res.queries) ? smt::StageStep::Unsat
                                                                                     : smt::StageStep::Open;
      });
      if (cheap_run.unsat_at) {
        d.r = smt::Result::Unsat;
        return d;
      }
      // Stage 3: the query itself.
      // The facts libm guarantees about the transcendentals the query applies (transcendental.h).
      std::vector<Expr> whole = e.assume;
      whole.push_back(bad);
      const std::vector<Expr> facts = verify::transc::facts_for(whole);
      smt::Solver s(o.timeout_ms);
      for (const Expr& a : e.assume) s.add(a);
      s.add(bad);
      for (const Expr& a : facts) s.add(a);
      ++res.queries;
      if (o.on_query_smt2) o.on_query_smt2(r.name, rank, s.to_smt2());
      d.r = s.check();
      budget.charge(s.units());
      if (d.r == smt::Result::Unknown) d.why = "Z3 said unknown (" + s.reason_unknown() + ")";
      if (d.r != smt::Result::Sat) return d;
      // Satisfiable: a model with small sizes if there is one.
      for (const auto& [what, dims] : e.dim_log)
        for (const Expr& x : dims) s.add(x.ile(Expr::intVal(3)));
      const smt::Result small = s.check();
      budget.charge(s.units());
      if (small == smt::Result::Sat) {
        d.model = s.model();
        return d;
      }
      smt::Solver s2(o.timeout_ms);
      for (const Expr& a : e.assume) s2.add(a);
      s2.add(bad);
      for (const Expr& a : facts) s2.add(a);
      const smt::Result any = s2.check();
      budget.charge(s2.units());
      if (any == smt::Result::Sat) d.model = s2.model();
      return d;
    };
    for (int rank = 0; rank <= bound; ++rank) {
      Chooser ch;
      do {
        if (budget.exhausted())
          return done(Verdict::Unknown, "the proof's budget of " + std::to_string(o.total_ms / 1000) + " s ran out after " +
                                            std::to_string(res.configs) + " configurations (at rank " + std::to_string(rank) + ")");
        ch.start();
        std::optional<Enc> e;
        e.emplace(r, facts, rank, ch);
        e->max_reduced_ = bound;
        e->max_contract_ = bound - rank;
        try {
          e->run();
        } catch (const Infeasible&) {
          continue;
        }
        if (!e->premise.empty()) return done(Verdict::BoundedOnly, "premise of the rank argument fails: " + e->premise[0]);
        for (const std::string& n : e->notes) notes.insert(n);
        ++res.configs;
        const DType root_dtype = e->root_dtype;
        Decision d;
        try {
          d = decide(*e, rank);
        } catch (const smt::ContextAbandoned&) {
          d.why = "Z3 overran its budget";
        }
        if (d.r == smt::Result::Unknown) {
          // Retry with each combination of the free flags fixed: simpler formulas. A context that Z3
          // overran is dead: a new one (and an empty cache) first.
          if (smt::current_context()->dead()) {
            e.reset();
            stage1.clear();
            ctx.reset();
            ctx.emplace();
          }
          bool all_unsat = true;
          for (int combo = 0; combo < 8 && all_unsat; ++combo) {
            ch.start();
            e.reset();
            e.emplace(r, facts, rank, ch, combo);
            e->max_reduced_ = bound;
        e->max_contract_ = bound - rank;
            try {
              e->run();
            } catch (const Infeasible&) {
              continue;
            }
            try {
              d = decide(*e, rank);
            } catch (const smt::ContextAbandoned&) {
              return done(Verdict::Unknown, "Z3 overran its budget at rank " + std::to_string(rank) + ", root dtype " +
                                                dtype_name(root_dtype));
            }
            all_unsat = d.r == smt::Result::Unsat;
          }
          if (all_unsat) d.r = smt::Result::Unsat;
        }
        if (d.r == smt::Result::Unsat) {
          res.dtypes.insert(dtype_name(root_dtype));
          continue;
        }
        if (d.r == smt::Result::Unknown)
          return done(Verdict::Unknown, d.why + " at rank " + std::to_string(rank) + ", root dtype " + dtype_name(root_dtype));
        if (!d.model) return done(Verdict::Unknown, "a satisfiable query whose model could not be read back");
        Concrete c = concretize(*e, *d.model, FastMath{e->flags_in(*d.model)}, 4096);
        std::string where = "rank " + std::to_string(rank) + ", root dtype " + dtype_name(root_dtype);
        if (!c.program) return done(Verdict::Unknown, "symbolic counterexample at " + where + " not replayed: " + c.why_not);
        Replay rp = replay(*c.program);
        if (rp.refuted)
          return done(Verdict::Refuted, "counterexample at " + where + ", concretized and replayed with the real pattern:\n" +
                                            print_program(*c.program) + rp.detail);
        return done(Verdict::Unknown, "symbolic counterexample at " + where + " did not replay (" +
                                          (rp.fired ? "the concrete instance is not refuted" : "the pattern did not fire") +
                                          "):\n" + print_program(*c.program));
      } while (ch.next());
    }
    res.notes.assign(notes.begin(), notes.end());
    if (res.configs == 0) return done(Verdict::Unknown, "no configuration is an instance of the rule");
  } catch (const Outside& w) {
    return done(Verdict::BoundedOnly, w.why);
  } catch (const smt::ContextAbandoned&) {
    return done(Verdict::Unknown, "Z3 overran its budget");
  } catch (const std::exception& x) {
    return done(Verdict::Unknown, std::string("error: ") + x.what());
  }
  // 3. The canary: concrete instances at rank bound + 1, real pattern, interpreter. With transposes,
  // also at every rank up to 5: a permutation word that the argument wrongly took as equal can differ
  // only where the symmetric group is big enough (p^6 = 1 for every permutation of at most 3 axes, not
  // of 4), so the canary looks where such words part.
  std::mt19937_64 rng(o.seed);
  const int top = has_transpose ? std::max(res.rank_bound + 1, 5) : res.rank_bound + 1;
  for (int rank = res.rank_bound + 1; rank <= top; ++rank) {
    int fired = 0;
    for (int k = 0; k < o.canary_instances * 8 && fired < o.canary_instances; ++k) {
      prove::InstanceOptions io{.rank = rank, .max_dim = 2, .fastmath = r.assumes};
      prove::Instance inst = prove::make_instance(*r.source, io, rng);
      if (!inst.program) continue;
      Replay c = canary(*inst.program, o.canary_runs);
      if (c.refuted) {
        res.disagreement = true;
        return done(Verdict::Unknown, "DISAGREEMENT (a bug in ptir): the canary at rank " + std::to_string(rank) +
                                          " refutes what the symbolic proof proved:\n" + print_program(*inst.program) + c.detail);
      }
      fired += c.fired;
    }
    res.canaries += fired;
  }
  return done(Verdict::Proved, "");
}

}  // namespace ptir::allshape
