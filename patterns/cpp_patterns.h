// The C++ patterns of the library: what rules cannot say (variadic concat, slices of concats, pads and
// broadcasts, adjacent slices, reduce axis bookkeeping, dot_general dimension numbers). Each declares
// the source-DAG templates of the instances it must handle, in the rule language's source syntax, so
// the prover generates instances for it exactly as it does for a rule (docs/patterns.md).
#pragma once
#include <string>
#include <vector>

#include "rewriter/pattern.h"

namespace ptir {

/// One instance template of a C++ pattern: `source` is a rule source DAG (docs/rules.md) that binds %x.
struct PatternTemplate {
  std::string pattern;  ///< the pattern's debug name
  std::string source;   ///< e.g. "slice(concat(%x, %y) {axis = $a}) {starts = $s}"
  /// `rule <pattern>_<k> : <source> => %x`: text that parse_rule_text / load_rule_text accept.
  std::string rule_text(int k) const { return "rule " + pattern + "_" + std::to_string(k) + " : " + source + " => %x\n"; }
};

/// Every template of every C++ pattern of the library (the seed patterns included).
std::vector<PatternTemplate> cpp_pattern_templates();

/// Adds the C++ slice/concat/pad/broadcast patterns (patterns/slice_concat.cpp).
void populate_slice_concat_patterns(PatternSet& set);
/// Adds the C++ reduce and dot_general patterns (patterns/reduce_dot.cpp).
void populate_reduce_dot_patterns(PatternSet& set);

namespace detail {
/// An integer-list attribute value.
AttrValue ints_attr(std::vector<int64_t> v);
/// One integer attribute value.
AttrValue int_attr(int64_t v);
/// The templates of one file's patterns.
std::vector<PatternTemplate> slice_concat_templates();
std::vector<PatternTemplate> reduce_dot_templates();
}  // namespace detail

}  // namespace ptir
