// Loading the embedded rule files of the built-in library.
#include "patterns/library.h"

#include <cstdio>
#include <cstdlib>

namespace ptir {

const std::vector<std::shared_ptr<const rules::RuleFile>>& builtin_rule_files() {
  static const std::vector<std::shared_ptr<const rules::RuleFile>> files = [] {
    std::vector<std::shared_ptr<const rules::RuleFile>> out;
    for (size_t k = 0; k < kNumEmbeddedRuleFiles; ++k) {
      auto loaded = rules::load_rule_text(kEmbeddedRuleFiles[k].text, kEmbeddedRuleFiles[k].path);
      if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
        // The files are checked by a test at build time; reaching this is a broken build.
        std::fprintf(stderr, "%s\n", e->format().c_str());
        std::abort();
      }
      out.push_back(std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded))));
    }
    return out;
  }();
  return files;
}

void populate_rule_library(PatternSet& set) {
  for (const auto& f : builtin_rule_files()) rules::add_rule_patterns(set, f);
}

}  // namespace ptir
