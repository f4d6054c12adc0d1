// `ptir dot FILE` and `ptir dot SRC TGT --counterexample`: GraphViz pictures of a program or a checked pair.
#include <cstdio>

#include "tools/commands.h"
#include "tools/common.h"
#include "verify/dot.h"
#include "verify/report.h"

namespace ptir::tool {

int cmd_dot(const Args& a) {
  const bool pair = a.has("counterexample");
  if (pair ? a.positional().size() != 2u : a.positional().size() > 1u) {
    std::fprintf(stderr, "ptir dot: %s (see 'ptir dot --help')\n",
                 pair ? "--counterexample needs two files, SRC and TGT"
                      : "two files need --counterexample (ptir dot SRC TGT --counterexample)");
    return kExitUsage;
  }
  auto src = load_program(input_path(a));
  if (!src) return kExitBadInput;
  const Program& sp = src->program();
  if (!pair) {
    std::fputs(verify::program_dot(sp, sp.entry()).c_str(), stdout);
    return kExitOk;
  }
  auto tgt = load_program(a.positional()[1]);
  if (!tgt) return kExitBadInput;
  verify::CheckOptions opts;
  opts.timeout_ms = static_cast<unsigned>(*a.u64("timeout-ms"));
  const Program& tp = tgt->program();
  // Every function is checked; the picture shows the first refuted function (else the entry function).
  const verify::ProgramVerdict pv = verify::check_program_refinement(sp, tp, opts);
  if (pv.kind() == 3) {
    std::fprintf(stderr, "ptir dot: %s\n", verify::program_summary_line(pv).c_str());
    return kExitBadInput;
  }
  const verify::FunctionVerdict* shown = &pv.functions.front();
  for (const verify::FunctionVerdict& f : pv.functions)
    if (f.verdict.refuted()) {
      shown = &f;
      break;
    }
  for (const verify::FunctionVerdict& f : pv.functions)
    if (f.src == sp.entry() && !shown->verdict.refuted()) shown = &f;
  const auto* cex = std::get_if<verify::Refuted>(&shown->verdict.v);
  std::string caption = verify::summary_line(shown->verdict);
  if (pv.functions.size() > 1)
    caption = "@" + shown->name + ": " + caption + " (program: " + verify::verdict_word(pv) + ")";
  std::fputs(verify::pair_dot(sp, shown->src, tp, shown->tgt, cex, caption).c_str(), stdout);
  return kExitOk;
}

}  // namespace ptir::tool
