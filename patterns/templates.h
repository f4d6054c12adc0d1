// Instance templates of the C++ patterns: the source DAGs (in the rule language's source syntax) each
// C++ pattern must handle, so `ptir prove` generates instances for it exactly as for a rule.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ptir {

/// (pattern name, source DAG) pairs; a pattern may have several templates.
std::vector<std::pair<std::string, std::string>> cpp_pattern_templates();

}  // namespace ptir
