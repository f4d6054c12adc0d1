// The pattern-seeded mode's templates: the source DAGs of known rewrites and their near misses, in one
// table. A template is a few statements over one input `$x`; when the pattern library's rule files land,
// their source sides can be turned into rows of the same shape.
//
// Placeholders: `$x` the input, `$0`..`$9` the template's own results (the last one is its output);
// types `$T` (x's type), `$T:DTYPE` (x's dims, another dtype), `$Tt` (dims 0 and 1 swapped), `$Tf`
// (flattened), `$T1` (a leading 1), `$Tb` (a leading 2), `$Tbb` (leading 3x2), `$Tc` (dim 0 doubled),
// `$Tp` (every dim + 2); elements of x's dtype `$one $two $negone`; lists of rank entries `$zeros $ones
// $iota $perm` (perm swaps axes 0 and 1) and `$first1` (1 then zeros).
#pragma once
#include <optional>
#include <span>
#include <string_view>

#include "ir/dtype.h"

namespace ptir::fuzz {

/// What x must be.
enum class SeedDType : uint8_t { Any, Number, Float, Int, F16, F32, SI8, SI32 };

/// One template of the seeded mode.
struct SeedTemplate {
  std::string_view name;  ///< snake_case, stable (reported in Generated::templates)
  std::string_view rule;  ///< the identity it plants, e.g. "x * 1 => x"; "=/=>" marks a near miss
  bool near_miss;         ///< the naive rewrite is wrong here; a rewrite must not fire (or must be exact)
  SeedDType dtype;
  int min_rank;
  bool nonempty_dim0;     ///< x.dims[0] >= 1
  std::string_view body;  ///< statements separated by ';', each `$k = TEXT -> TYPE`
};

/// Every template, in a fixed order.
std::span<const SeedTemplate> seed_templates();

}  // namespace ptir::fuzz
