// The C++ patterns of the library: what rules cannot say (reduce axis bookkeeping: merging reduction
// chains; slices of concats, pads and broadcasts, adjacent slices and concat flattening are rules in
// patterns/rules/slice_concat_pad.rules). Each declares
// the source-DAG templates of the instances it must handle, in the rule language's source syntax, so
// the prover generates instances for it exactly as it does for a rule (patterns/templates.h collects
// them with the seed patterns' templates).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "rewriter/pattern.h"

namespace ptir {

/// Adds the C++ reduce and dot_general patterns (patterns/reduce_dot.cpp).
void populate_reduce_dot_patterns(PatternSet& set);

namespace detail {
/// An integer-list attribute value.
AttrValue ints_attr(std::vector<int64_t> v);
/// One integer attribute value.
AttrValue int_attr(int64_t v);
/// The (pattern name, source DAG) templates of patterns/reduce_dot.cpp.
std::vector<std::pair<std::string, std::string>> reduce_dot_templates();
}  // namespace detail

}  // namespace ptir
