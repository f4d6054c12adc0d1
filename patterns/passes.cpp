// default_pass_registry: canonicalize, cse, dce.
#include "patterns/passes.h"

#include "patterns/seed.h"
#include "rewriter/canonicalize.h"
#include "rewriter/cse.h"
#include "rewriter/dce.h"

namespace ptir {

void populate_canonicalization_patterns(PatternSet& set) { populate_seed_patterns(set); }

PassRegistry default_pass_registry(const CanonicalizeOptions& opts) {
  PassRegistry r;
  r.add("canonicalize", "greedy pattern rewriting with folding and dead-code removal", [opts] {
    PatternSet set;
    populate_canonicalization_patterns(set);
    return std::make_unique<CanonicalizePass>(std::move(set).freeze(opts.filter), opts.greedy);
  });
  r.add("cse", "merge identical pure instructions", [] { return std::make_unique<CSEPass>(); });
  r.add("dce", "erase dead pure instructions", [] { return std::make_unique<DCEPass>(); });
  return r;
}

}  // namespace ptir
