// `--debug-rewrites`: a listener that prints the greedy driver's work as a tree, like MLIR's
// `-debug-only=greedy-rewriter`: each instruction processed, each rewrite tried, why it failed, and the
// inserts, modifications, replacements and erasures it made.
#pragma once
#include <cstdio>
#include <string>

#include "rewriter/listener.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// Writes the rewrite tree to a FILE (usually stderr).
class DebugLogger final : public RewriteListener {
 public:
  DebugLogger(const ProgramRewriter& rw, std::FILE* out) : rw_(rw), out_(out) {}

  void notify_inserted(InstId i) override;
  void notify_modified(InstId i) override;
  void notify_replaced(InstId i, std::span<const ValueId> with) override;
  void notify_erased(InstId i) override;
  void notify_match_failure(InstId root, std::string_view reason) override;
  void notify_operation_begin(InstId i) override;
  void notify_operation_end(InstId i, bool changed, std::string_view outcome) override;
  void notify_pattern_begin(const RewriteSource& who, InstId root) override;
  void notify_pattern_end(const RewriteSource& who, InstId root, bool success) override;

 private:
  void line(const std::string& s);

  const ProgramRewriter& rw_;
  std::FILE* out_;
  int depth_ = 0;
};

}  // namespace ptir
