// default_pass_registry: canonicalize, cse, dce.
#include "patterns/passes.h"

#include "patterns/cpp_patterns.h"
#include "patterns/library.h"
#include "patterns/seed.h"
#include "rewriter/canonicalize.h"
#include "rewriter/cse.h"
#include "rewriter/dce.h"

namespace ptir {

void populate_canonicalization_patterns(PatternSet& set,
                                        const std::vector<std::shared_ptr<const rules::RuleFile>>& extra) {
  populate_rule_library(set);
  populate_seed_patterns(set);
  populate_slice_concat_patterns(set);
  populate_reduce_dot_patterns(set);
  for (const auto& f : extra) rules::add_rule_patterns(set, f);
}

PassRegistry default_pass_registry(const CanonicalizeOptions& opts) {
  PassRegistry r;
  r.add("canonicalize", "greedy pattern rewriting with folding and dead-code removal", [opts] {
    PatternSet set;
    populate_canonicalization_patterns(set, opts.rule_files);
    return std::make_unique<CanonicalizePass>(std::move(set).freeze(opts.filter), opts.greedy);
  });
  r.add("cse", "merge identical pure instructions", [] { return std::make_unique<CSEPass>(); });
  r.add("dce", "erase dead pure instructions", [] { return std::make_unique<DCEPass>(); });
  return r;
}

}  // namespace ptir
