// `ptir dot FILE` and `ptir dot SRC TGT --counterexample`: GraphViz pictures of a program or a checked pair.
#include <cstdio>

#include "tools/commands.h"
#include "tools/common.h"
#include "verify/dot.h"
#include "verify/report.h"

namespace ptir::tool {

int cmd_dot(int argc, char** argv) {
  Args a = split_args(argc, argv, {"timeout-ms"});
  if (a.has("help")) {
    std::printf(
        "usage: ptir dot [FILE]\n"
        "       ptir dot SRC TGT --counterexample [--timeout-ms N]\n\n"
        "Writes GraphViz DOT on stdout (render with 'dot -Tsvg'). With one file (omitted or '-' = stdin):\n"
        "its entry function, parameters, instructions and results as nodes, operands as edges. With two\n"
        "files and --counterexample: runs 'ptir check-equiv SRC TGT' and draws both sides over shared\n"
        "input nodes; for a REFUTED pair the inputs carry the counterexample values, every result its\n"
        "value, and the differing result is red. The verdict line is the graph's caption.\n"
        "Exit codes: 0 written, 1 bad input or an output that cannot be written, 2 usage error.\n");
    return kExitOk;
  }
  if (!check_known(a, "dot", {"counterexample", "timeout-ms"})) return kExitUsage;
  const bool pair = a.has("counterexample");
  if (pair ? a.positional.size() != 2u : a.positional.size() > 1u) {
    std::fprintf(stderr, "usage: ptir dot [FILE] | ptir dot SRC TGT --counterexample\n");
    return kExitUsage;
  }
  auto src = load_program(a.positional.empty() ? std::string("-") : a.positional[0]);
  if (!src) return kExitBadInput;
  const Program& sp = src->program();
  if (!pair) {
    std::fputs(verify::program_dot(sp, sp.entry()).c_str(), stdout);
    return kExitOk;
  }
  auto tgt = load_program(a.positional[1]);
  if (!tgt) return kExitBadInput;
  verify::CheckOptions opts;
  if (auto v = a.get("timeout-ms")) {
    auto n = parse_ranged_option("dot", "timeout-ms", *v, 1, 86400000);
    if (!n) return kExitUsage;
    opts.timeout_ms = static_cast<unsigned>(*n);
  }
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
