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

int cmd_corpus(const Args& a) {
  const bool checks = expensive_checks_option(a);
  const bool optimize = a.has("optimize");
  const unsigned timeout_ms = static_cast<unsigned>(*a.u64("timeout-ms"));
  const uint64_t seed = *a.u64("seed");
  std::vector<fs::path> files;
  for (const std::string& arg : a.positional()) {
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
    const Row r = check_file(files[i], seed, optimize, timeout_ms, checks);
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
