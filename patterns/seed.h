// The seed patterns (remove_noop_cast, fuse_unary_through_broadcast, fold_transpose_pair,
// fold_mul_by_one, fold_add_neg_zero): enough to drive the engine end to end. The full library is
// a separate piece of work and adds its own populate_* functions next to this one.
#pragma once
#include "rewriter/pattern.h"

namespace ptir {

/// Adds the five seed patterns, labelled "seed" plus a family label (cast, broadcast, transpose, algebraic).
void populate_seed_patterns(PatternSet& set);

}  // namespace ptir
