// The passes `ptir opt` pipelines can name, wired to the pattern library.
#pragma once
#include <string_view>

#include "rewriter/greedy.h"
#include "rewriter/pattern.h"
#include "rewriter/pipeline.h"

namespace ptir {

/// The pipeline `ptir opt` runs when none is given.
inline constexpr std::string_view kDefaultPipeline = "fixpoint(4){canonicalize,cse,dce}";

/// How `canonicalize` is built: which patterns and which driver settings.
struct CanonicalizeOptions {
  PatternFilter filter;
  GreedyConfig greedy = {.expensive_checks = false};
};

/// All canonicalization patterns (today: the seed patterns).
void populate_canonicalization_patterns(PatternSet& set);

/// A registry with `canonicalize` (canonicalization patterns + folding + DCE), `cse` and `dce`.
PassRegistry default_pass_registry(const CanonicalizeOptions& opts = {});

}  // namespace ptir
