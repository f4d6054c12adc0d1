// `ptir corpus`: parse, verify and run every program of a corpus folder; print a summary table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "ir/interp.h"
#include "ir/verifier.h"
#include "patterns/passes.h"
#include "rewriter/pass.h"
#include "rewriter/pipeline.h"
#include "verify/refine.h"
#include "verify/report.h"
#include "tools/commands.h"
#include "tools/common.h"
#include "tools/progress.h"

namespace ptir::tool {
namespace {

namespace fs = std::filesystem;

struct Row {
  std::string name;
  size_t ops = 0;
  std::string parse = "-", verify = "-", run = "-";
  size_t ops_after = 0;
  std::string validate = "-";
  double ms = 0;
  bool ok = false;
};

/// Runs the default pipeline on a copy and checks with Z3 that the result refines the program.
void optimize_and_validate(const Program& p, Row& row, unsigned timeout_ms, bool checks) {
  Program opt = p;
  PassManager pm(PassManagerOptions{.expensive_checks = checks});
  PassRegistry registry = default_pass_registry();
  if (std::string err = parse_pipeline(kDefaultPipeline, registry, pm.top()); !err.empty()) {
    row.validate = "pipeline error: " + err;
    row.ok = false;
    return;
  }
  PipelineResult r = pm.run(opt);
  if (!r.ok) {
    row.validate = "opt failed: " + r.error;
    row.ok = false;
    return;
  }
  row.ops_after = opt.num_live_insts();
  const verify::ProgramVerdict v = verify::check_program_refinement(p, opt, {.timeout_ms = timeout_ms});
  // One function: its verdict alone keeps the table narrow; several: the program line names them.
  row.validate = v.functions.size() == 1 && v.errors.empty() ? verify::summary_line(v.functions[0].verdict)
                                                             : verify::program_summary_line(v);
  if (size_t cut = row.validate.find(':'); cut != std::string::npos && !v.proved())
    row.validate = row.validate.substr(0, cut) + " (" + row.validate.substr(cut + 2) + ")";
  row.ok = row.ok && v.kind() != 1 && v.kind() != 3;
}

Row check_file(const fs::path& path, uint64_t seed, bool optimize, unsigned timeout_ms, bool checks) {
  Row row;
  row.name = path.filename().string();
  auto t0 = std::chrono::steady_clock::now();
  auto text = read_file(path.string());
  if (!text) { row.parse = "unreadable"; return row; }
  ParseResult pr = parse_program(*text, path.string());
  if (!pr.ok()) {
    row.parse = "FAIL";
    std::fprintf(stderr, "%s\n", pr.error.c_str());
    return row;
  }
  row.parse = "ok";
  const Program& p = *pr.program;
  row.ops = p.num_live_insts();
  auto diags = verify_program(p);
  if (!diags.empty()) {
    row.verify = "FAIL";
    std::fprintf(stderr, "%s\n", format_diagnostic(diags[0], p, &pr.source).c_str());
    return row;
  }
  row.verify = "ok";
  std::vector<Tensor> inputs = random_inputs_avoiding_ub(p, p.entry(), seed);
  RunResult r = run_program(p, inputs);
  switch (r.status) {
    case RunStatus::Ok: {
      row.run = "ok";
      for (const Tensor& t : r.results) row.run += " " + to_string(t.type);
      row.ok = true;
      break;
    }
    case RunStatus::UB: row.run = "UB: " + r.message; break;
    case RunStatus::Bound: row.run = "loop bound: " + r.message; break;
    case RunStatus::Error: row.run = "error: " + r.message; break;
  }
  if (optimize) optimize_and_validate(p, row, timeout_ms, checks);
  row.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

}  // namespace

int cmd_corpus(int argc, char** argv) {
  Args a = split_args(argc, argv, {"seed", "timeout-ms"});
  if (a.has("help")) {
    std::printf(
        "usage: ptir corpus DIR|FILE... [--seed N] [--optimize [--timeout-ms N]] [--[no-]expensive-checks]\n"
        "                   [--progress | --no-progress]\n\n"
        "Parses, verifies and runs (on random inputs from --seed, default 1, with in-range indices)\n"
        "every .ptir file given or found in the folders (in name order), and prints one table row per\n"
        "program as soon as it is done.\n"
        "With --optimize, also runs the default pipeline (fixpoint(4){canonicalize,cse,dce}) and checks\n"
        "with Z3 that the optimized program refines the original (budget --timeout-ms, default 10000);\n"
        "the table then shows the op count after optimization and the verdict.\n\n"
        "  --expensive-checks    with --optimize: every rewrite of the pipeline is replayed in the\n"
        "                        interpreter and every mutation verified (as 'ptir opt --expensive-checks');\n"
        "                        a violation fails the program's row ('opt failed: expensive checks: ...')\n"
        "  --no-expensive-checks without them\n"
        "%s"
        "%s\n"
        "Exit code 0 when every program passes (an UNKNOWN verdict is reported, not a failure), 1 when a\n"
        "step fails or a verdict is REFUTED (the table is complete: -o FILE is replaced), when a path\n"
        "does not exist or holds no .ptir file, or when the output cannot be written; 2 on usage errors.\n",
        expensive_checks_default_help(24).c_str(), Progress::help(24).c_str());
    return 0;
  }
  if (!check_known(a, "corpus", {"seed", "optimize", "timeout-ms", "expensive-checks", "no-expensive-checks",
                                 "progress", "no-progress"}))
    return kExitUsage;
  const auto checks = expensive_checks_option(a, "corpus");
  if (!checks) return kExitUsage;
  bool optimize = a.has("optimize");
  unsigned timeout_ms = 10000;
  if (auto s = a.get("timeout-ms")) {
    auto v = parse_ranged_option("corpus", "timeout-ms", *s, 1, 86400000);
    if (!v) return kExitUsage;
    timeout_ms = static_cast<unsigned>(std::min<uint64_t>(*v, 24u * 3600 * 1000));
  }
  uint64_t seed = 1;
  if (auto s = a.get("seed")) {
    auto v = parse_u64_option("corpus", "seed", *s);
    if (!v) return kExitUsage;
    seed = *v;
  }
  if (a.positional.empty()) {
    std::fprintf(stderr, "usage: ptir corpus DIR|FILE... [--seed N]\n");
    return kExitUsage;
  }
  std::vector<fs::path> files;
  for (const std::string& arg : a.positional) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(arg, ec))
        if (e.path().extension() == ".ptir") files.push_back(e.path());
    } else if (fs::exists(arg, ec)) {
      files.emplace_back(arg);
    } else {
      std::fprintf(stderr, "ptir corpus: no such file or folder: %s\n", arg.c_str());
      return kExitBadInput;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "ptir corpus: error: no .ptir file found in the given folders\n");
    return kExitBadInput;
  }
  std::sort(files.begin(), files.end());
  // Each row is printed as soon as its program is done (the column width comes from the file names).
  size_t w = 7;
  for (const fs::path& f : files) w = std::max(w, f.filename().string().size());
  std::string line;
  auto fmt = [&line](const char* format, auto... args) {
    const int n = std::snprintf(nullptr, 0, format, args...);
    line.assign(static_cast<size_t>(n) + 1, '\0');
    std::snprintf(line.data(), line.size(), format, args...);
    line.pop_back();
    return line;
  };
  if (optimize)
    std::printf("%-*s %6s %6s %-6s %-6s %9s  %-4s  %s\n", int(w), "program", "ops", "opt", "parse", "verify", "ms", "run",
                "validate (optimized refines original)");
  else
    std::printf("%-*s %6s %-6s %-6s %8s  %s\n", int(w), "program", "ops", "parse", "verify", "ms", "run (results)");
  std::fflush(stdout);
  Progress progress(Progress::mode_for(a), files.size(), "programs", optimize ? ", optimized and validated" : "");
  size_t passed = 0, total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    progress.started(i, files[i].filename().string());
    const Row r = check_file(files[i], seed, optimize, timeout_ms, *checks);
    ++total;
    passed += r.ok;
    if (optimize)
      fmt("%-*s %6zu %6zu %-6s %-6s %9.2f  %-4s  %s\n", int(w), r.name.c_str(), r.ops, r.ops_after, r.parse.c_str(),
          r.verify.c_str(), r.ms, r.run.rfind("ok", 0) == 0 ? "ok" : r.run.c_str(), r.validate.c_str());
    else
      fmt("%-*s %6zu %-6s %-6s %8.2f  %s\n", int(w), r.name.c_str(), r.ops, r.parse.c_str(), r.verify.c_str(), r.ms,
          r.run.c_str());
    progress.finished(i, r.ok ? "ok" : "FAIL");
    progress.print_stdout(line);
  }
  progress.stop();
  std::printf("\n%zu passed, %zu failed\n", passed, total - passed);
  // The table is the result, failing programs included: -o FILE is replaced for exit 1 too.
  mark_output_complete();
  return passed == total ? kExitOk : kExitBadInput;
}

}  // namespace ptir::tool
