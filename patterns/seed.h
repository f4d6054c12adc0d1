// The seed patterns (remove_noop_cast, fuse_unary_through_broadcast, fold_transpose_pair,
// fold_mul_by_one, fold_add_neg_zero): enough to drive the engine end to end. The full library is
// a separate piece of work and adds its own populate_* functions next to this one.
#pragma once
#include "rewriter/pattern.h"

namespace ptir {

/// Adds the five seed patterns, labelled "seed" plus a family label (cast, broadcast, transpose, algebraic).
void populate_seed_patterns(PatternSet& set);

/// The seed patterns the canonicalization set uses: all but fold_mul_by_one and fold_add_neg_zero,
/// which restate the library rules mul_one and add_neg_zero (rules are proved for all shapes, so a
/// run they rewrite can be certified; the C++ twins stay as examples and for bench/rules_bench.cpp).
void populate_seed_patterns_without_rule_twins(PatternSet& set);

}  // namespace ptir
