// `ptir corpus`: parse, verify and run every program of a corpus folder; print a summary table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "ir/interp.h"
#include "ir/verifier.h"
#include "tools/commands.h"
#include "tools/common.h"

namespace ptir::tool {
namespace {

namespace fs = std::filesystem;

struct Row {
  std::string name;
  size_t ops = 0;
  std::string parse = "-", verify = "-", run = "-";
  double ms = 0;
  bool ok = false;
};

Row check_file(const fs::path& path, uint64_t seed) {
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
  row.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

}  // namespace

int cmd_corpus(int argc, char** argv) {
  Args a = split_args(argc, argv, {"seed"});
  if (a.has("help")) {
    std::printf(
        "usage: ptir corpus DIR|FILE... [--seed N]\n\n"
        "Parses, verifies and runs (on random inputs from --seed, default 1, with in-range indices)\n"
        "every .ptir file given or found in the folders, and prints one table row per program.\n"
        "Exit code 0 when every program passes all three steps, 1 otherwise, 2 on usage errors.\n");
    return 0;
  }
  if (!check_known(a, "corpus", {"seed"})) return kExitUsage;
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
  std::sort(files.begin(), files.end());
  std::vector<Row> rows;
  for (const fs::path& f : files) rows.push_back(check_file(f, seed));
  size_t w = 7;
  for (const Row& r : rows) w = std::max(w, r.name.size());
  std::printf("%-*s %6s %-6s %-6s %8s  %s\n", int(w), "program", "ops", "parse", "verify", "ms", "run (results)");
  size_t passed = 0;
  for (const Row& r : rows) {
    std::printf("%-*s %6zu %-6s %-6s %8.2f  %s\n", int(w), r.name.c_str(), r.ops, r.parse.c_str(), r.verify.c_str(),
                r.ms, r.run.c_str());
    passed += r.ok;
  }
  std::printf("\n%zu passed, %zu failed\n", passed, rows.size() - passed);
  return passed == rows.size() ? kExitOk : kExitBadInput;
}

}  // namespace ptir::tool
