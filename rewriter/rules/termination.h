// Termination check of a pattern set, run before any driver: the graph "an application of p may create
// an instruction that q matches" over the patterns, its strongly connected components (Boost.Graph), and
// the cycles in it that no pattern declared bounded. `ptir opt` refuses such a set (exit 1) and
// `ptir prove` reports it; the greedy driver's iteration cap stays as the runtime guard.
//
// What an edge p -> q means (docs/rewriter.md, "Termination"):
//  - a rule produces the op nodes of its result DAG; p -> q when one of them, with its operand subtree,
//    unifies with an op node (the root or any nested one) of q's source DAG. Unification is shallow and
//    conservative: a capture on either side unifies with anything, ops and operand counts must agree
//    (commutative ops in either order), constant attributes and splat numbers must be equal, and an op
//    never unifies with a literal (folding is not modelled);
//  - a C++ pattern produces the ops its `Pattern::produces()` declares (nothing by default) and
//    consumes its roots (every op when it has none); p -> q when p produces an op q consumes.
// Not modelled (the runtime guard covers them): a rewrite that only enables its users (a result that is
// a bare capture), constant folding, and C++ patterns that read deeper than their root.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "rewriter/pattern.h"

namespace ptir::rules {

/// True when an application of `producer` may create an instruction that `consumer` matches (an edge).
bool may_feed(const Pattern& producer, const Pattern& consumer);

/// The cycles of the may-feed graph over `patterns` that are not declared bounded: one cycle per
/// strongly connected component that contains a pattern without `has_bounded_recursion()` (a single
/// pattern counts only with a self-edge). Each cycle lists pattern names in firing order, starting at
/// the component's first unbounded pattern (in `patterns` order); its last pattern feeds its first. The
/// cycle is a shortest one through that pattern. Empty when the set terminates by this analysis.
std::vector<std::vector<std::string>> find_rule_cycles(std::span<const Pattern* const> patterns);

/// "rules may cycle: a -> b -> a (declare them bounded if each application shrinks the program)".
std::string describe_rule_cycle(const std::vector<std::string>& cycle, bool through_cpp = false);

/// One "error: rules may cycle: ..." line per cycle of find_rule_cycles; empty when there is none.
std::string termination_errors(std::span<const Pattern* const> patterns);

}  // namespace ptir::rules
