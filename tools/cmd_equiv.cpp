// `ptir check-equiv SRC TGT`: proves or refutes that program TGT refines program SRC, function by function
// (verify/refine.h, check_program_refinement).
#include <cstdio>
#include <memory>
#include <string>

#include "tools/commands.h"
#include "tools/common.h"
#include "tools/progress.h"
#include "verify/refine.h"
#include "verify/report.h"

namespace ptir::tool {
namespace {

constexpr int kProved = 0, kRefuted = 1, kUnknown = 2, kError = 3;

}  // namespace

int cmd_check_equiv(const Args& a) {
  verify::CheckOptions opts;
  opts.timeout_ms = static_cast<unsigned>(*a.u64("timeout-ms"));
  opts.memory_mb = *a.u64("memory-mb");
  opts.while_unroll = static_cast<int>(*a.u64("unroll"));
  opts.threads = static_cast<unsigned>(*a.u64("threads"));
  if (a.has("no-fast-pass")) opts.fast_pass_runs = 0;
  const auto smt2_path = a.get("emit-smt2");
  opts.emit_smt2 = smt2_path.has_value();

  std::string only;
  if (auto f = a.get("func")) {
    only = f->size() > 1 && (*f)[0] == '@' ? f->substr(1) : *f;
    if (only.empty() || only == "@") {
      std::fprintf(stderr, "ptir check-equiv: --func needs a function name (see 'ptir check-equiv --help')\n");
      return kError;
    }
  }
  auto src = load_program(a.positional()[0]);
  if (!src) return kError;
  auto tgt = load_program(a.positional()[1]);
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
  // Progress over the functions (stderr): on a terminal when there are several, or with --progress.
  const Progress::Mode mode = Progress::mode_for(a);
  std::unique_ptr<Progress> progress;
  auto on_function = [&](size_t k, size_t n, const std::string& name, const verify::Verdict* done) {
    if (mode == Progress::Mode::Off || (n < 2 && mode == Progress::Mode::Tty)) return;
    if (!progress) progress = std::make_unique<Progress>(mode, n, "functions");
    if (!done) progress->started(k, "@" + name);
    else progress->finished(k, verify::verdict_word(*done));
  };
  const verify::ProgramVerdict v = verify::check_program_refinement(sp, tgt->program(), opts, only, on_function);
  if (progress) progress->stop();

  const int kind = v.kind();
  int code = kind == 0 ? kProved : kind == 1 ? kRefuted : kind == 2 ? kUnknown : kError;
  if (smt2_file) {
    FILE* f = smt2_file->stream();
    std::fprintf(f, "; ptir check-equiv %s %s\n; each query is satisfiable exactly when it has a counterexample\n",
                 a.positional()[0].c_str(), a.positional()[1].c_str());
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
