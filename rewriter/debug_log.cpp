// DebugLogger: the indented rewrite tree.
#include "rewriter/debug_log.h"

#include "rewriter/describe.h"

namespace ptir {
namespace {
constexpr const char* kRule = "//===-------------------------------------------===//";
}

void DebugLogger::line(const std::string& s) {
  std::fprintf(out_, "%*s%s\n", depth_ * 2, "", s.c_str());
}

void DebugLogger::notify_operation_begin(InstId i) {
  const Program& p = rw_.program();
  std::fprintf(out_, "%s\n", kRule);
  line("Processing operation : " + short_inst(p, i) + " {");
  ++depth_;
  line(describe_inst(p, i));
  std::fputc('\n', out_);
}

void DebugLogger::notify_operation_end(InstId i, bool changed, std::string_view outcome) {
  --depth_;
  line(std::string("} -> ") + (changed ? "success" : "failure") + " : " + std::string(outcome));
  std::fprintf(out_, "%s\n", kRule);
}

void DebugLogger::notify_pattern_begin(const RewriteSource& who, InstId root) {
  line("* Pattern " + std::string(who.name) + " : '" + std::string(mnemonic(rw_.op(root))) + "' {");
  ++depth_;
}

void DebugLogger::notify_pattern_end(const RewriteSource& who, InstId root, bool success) {
  --depth_;
  line(success ? "} -> success : pattern applied successfully" : "} -> failure : pattern failed to match");
}

void DebugLogger::notify_inserted(InstId i) {
  line("** Insert  : " + short_inst(rw_.program(), i) + "  " + describe_inst(rw_.program(), i));
}

void DebugLogger::notify_modified(InstId i) {
  line("** Modified: " + short_inst(rw_.program(), i) + "  " + describe_inst(rw_.program(), i));
}

void DebugLogger::notify_replaced(InstId i, std::span<const ValueId> with) {
  std::string s = "** Replace : " + short_inst(rw_.program(), i) + " with";
  const Program& p = rw_.program();
  for (ValueId v : with) {
    InstId d = p.def_inst(v);
    s += ' ';
    s += d != kNone ? short_inst(p, d) : (p.value(v).kind == ValueKind::Param ? "a parameter" : "a literal");
  }
  line(s);
}

void DebugLogger::notify_erased(InstId i) { line("** Erase   : " + short_inst(rw_.program(), i)); }

void DebugLogger::notify_match_failure(InstId root, std::string_view reason) {
  line("** Failure : " + std::string(reason));
}

}  // namespace ptir
