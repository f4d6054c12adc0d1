// The conversion patterns of the shipped targets (docs/rewriter.md, "Conversion"; patterns/targets/).
#pragma once
#include <string_view>
#include <vector>

#include "rewriter/conversion/conversion.h"

namespace ptir {

/// Every conversion pattern, in the order a target lists them is the order they are tried.
const std::vector<const conversion::ConversionPattern*>& all_conversion_patterns();
/// The pattern named `name`, nullptr if there is none.
const conversion::ConversionPattern* find_conversion_pattern(std::string_view name);

/// A shipped target file (patterns/targets/NAME.target), embedded at build time.
struct EmbeddedTargetFile {
  std::string_view path;
  std::string_view text;
};
extern const EmbeddedTargetFile kEmbeddedTargetFiles[];
extern const size_t kNumEmbeddedTargetFiles;

}  // namespace ptir
