// The passes `ptir opt` pipelines can name, wired to the pattern library.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "patterns/plugin.h"
#include "rewriter/greedy.h"
#include "rewriter/hoist.h"
#include "rewriter/pattern.h"
#include "rewriter/pipeline.h"
#include "rewriter/rules/ast.h"

namespace ptir {

/// The pipeline `ptir opt` runs when none is given (also the named pipeline `default`).
inline constexpr std::string_view kDefaultPipeline = "fixpoint(4){canonicalize,cse,dce}";

/// gpt.rs's default optimizer pipeline (PipelineOptimizer), the named pipeline `gptrs`: a "pre" fixed
/// point of canonicalization (gpt.rs's GPTRS_OPT_PRE_ITERS default, 2), param-only hoisting, then the
/// "post" fixed point with CSE and DCE (GPTRS_OPT_POST_ITERS default, 4). gpt.rs's backend hooks have no
/// counterpart here.
inline constexpr std::string_view kGptrsPipeline =
    "fixpoint(2){canonicalize},hoist-params,fixpoint(4){canonicalize,cse,dce}";

/// How `canonicalize` is built: which patterns and which driver settings.
struct CanonicalizeOptions {
  PatternFilter filter;
  /// Rule files loaded at run time (`--rules FILE`), added after the built-in library.
  std::vector<std::shared_ptr<const rules::RuleFile>> rule_files{};
  /// Pattern plugins (`--load-plugin LIB`, patterns/plugin.h), added after the built-in library and
  /// before the rule files.
  std::vector<std::shared_ptr<const Plugin>> plugins{};
  /// kCanonicalizeOrder (top-down), as CanonicalizePass's default (`ptir opt --bottom-up` seeds bottom-up).
  GreedyConfig greedy = {.order = kCanonicalizeOrder, .expensive_checks = false};
};

/// All canonicalization patterns: the built-in rule library (patterns/rules/*.rules), the C++ patterns,
/// the patterns of `plugins` (in order), then the rules of `extra` files.
void populate_canonicalization_patterns(PatternSet& set,
                                        const std::vector<std::shared_ptr<const rules::RuleFile>>& extra = {},
                                        const std::vector<std::shared_ptr<const Plugin>>& plugins = {});

/// The termination check (rewriter/rules/termination.h) of the pattern set `canonicalize` is built from
/// under `opts` (filter applied): one "ORIGIN: error: rules may cycle: ..." line per undeclared cycle,
/// empty when there is none. `ptir opt` refuses to run when it is not empty.
std::string canonicalization_termination_errors(const CanonicalizeOptions& opts);

/// A registry with the passes `canonicalize` (canonicalization patterns + folding + DCE), `cse`, `dce`
/// and `hoist-params` (with `hoist`'s selection; every hoisting is appended to `hoist_log` when given),
/// and the named pipelines `default` and `gptrs`.
PassRegistry default_pass_registry(const CanonicalizeOptions& opts = {}, const HoistOptions& hoist = {},
                                   std::shared_ptr<HoistLog> hoist_log = nullptr);

}  // namespace ptir
