// Coverage classes of the bounded prover (docs/verification.md, "Coverage"). A pattern's instances are
// sorted into classes derived from its source DAG (a rule's source, a C++ pattern's template) and the
// op table: the root's rank, the dtype of each dtype variable (captures tied by the type rules), the
// attribute classes of each matched op (accum, keepdims, perm, pad, slice starts, tile repeats,
// broadcast axes, compare direction), the sizes of the inputs' axes, each shared subterm (`as %r` used
// again) and the function's extra fast-math flags. A class is REACHABLE unless a stated rule shows that
// no instance of it exists (the type rules, the rule's constraints, the rank bound); the prover steers
// the generator to each reachable class and the pattern is PROVED only when every reachable class fired
// at least once (prove.h). Unreachability is only ever claimed by those rules: a class no rule excludes
// counts as reachable, so a class the generator cannot reach shows up as PARTIAL, never as a pass.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "rewriter/rules/ast.h"
#include "verify/prove/instance.h"

namespace ptir::prove {

/// One coverage class of a template.
struct CoverageClass {
  std::string name;         ///< "rank 2", "dtype %x = f32", "accum reduce_sum = absent", ...
  bool reachable = true;
  std::string why;          ///< unreachable: the rule that excludes it
  Steer steer;              ///< the generator's choices aimed at it (a witness where one was computed)
  int rank = -1;            ///< the root rank to generate (-1: any reachable rank >= min_rank)
  int min_rank = 0;
  int flags = -1;           ///< extra fast-math flags: -1 any, 0 none, else these bits set
  /// Flagged instances aimed here stay small like unaimed flagged ones (rank <= 1 or the lowest reachable,
  /// dims <= 2): the joint "+F, V float" classes, whose UB queries at full dims time out.
  bool small_flagged = false;
  /// Why the bounds may keep the class from firing (e.g. "num_elements_is(%x, 4) needs a dim above
  /// --max-dim 3 at rank 1"): shown when it never fires. Reachability does not use it.
  std::string hint;
  /// How many instances the prover aims at the class before it stops steering there (a class counts
  /// as fired, in the verdict and the report, from its first instance). Corner classes of values beyond
  /// the generator's narrow ranges ask for several: one instance of a wide base dilation can sit where
  /// the dilation is not seen (one window covering everything), and a rule wrong there was PROVED.
  int aim = 1;
};

struct Skeleton;  // the analysed DAG (coverage.cpp)

/// The classes of one template.
struct CoveragePlan {
  std::string prefix;                  ///< "" or "[template 2] " when a pattern has several templates
  std::vector<CoverageClass> classes;
  std::vector<int> ranks;              ///< reachable root ranks within 0..max_rank
  std::string unreachable;             ///< non-empty: no instance can exist at all, and why
  std::shared_ptr<const Skeleton> skel;
};

/// Derives the classes of `source` under constraints `where` (a C++ template's own `where`, if any),
/// for a rule assuming `assumes`, with root ranks 0..max_rank (max_dim only feeds the hints).
CoveragePlan plan_coverage(const rules::Node& source, const std::vector<rules::Constraint>& where, uint8_t assumes,
                           int max_rank, int max_dim, std::string prefix = "");

/// The names of the classes instance `inst` (generated from the plan's source) belongs to.
std::set<std::string> classify(const CoveragePlan& plan, const Instance& inst);

}  // namespace ptir::prove
