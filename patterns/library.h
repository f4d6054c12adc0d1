// The built-in pattern library: the rule files of patterns/rules/ (embedded at build time) and the C++
// patterns for what rules cannot say. `ptir opt`, `ptir prove` and the canonicalize pass take it from here.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/pattern.h"
#include "rewriter/rules/rules.h"

namespace ptir {

/// One embedded rule file.
struct EmbeddedRuleFile {
  const char* path;
  std::string_view text;
};
extern const EmbeddedRuleFile kEmbeddedRuleFiles[];
extern const size_t kNumEmbeddedRuleFiles;

/// The built-in rule files, loaded and checked once (a broken built-in file aborts with its error).
const std::vector<std::shared_ptr<const rules::RuleFile>>& builtin_rule_files();

/// Adds every built-in rule as a RulePattern.
void populate_rule_library(PatternSet& set);

}  // namespace ptir
