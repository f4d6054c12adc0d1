// DCE: one backward sweep per body.
#include "rewriter/dce.h"

namespace ptir {
namespace {
}  // namespace

int64_t eliminate_dead_code(ProgramRewriter& rw) {
  const Program& p = rw.program();
  int64_t erased = 0;
  for (BodyId b = 0; b < p.num_bodies(); ++b) {
    for (InstId i = p.body(b).last; i != kNone;) {
      InstId prev = p.inst(i).prev;
      OpCode op = p.op(i);
      if (op != OpCode::Return && !has_trait(op, Effect) && rw.results_unused(i)) {
        bool log = rw.has_listeners();
        const uint64_t bracket1 = log ? rw.notify_pattern_begin(RewriteSource::dce(), i) : 0;
        rw.erase_inst(i);
        if (log) rw.notify_pattern_end(RewriteSource::dce(), i, true, bracket1);
        ++erased;
      }
      i = prev;
    }
  }
  return erased;
}

PassResult DCEPass::run(ProgramRewriter& rw) {
  int64_t n = eliminate_dead_code(rw);
  add_statistic("num-erased", n, "dead pure instructions erased");
  return PassResult{.changed = n > 0, .fixpoint = true};
}

}  // namespace ptir
