// All-shape proofs of rules (docs/verification.md "All-shape proofs"): a rule of the axis-uniform
// fragment is proved for EVERY rank and EVERY size, with the same bit-exact IEEE semantics as the
// bounded checker. Sizes, indices and per-axis attributes are mathematical integers; input tensors are
// uninterpreted functions from index tuples to elements; each op is a function of a symbolic output
// index (verify/encode/scalar.h gives the element semantics, shared with the bounded encoding). "Every
// rank" is reduced to ranks 0..B by the rank-bound argument, whose premises are checked per rule.
//
// Verdicts: PROVED FOR ALL SHAPES only when every rank 0..B and every dtype/permutation configuration
// is unsat; a rule outside the fragment is "bounded only" (never forced); a satisfiable query is
// REFUTED only when its model, concretized to a small instance, makes the REAL pattern produce a
// replayed difference; everything else is UNKNOWN.
#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ir/program.h"
#include "rewriter/rules/ast.h"

namespace ptir::allshape {

enum class Verdict : uint8_t {
  Proved,       ///< PROVED FOR ALL SHAPES
  BoundedOnly,  ///< outside the fragment (or its premises fail): only the bounded proof applies
  Refuted,      ///< a concretized counterexample replayed with the real pattern
  Unknown,      ///< timeout, solver unknown, a counterexample that did not replay, a bound hit
};
const char* verdict_word(Verdict v);

struct Options {
  unsigned timeout_ms = 10000;  ///< Z3 budget per query
  /// Budget of one rule's whole proof (configurations grow as 13^dtype slots): past it, UNKNOWN.
  unsigned total_ms = 120000;
  int max_rank_bound = 6;       ///< a rule whose rank bound is larger is UNKNOWN (bound hit)
  int canary_instances = 4;     ///< concrete instances at rank bound + 1 run in the interpreter
  int canary_runs = 64;         ///< interpreter inputs per canary instance
  uint64_t seed = 1;
  /// When set, called with every exact query (the third stage; the cheaper cached stages are not
  /// given) in SMT-LIB 2, before it is checked: the rule's name, the rank, the text. `ptir prove
  /// --all-shapes-emit-smt2 FILE` writes them to FILE. Called from the proving thread.
  std::function<void(const std::string& rule, int rank, const std::string& smt2)> on_query_smt2;
};

/// What a caller supplies to replay a concrete instance with the REAL pattern: run it on `instance`
/// (folding off) and check the rewrite. `refuted` only for a replayed difference.
struct Replay {
  bool fired = false;
  bool refuted = false;
  std::string detail;
};
using ReplayFn = std::function<Replay(const Program& instance)>;
/// Runs the real pattern on `instance` and the interpreter on `runs` inputs: a canary.
using CanaryFn = std::function<Replay(const Program& instance, int runs)>;

struct Result {
  Verdict verdict = Verdict::Unknown;
  int rank_bound = -1;    ///< ranks 0..rank_bound were checked (the argument covers every rank)
  int configs = 0;        ///< dtype / permutation / operand-rank configurations checked
  int queries = 0;        ///< Z3 queries
  int canaries = 0;       ///< canary instances that fired and agreed
  /// A canary refuted what the symbolic proof proved: a bug in ptir. The verdict is then Unknown, and
  /// the caller reports a DISAGREEMENT, which fails the run (as does a bounded REFUTED beside an
  /// all-shape PROVED).
  bool disagreement = false;
  double ms = 0;
  std::string why;        ///< BoundedOnly / Unknown: why; Refuted: the replayed instance
  std::vector<std::string> notes;  ///< what was assumed or strengthened (dropped negated constraints, ...)
  std::set<std::string> dtypes;    ///< dtypes of the root over the configurations proved
  std::string scope() const;       ///< "ranks 0..1 (bound 1), every size incl. 0, dtypes f16,...; ..."
};

/// "" when the rule is in the all-shape fragment; otherwise why not (e.g. "reduce_sum: reductions are
/// bounded only"). The premises that depend on instances are checked again by prove_all_shapes.
std::string outside_fragment(const rules::Rule& r);

/// Proves `r` for all shapes. `replay` concretizes counterexamples; `canary` runs the rank-bound+1
/// canary (both with the real pattern). Never throws for a rule that loaded.
Result prove_all_shapes(const rules::Rule& r, const ReplayFn& replay, const CanaryFn& canary, const Options& o);

}  // namespace ptir::allshape
