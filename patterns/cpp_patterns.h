// The C++ patterns of the library: what rules cannot say (variadic concat, slices of concats, pads and
// broadcasts, adjacent slices, reduce axis bookkeeping, dot_general dimension numbers). Each declares
// the source-DAG templates of the instances it must handle, in the rule language's source syntax, so
// the prover generates instances for it exactly as it does for a rule (patterns/templates.h collects
// them with the seed patterns' templates).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "rewriter/pattern.h"

namespace ptir {

/// Adds the C++ slice/concat/pad/broadcast patterns (patterns/slice_concat.cpp).
void populate_slice_concat_patterns(PatternSet& set);
/// Adds the C++ reduce and dot_general patterns (patterns/reduce_dot.cpp).
void populate_reduce_dot_patterns(PatternSet& set);

namespace detail {
/// An integer-list attribute value.
AttrValue ints_attr(std::vector<int64_t> v);
/// One integer attribute value.
AttrValue int_attr(int64_t v);
/// The (pattern name, source DAG) templates of patterns/slice_concat.cpp and patterns/reduce_dot.cpp.
std::vector<std::pair<std::string, std::string>> slice_concat_templates();
std::vector<std::pair<std::string, std::string>> reduce_dot_templates();
}  // namespace detail

}  // namespace ptir
