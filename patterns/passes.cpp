// default_pass_registry: canonicalize, cse, dce, hoist-params and the named pipelines.
#include "patterns/passes.h"

#include "patterns/cpp_patterns.h"
#include "patterns/library.h"
#include "patterns/seed.h"
#include "rewriter/canonicalize.h"
#include "rewriter/cse.h"
#include "rewriter/dce.h"
#include "rewriter/rules/termination.h"

namespace ptir {

void populate_canonicalization_patterns(PatternSet& set,
                                        const std::vector<std::shared_ptr<const rules::RuleFile>>& extra,
                                        const std::vector<std::shared_ptr<const Plugin>>& plugins) {
  populate_rule_library(set);
  populate_seed_patterns_without_rule_twins(set);
  populate_reduce_dot_patterns(set);
  populate_plugin_patterns(set, plugins);
  for (const auto& f : extra) rules::add_rule_patterns(set, f);
}

std::string canonicalization_termination_errors(const CanonicalizeOptions& opts) {
  PatternSet set;
  populate_canonicalization_patterns(set, opts.rule_files, opts.plugins);
  const FrozenPatternSet frozen = std::move(set).freeze(opts.filter);
  return rules::termination_errors(frozen.all());
}

PassRegistry default_pass_registry(const CanonicalizeOptions& opts, const HoistOptions& hoist,
                                   std::shared_ptr<HoistLog> hoist_log) {
  PassRegistry r;
  r.add("canonicalize", "greedy pattern rewriting with folding and dead-code removal", [opts] {
    PatternSet set;
    populate_canonicalization_patterns(set, opts.rule_files, opts.plugins);
    return std::make_unique<CanonicalizePass>(std::move(set).freeze(opts.filter), opts.greedy);
  });
  r.add("cse", "merge identical pure instructions", [] { return std::make_unique<CSEPass>(); });
  r.add("dce", "erase dead pure instructions", [] { return std::make_unique<DCEPass>(); });
  // One log for every hoist-params the registry makes: a later run skips earlier prologues.
  if (!hoist_log) hoist_log = std::make_shared<HoistLog>();
  r.add("hoist-params", "move computations of the selected parameters into a prologue function",
        [hoist, hoist_log] { return std::make_unique<HoistParamsPass>(hoist, hoist_log); });
  r.add_pipeline("default", "what ptir opt runs when no pipeline is given", std::string(kDefaultPipeline));
  r.add_pipeline("gptrs", "gpt.rs's optimizer: pre fixed point, param-only hoisting, post fixed point with CSE, DCE",
                 std::string(kGptrsPipeline));
  return r;
}

}  // namespace ptir
