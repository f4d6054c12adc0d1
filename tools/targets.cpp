#include "tools/targets.h"

#include <cstdio>
#include <string_view>

#include "patterns/conversion/conversion_patterns.h"
#include "tools/common.h"

namespace ptir::tool {

std::optional<conversion::ConversionTarget> load_conversion_target(const char* cmd, const std::string& spec,
                                                                   bool is_file) {
  std::string err;
  if (!is_file && spec.find('/') == std::string::npos &&
      !(spec.size() > 7 && spec.compare(spec.size() - 7, 7, ".target") == 0)) {
    for (size_t k = 0; k < kNumEmbeddedTargetFiles; ++k) {
      const EmbeddedTargetFile& f = kEmbeddedTargetFiles[k];
      if (f.path == "patterns/targets/" + spec + ".target") {
        auto t = conversion::parse_target(f.text, f.path, err);
        if (!t) std::fprintf(stderr, "ptir %s: %s\n", cmd, err.c_str());
        return t;
      }
    }
    std::string names;
    for (size_t k = 0; k < kNumEmbeddedTargetFiles; ++k) {
      std::string_view p = kEmbeddedTargetFiles[k].path;
      p.remove_prefix(p.rfind('/') + 1);
      p.remove_suffix(7);
      names += (names.empty() ? "" : ", ") + std::string(p);
    }
    std::fprintf(stderr, "ptir %s: no target is named '%s' (shipped: %s; or give a file: --target-file FILE)\n", cmd,
                 spec.c_str(), names.c_str());
    return std::nullopt;
  }
  std::optional<std::string> text = read_file(spec);
  if (!text) return std::nullopt;
  auto t = conversion::parse_target(*text, spec, err);
  if (!t) std::fprintf(stderr, "ptir %s: %s\n", cmd, err.c_str());
  return t;
}

bool conversion_patterns_of(const char* cmd, const conversion::ConversionTarget& t,
                            std::vector<const conversion::ConversionPattern*>& out) {
  for (size_t k = 0; k < t.patterns.size(); ++k) {
    const std::string& n = t.patterns[k];
    const conversion::ConversionPattern* p = find_conversion_pattern(n);
    if (!p) {
      std::string known;
      for (const conversion::ConversionPattern* c : all_conversion_patterns())
        known += (known.empty() ? "" : ", ") + std::string(c->name());
      const std::string at = k < t.pattern_lines.size() ? ":" + std::to_string(t.pattern_lines[k]) : "";
      std::fprintf(stderr, "ptir %s: %s%s: error: no conversion pattern is named '%s' (known: %s)\n", cmd,
                   t.source.c_str(), at.c_str(), n.c_str(), known.c_str());
      return false;
    }
    out.push_back(p);
  }
  return true;
}

}  // namespace ptir::tool
