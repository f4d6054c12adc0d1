// `ptir prove`: proof of the implementation. For every pattern of a library, generate instances of the
// DAG it must handle (verify/prove/instance.h), run the REAL pattern on each (a one-pattern frozen set
// through the production greedy driver, folding off), and have check_program_refinement prove that the
// rewritten program refines the instance. A Z3 UNKNOWN falls back to an interpreter campaign of at
// least 1,000 edge-biased inputs: TESTED, never PROVED.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rewriter/pattern.h"
#include "rewriter/rules/ast.h"
#include "verify/allshape/allshape.h"

namespace ptir::prove {

/// Per-pattern verdict.
/// UNKNOWN: some instance was neither proved by Z3 nor passed the interpreter campaign (e.g. the
/// source's association orders were too many to enumerate): never a pass.
/// PARTIAL: every instance it fired on was proved (or TESTED), but some reachable coverage class
/// (docs/verification.md "Coverage") never fired: the classes are listed; never called PROVED.
/// LicensedAFn / LicensedReassoc: not proved exactly, but the rule holds over the real numbers and its
/// flags license that (verify/prove/licence.h); never counted as PROVED, an error for --require-proof.
enum class Status : uint8_t { Proved, Tested, Refuted, NotExercised, Error, Unknown, Partial, LicensedAFn, LicensedReassoc };
const char* status_word(Status s);

/// What the prover is given about one pattern.
struct Subject {
  std::string name;
  std::string origin;
  std::vector<std::shared_ptr<const rules::Node>> templates;  ///< source DAGs it must handle
  /// Per template: its constraints (a rule's `where`; a C++ template's own `where ...`, often none).
  /// They decide which coverage classes are reachable, and which instances are faithful.
  std::vector<std::vector<rules::Constraint>> template_where;
  /// Per C++ template: the template as a checked rule (`rule t : TEMPLATE => %x`) whose matcher says
  /// whether an instance matches it and its constraints; null for rules and for templates that are
  /// not a valid rule that way (then every unperturbed instance counts as matching).
  std::vector<std::shared_ptr<const rules::RuleFile>> template_rules;
  uint8_t assumes = 0;   ///< fast-math flags the instances' function carries (rules::Assume bits)
  std::vector<DType> dtype_hint;  ///< dtypes the constraints name (dtype_is, is_float, ...)
  std::string error;     ///< non-empty: the pattern cannot be proved at all (no template, ...)
  /// The rule of a RulePattern (its file keeps it alive); null for a C++ pattern.
  std::shared_ptr<const rules::Rule> rule;
  /// The rule's file (its text is part of the verdict cache's key); null for a C++ pattern.
  std::shared_ptr<const rules::RuleFile> rule_file;
};

struct ProveOptions {
  int max_rank = 3;
  int max_dim = 3;
  int instances = 48;          ///< instances per pattern (about 3/4 faithful, 1/4 near misses)
  uint64_t seed = 1;
  unsigned timeout_ms = 4000;  ///< Z3 budget per instance
  int campaign_runs = 1000;    ///< interpreter runs when Z3 says UNKNOWN
  /// Z3 threads per check. 1 (ptir prove) makes the per-check budget of units reproducible
  /// (verify::CheckOptions::deterministic); more threads share it in an order that can vary.
  unsigned solver_threads = 1;
  /// After the `instances` main loop: directed tries for each reachable coverage class that has not
  /// fired yet (each try generates an instance of that class and checks it).
  int class_tries = 12;
  /// REFUTED: look for a smaller failing instance to show: candidates from the smallest dims and ranks
  /// up (12 seeds each), at most shrink_checks of them checked, each with a Z3 budget of
  /// min(timeout_ms, shrink_timeout_ms) (then the interpreter campaign, as any instance). The verdict is
  /// REFUTED either way; shrinking only chooses which counterexample is shown. The prover fuzzer
  /// (fuzz/harness/prove_case.h) turns it off: it only needs the verdict.
  bool shrink = true;
  int shrink_checks = 8;
  unsigned shrink_timeout_ms = 1000;
  /// The sweep: once every fired instance is proved (or tested), sweep_factor * instances more
  /// instances (same ranks and dims, no near misses) run through the real pattern and are compared by
  /// the interpreter on sweep_runs edge-biased inputs each, no Z3: a pattern that breaks the program or
  /// differs there is REFUTED. 0: no sweep.
  int sweep_factor = 2;
  int sweep_runs = 8;
};

/// One coverage class of a pattern and whether it fired (docs/verification.md "Coverage").
struct ClassCoverage {
  std::string name;        ///< "rank 2", "dtype %x = f32", "[template 2] accum reduce_sum = si8", ...
  bool reachable = true;
  std::string why;         ///< unreachable: the rule that excludes it
  int fired = 0;           ///< fired instances of the class (each one checked)
  std::string hint;        ///< why the bounds may keep it from firing ("" if nothing is known)
};

/// The outcome for one pattern.
struct Report {
  std::string name, origin;
  Status status = Status::NotExercised;
  int instances = 0;      ///< generated (well-typed) instances
  int fired = 0;          ///< instances where the pattern fired (every one checked)
  int near_misses = 0;    ///< perturbed or constraint-failing instances
  int near_fired = 0;     ///< near misses where it fired anyway (then proved like any other)
  int proved = 0, tested = 0, unknown = 0;
  int solver_calls = 0;
  std::set<std::string> dtypes, shapes;
  double ms = 0;
  std::string detail;     ///< REFUTED: instance, rewrite, counterexample; TESTED: which instances; ERROR: why
  /// With --all-shapes: the all-shape verdict (after the safety nets: an all-shape PROVED that the
  /// bounded proof does not confirm is UNKNOWN, and one it refutes is a disagreement).
  std::optional<allshape::Result> all_shapes;
  bool disagreement = false;  ///< all-shape PROVED but bounded REFUTED: a bug in ptir, fails the run
  /// Every coverage class of every template, in plan order.
  std::vector<ClassCoverage> coverage;
  int classes_reachable() const;
  int classes_fired() const;     ///< reachable classes that fired
  std::vector<std::string> classes_missed() const;  ///< reachable classes that never fired
  std::string fired_ranks() const;  ///< the root ranks that fired, e.g. "0-3" or "2,3" ("-": none)
  /// "12 fired of 48 instances (root ranks 0-3 fired; 9 root shapes; dtypes f16,f32,...; 40 of 40
  /// reachable coverage classes fired)"
  std::string scope() const;
};

/// Builds a fresh set holding every pattern of the library (the prover freezes one pattern at a time).
using Populate = std::function<void(PatternSet&)>;

/// What one application of a pattern did to a program.
struct Applied {
  bool changed = false;
  std::string error;  ///< non-empty: the pattern broke a rule of the game (the message, newline-terminated)
};
/// Applies the only pattern of `one` ONCE through the production greedy driver (folding off) with the
/// driver's contract checked (fingerprints, every mutation verified), as every check of the prover does.
Applied apply_once(Program& p, const FrozenPatternSet& one);

/// Proves one pattern.
Report prove_pattern(const Subject& s, const Populate& populate, const ProveOptions& o);

/// Proves a rule pattern for all shapes (verify/allshape): counterexamples are concretized and
/// replayed with the REAL pattern (folding off, then the bounded checker), and the canary at rank
/// bound + 1 runs the real pattern and the interpreter. A C++ pattern is BoundedOnly (no rule text).
allshape::Result prove_pattern_all_shapes(const Subject& s, const Populate& populate, const ProveOptions& o,
                                          const allshape::Options& ao);

/// The subjects of a library: each pattern with its templates (a RulePattern's source DAG; a C++
/// pattern's declared templates from `cpp_templates`: pattern name -> rule-syntax source DAGs).
std::vector<Subject> subjects_of(const Populate& populate,
                                 const std::vector<std::pair<std::string, std::string>>& cpp_templates);

}  // namespace ptir::prove
