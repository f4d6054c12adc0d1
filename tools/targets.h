// Conversion targets for `ptir convert` and `ptir prove --target`: a shipped target by name
// (patterns/targets/NAME.target, embedded in the binary) or a target file, and the conversion patterns
// it names.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "rewriter/conversion/conversion.h"

namespace ptir::tool {

/// The shipped target NAME, or the target file at `spec` (with `is_file`, or when the name has a '/' or
/// ends in .target). On failure prints "ptir CMD: ..." and returns nullopt.
std::optional<conversion::ConversionTarget> load_conversion_target(const char* cmd, const std::string& spec,
                                                                   bool is_file);

/// The conversion patterns the target names, in its order; false (after "ptir CMD: FILE: no conversion
/// pattern is named 'X'") when one does not exist.
bool conversion_patterns_of(const char* cmd, const conversion::ConversionTarget& t,
                            std::vector<const conversion::ConversionPattern*>& out);

}  // namespace ptir::tool
