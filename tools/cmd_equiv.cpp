// `ptir check-equiv SRC TGT`: proves or refutes that program TGT refines program SRC, function by function
// (verify/refine.h, check_program_refinement).
#include <cstdio>
#include <memory>
#include <string>

#include "tools/commands.h"
#include "tools/common.h"
#include "verify/refine.h"
#include "verify/report.h"

namespace ptir::tool {
namespace {

constexpr int kProved = 0, kRefuted = 1, kUnknown = 2, kError = 3;

const char* kHelp =
    "usage: ptir check-equiv SRC TGT [--func NAME] [--timeout-ms N] [--memory-mb N] [--emit-smt2 FILE]\n"
    "                                [--json] [--unroll N] [--threads N] [--no-fast-pass] [--full]\n\n"
    "Checks that program TGT refines program SRC: both define the same functions (by name) with the same\n"
    "signatures, and for every function and every input on which SRC's function has no undefined\n"
    "behaviour, TGT's has none and returns equal results (all NaNs are equal, +0.0 and -0.0 differ). The\n"
    "program verdict is the weakest function verdict; a function missing from either side is an ERROR.\n"
    "Floats are encoded bit-exactly in Z3; transcendentals and opaque ops are uninterpreted; while loops\n"
    "are unrolled --unroll times (default 16). The last line says which functions were checked.\n\n"
    "The first output line starts with the verdict:\n"
    "  PROVED   Z3 showed refinement for all inputs of the given shapes\n"
    "  REFUTED  a concrete input, replayed in the interpreter, breaks it; the input tensors, both results\n"
    "           and the differing output element are printed as PTIR literals (tensors of more than 64\n"
    "           elements as a summary: type, count of differing elements, the first few; --full prints all)\n"
    "  UNKNOWN  timeout, memory budget, loop bound, or a counterexample that did not replay (never a pass)\n\n"
    "options:\n"
    "  --func NAME      check only function @NAME (the report says the others were not checked)\n"
    "  --timeout-ms N   budget of the whole check, encoding included, shared by the functions (default 10000)\n"
    "  --memory-mb N    memory budget (default 4096; 0 = none): a check estimated larger is UNKNOWN at\n"
    "                   once, Z3 and the interpreter runs are capped at it\n"
    "  --full           print REFUTED tensors in full, however large\n"
    "  --emit-smt2 FILE write every solver query in SMT-LIB 2\n"
    "  --json           print the verdict as one JSON object\n"
    "  --unroll N       while iterations to encode (default 16)\n"
    "  --threads N      solver threads (default 2)\n"
    "  --no-fast-pass   skip the interpreter search for counterexamples on edge/random inputs\n\n"
    "-o FILE (the report) and --emit-smt2 FILE are replaced for a verdict (exit 0, 1 or 2), left as they\n"
    "were on an error.\n\n"
    "exit codes: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 error (bad file, signature mismatch, usage, an output\n"
    "that cannot be written).\n";

}  // namespace

int cmd_check_equiv(int argc, char** argv) {
  Args a = split_args(argc, argv, {"timeout-ms", "memory-mb", "emit-smt2", "unroll", "threads", "func"});
  if (a.has("help")) {
    std::fputs(kHelp, stdout);
    return kProved;
  }
  if (!check_known(a, "check-equiv", {"timeout-ms", "memory-mb", "emit-smt2", "json", "unroll", "threads", "no-fast-pass", "full", "func"}))
    return kError;
  if (a.positional.size() != 2) {
    std::fprintf(stderr, "usage: ptir check-equiv SRC TGT [--timeout-ms N] [--emit-smt2 FILE] [--json]\n");
    return kError;
  }
  verify::CheckOptions opts;
  if (auto v = a.get("timeout-ms")) {
    auto n = parse_ranged_option("check-equiv", "timeout-ms", *v, 1, 86400000);
    if (!n) return kError;
    opts.timeout_ms = static_cast<unsigned>(*n);
  }
  if (auto v = a.get("memory-mb")) {
    auto n = parse_ranged_option("check-equiv", "memory-mb", *v, 0, uint64_t{1} << 30);
    if (!n) return kError;
    opts.memory_mb = *n;
  }
  if (auto v = a.get("unroll")) {
    auto n = parse_ranged_option("check-equiv", "unroll", *v, 0, 100000);
    if (!n) return kError;
    opts.while_unroll = static_cast<int>(*n);
  }
  if (auto v = a.get("threads")) {
    auto n = parse_ranged_option("check-equiv", "threads", *v, 1, 64);
    if (!n) return kError;
    opts.threads = static_cast<unsigned>(*n);
  }
  if (a.has("no-fast-pass")) opts.fast_pass_runs = 0;
  const auto smt2_path = a.get("emit-smt2");
  opts.emit_smt2 = smt2_path.has_value();

  std::string only;
  if (auto f = a.get("func")) {
    only = f->size() > 1 && (*f)[0] == '@' ? f->substr(1) : *f;
    if (only.empty()) {
      std::fprintf(stderr, "ptir check-equiv: --func needs a function name\n");
      return kError;
    }
  }
  auto src = load_program(a.positional[0]);
  if (!src) return kError;
  auto tgt = load_program(a.positional[1]);
  if (!tgt) return kError;
  // Opened after the inputs are read and before the check, so an unwritable path fails at once rather than
  // after a long proof; a temporary until the verdict, as -o (tools/common.h, OutputFile).
  std::unique_ptr<OutputFile> smt2_file;
  if (smt2_path) {
    std::string err;
    smt2_file = OutputFile::open(*smt2_path, &err);
    if (!smt2_file) {
      std::fprintf(stderr, "ptir check-equiv: cannot write --emit-smt2 '%s': %s\n", escape_bytes(*smt2_path).c_str(),
                   err.c_str());
      return kError;
    }
  }
  const Program& sp = src->program();
  const verify::ProgramVerdict v = verify::check_program_refinement(sp, tgt->program(), opts, only);

  const int kind = v.kind();
  int code = kind == 0 ? kProved : kind == 1 ? kRefuted : kind == 2 ? kUnknown : kError;
  if (smt2_file) {
    FILE* f = smt2_file->stream();
    std::fprintf(f, "; ptir check-equiv %s %s\n; each query is satisfiable exactly when it has a counterexample\n",
                 a.positional[0].c_str(), a.positional[1].c_str());
    for (const verify::FunctionVerdict& fv : v.functions) {
      std::fprintf(f, "; function @%s\n", fv.name.c_str());
      std::fwrite(fv.verdict.smt2.data(), 1, fv.verdict.smt2.size(), f);
      if (fv.verdict.smt2.empty())
        std::fprintf(f, "; no solver query was made for @%s: the verdict was reached without Z3 (interpreter fast "
                        "pass, structural identity or an error)\n", fv.name.c_str());
    }
    // Kept for a verdict, like -o; an ERROR leaves an old FILE as it was.
    if (!(code == kError ? smt2_file->discard() : smt2_file->commit())) {
      std::fprintf(stderr, "ptir check-equiv: error: writing %s: %s\n", escape_bytes(*smt2_path).c_str(),
                   smt2_file->error().c_str());
      code = kError;
    }
  }
  const verify::ReportOptions ro{.full = a.has("full")};
  const std::string out =
      a.has("json") ? verify::format_program_json(v, sp, ro) : verify::format_program_text(v, sp, ro);
  std::fwrite(out.data(), 1, out.size(), stdout);
  // A verdict is the command's result: -o FILE is replaced for REFUTED and UNKNOWN too.
  if (code != kError) mark_output_complete();
  return code;
}

}  // namespace ptir::tool
