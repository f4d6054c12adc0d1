// `ptir import`, `ptir export`, `ptir tv`: the MLIR front end (mlir/, docs/mlir.md). Built only with MLIR,
// into the module ptir-mlir.so (not into the executable): tools/mlir_module.cpp loads it and calls the
// extern "C" entry points at the end of this file. ptir's own functions resolve against the executable.
#if PTIR_HAVE_MLIR
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ir/text.h"
#include "mlir/import.h"
#include "tools/commands.h"
#include "tools/common.h"
#include "verify/refine.h"

namespace ptir::tool {
namespace {

constexpr int kProved = 0, kRefuted = 1, kUnknown = 2, kError = 3;

std::string json_str(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

/// What one run of the external tool gave.
struct ToolRun {
  bool ok = false;       ///< exited 0 within the time budget
  std::string out, err;  ///< its stdout and stderr
  std::string why;       ///< when !ok: "exit code 1", "killed after 60000 ms", "cannot run: ..."
};

std::string read_all(const std::string& path) {
  auto s = read_file(path);
  return s ? *s : std::string();
}

/// Runs argv with stdout and stderr into files of `dir`; kills it (its pid only) after `timeout_ms`.
ToolRun run_tool(const std::vector<std::string>& argv, const std::string& dir, uint64_t timeout_ms) {
  ToolRun r;
  const std::string out = dir + "/tool.out", err = dir + "/tool.err";
  pid_t pid = fork();
  if (pid < 0) {
    r.why = "cannot fork";
    return r;
  }
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || in < 0) _exit(127);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int status = 0;
  bool killed = false;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) {
      r.why = "waitpid failed";
      return r;
    }
    if (std::chrono::steady_clock::now() > deadline && !killed) {
      kill(pid, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.out = read_all(out);
  r.err = read_all(err);
  if (killed) r.why = "killed after " + std::to_string(timeout_ms) + " ms (--tool-timeout-ms)";
  else if (WIFSIGNALED(status)) r.why = "killed by signal " + std::to_string(WTERMSIG(status));
  else if (WEXITSTATUS(status) != 0) r.why = "exit code " + std::to_string(WEXITSTATUS(status));
  else r.ok = true;
  return r;
}

/// The command line for input file `path`: every `%s` replaced by it, or it appended when there is none.
std::vector<std::string> command_for(const std::vector<std::string>& cmd, const std::string& path) {
  std::vector<std::string> argv;
  bool subst = false;
  for (const std::string& a : cmd) {
    std::string b;
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] == '%' && k + 1 < a.size() && a[k + 1] == 's') {
        b += path;
        ++k;
        subst = true;
      } else {
        b += a[k];
      }
    }
    argv.push_back(b);
  }
  if (!subst) argv.push_back(path);
  return argv;
}

bool write_text(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

/// One function's outcome.
struct Row {
  std::string name;
  std::string verdict;  ///< PROVED, REFUTED, UNKNOWN, NOT IMPORTABLE, ERROR
  std::string detail;   ///< one line: the reason, the op, the query
  std::vector<std::string> lines;  ///< the counterexample and results, MLIR spelling
  std::string shrunk;              ///< REFUTED: the smallest input function still REFUTED
  int shrunk_ops = -1, original_ops = -1, shrink_runs = 0;
};

/// How bad a row is, for the exit code: an error, then a refutation (a REFUTED function is the finding,
/// whatever the others are: exit 1, as check-equiv's REFUTED outranks its UNKNOWN), then no verdict.
int row_rank(const std::string& v) {
  if (v == "ERROR") return 3;
  if (v == "REFUTED") return 2;
  if (v == "UNKNOWN" || v == "NOT IMPORTABLE") return 1;
  return 0;
}

struct TvOptions {
  verify::CheckOptions check;
  uint64_t tool_timeout_ms = 60000;
};

/// Checks function `name` of the tool's output against the input's. Fills `row` (verdict, detail, lines).
void check_function(const mlirfe::ImportResult& src, const mlirfe::ImportResult& tgt, const std::string& name,
                    const TvOptions& o, Row& row) {
  row.name = name;
  const mlirfe::ImportedFunction* sf = nullptr;
  const mlirfe::ImportedFunction* tf = nullptr;
  for (const auto& f : src.functions)
    if (f.name == name) sf = &f;
  for (const auto& f : tgt.functions)
    if (f.name == name) tf = &f;
  if (!sf) {
    row.verdict = "ERROR";
    row.detail = "the tool's output has @" + name + ", the input has no such function";
    return;
  }
  // A changed MLIR signature is an error even where the PTIR types agree (scalar f32 and tensor<f32>,
  // i8 and si8 import alike: such a change was PROVED; an adversarial review).
  if (tf && sf->mlir_type != tf->mlir_type) {
    row.verdict = "ERROR";
    row.detail = "the tool changed the signature of @" + name + ": " + sf->mlir_type + " became " + tf->mlir_type;
    return;
  }
  if (!sf->ok || !tf || !tf->ok) {
    row.verdict = "NOT IMPORTABLE";
    const mlirfe::ImportedFunction* bad = !sf->ok ? sf : tf;
    row.detail = (!sf->ok ? "input: " : "output: ") + (bad ? bad->error : std::string("missing"));
    return;
  }
  const BodyId sb = src.program->find_body(name, false);
  const BodyId tb = tgt.program->find_body(name, false);
  const verify::Verdict v = verify::check_refinement(*src.program, sb, *tgt.program, tb, o.check);
  if (v.proved()) {
    row.verdict = "PROVED";
    row.detail = std::get<verify::Proved>(v.v).note;
  } else if (v.unknown()) {
    row.verdict = "UNKNOWN";
    row.detail = std::get<verify::Unknown>(v.v).reason;
  } else if (v.invalid()) {
    row.verdict = "ERROR";
    row.detail = std::get<verify::Invalid>(v.v).reason;
  } else {
    const auto& r = std::get<verify::Refuted>(v.v);
    row.verdict = "REFUTED";
    row.detail = "found by " + r.found_by + (r.query ? ", query " + std::to_string(r.query) + " (" + r.query_name + ")" : "");
    for (size_t k = 0; k < r.inputs.size(); ++k) {
      std::string an = k < sf->arg_names.size() ? sf->arg_names[k] : "%arg" + std::to_string(k);
      row.lines.push_back(an + " = " + mlirfe::mlir_literal(r.inputs[k]));
    }
    if (r.tgt.status != RunStatus::Ok) {
      row.lines.push_back("the output function has undefined behaviour: " + r.tgt.message);
    } else {
      for (size_t k = 0; k < r.src.results.size() && k < r.tgt.results.size(); ++k) {
        row.lines.push_back("input  result " + std::to_string(k) + ": " + mlirfe::mlir_literal(r.src.results[k]));
        row.lines.push_back("output result " + std::to_string(k) + ": " + mlirfe::mlir_literal(r.tgt.results[k]));
      }
      if (r.result >= 0) row.lines.push_back("they differ at result " + std::to_string(r.result) + " element " +
                                             std::to_string(r.element));
    }
  }
}

/// Runs the tool on `input_text` and checks function `name`: the verdict word, "" when the tool or the
/// import failed.
std::string verdict_on(const std::string& input_text, const std::string& name, const std::vector<std::string>& cmd,
                       const std::string& dir, const TvOptions& o) {
  const std::string path = dir + "/reduced.mlir";
  if (!write_text(path, input_text)) return "";
  ToolRun run = run_tool(command_for(cmd, path), dir, o.tool_timeout_ms);
  if (!run.ok) return "";
  auto src = mlirfe::import_mlir(input_text, "reduced.mlir");
  auto tgt = mlirfe::import_mlir(run.out, "<tool output>", mlirfe::Side::Target);
  if (!src.parsed() || !tgt.parsed()) return "";
  Row row;
  check_function(src, tgt, name, o, row);
  return row.verdict;
}

/// Delta reduction of a REFUTED function (docs/mlir.md "Shrinking"): keep only the function, then drop one
/// op at a time (first to last, again from the start after every success) while the result stays REFUTED.
void shrink(const std::string& input_text, Row& row, const std::vector<std::string>& cmd, const std::string& dir,
            const TvOptions& o, int max_runs) {
  std::string err;
  std::string cur = mlirfe::reduce_variant(input_text, row.name, 0, &err);
  if (cur.empty()) return;
  row.original_ops = mlirfe::count_ops(cur, row.name);
  ++row.shrink_runs;
  if (verdict_on(cur, row.name, cmd, dir, o) != "REFUTED") {
    row.shrunk.clear();  // alone it is not REFUTED: report the original only
    return;
  }
  row.shrunk = cur;
  int n = row.original_ops;
  int w = mlirfe::op_weight(cur, row.name);
  for (int k = 1; k <= n && row.shrink_runs < max_runs;) {
    std::string cand = mlirfe::reduce_variant(cur, row.name, k, &err);
    if (cand.empty()) {
      ++k;
      continue;
    }
    // Smaller: fewer ops with operands or fewer ops (mlir/import.h, op_weight).
    int m = mlirfe::count_ops(cand, row.name);
    int mw = mlirfe::op_weight(cand, row.name);
    if (m < 0 || mw >= w || m > n) {
      ++k;
      continue;
    }
    ++row.shrink_runs;
    if (verdict_on(cand, row.name, cmd, dir, o) == "REFUTED") {
      cur = cand;
      n = m;
      w = mw;
      k = 1;
    } else {
      ++k;
    }
  }
  row.shrunk = cur;
  row.shrunk_ops = n;
}

std::string join_cmd(const std::vector<std::string>& cmd) {
  std::string s;
  for (const std::string& a : cmd) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

static int import_command(const Args& a) {
  const std::string path = a.positional().empty() ? "-" : a.positional()[0];
  auto text = read_file(path);
  if (!text) return 1;
  auto r = mlirfe::import_mlir(*text, path == "-" ? "<stdin>" : path);
  if (!r.parsed()) {
    std::fprintf(stderr, "%s\n", r.error.c_str());
    return 1;
  }
  bool all = true;
  for (const auto& f : r.functions)
    if (!f.ok) {
      std::fprintf(stderr, "%s\n", f.error.c_str());
      all = false;
    }
  if (r.functions.empty()) {
    std::fprintf(stderr, "%s: error: no func.func to import\n", path.c_str());
    return 1;
  }
  if (!all) return 1;
  std::string out = print_program(*r.program);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

static int export_command(const Args& a) {
  auto loaded = load_program(a.positional().empty() ? "-" : a.positional()[0]);
  if (!loaded) return 1;
  const std::string to = *a.get("to");
  std::string err;
  std::string out = mlirfe::export_mlir(loaded->program(),
                                        to == "tosa" ? mlirfe::ExportDialect::Tosa : mlirfe::ExportDialect::Arith, &err);
  if (out.empty()) {
    std::fprintf(stderr, "ptir export: error: cannot export: %s\n", err.c_str());
    return 1;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

static int tv_command(const Args& a) {
  const auto& pos = a.positional();
  const std::string path = pos[0];
  const std::vector<std::string> cmd(pos.begin() + 1, pos.end());
  TvOptions o;
  o.check.timeout_ms = static_cast<unsigned>(*a.u64("timeout-ms"));
  o.check.memory_mb = *a.u64("memory-mb");
  o.tool_timeout_ms = *a.u64("tool-timeout-ms");
  const bool json = a.has("json");
  const bool do_shrink = !a.has("no-shrink");
  const int max_runs = static_cast<int>(*a.u64("shrink-runs"));

  auto text = read_file(path);
  if (!text) return kError;
  auto src = mlirfe::import_mlir(*text, path);
  if (!src.parsed()) {
    std::fprintf(stderr, "%s\n", src.error.c_str());
    return kError;
  }
  std::error_code ec;
  std::string tmpl = (std::filesystem::temp_directory_path(ec) / "ptir-tv-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    std::fprintf(stderr, "ptir tv: error: cannot make a temporary folder\n");
    return kError;
  }
  const std::string dir = buf.data();
  struct Cleanup {
    std::string d;
    ~Cleanup() {
      std::error_code e;
      std::filesystem::remove_all(d, e);
    }
  } cleanup{dir};

  ToolRun run = run_tool(command_for(cmd, path), dir, o.tool_timeout_ms);
  if (!run.ok) {
    std::fprintf(stderr, "ptir tv: error: '%s' failed (%s)%s%s\n", join_cmd(command_for(cmd, path)).c_str(),
                 run.why.c_str(), run.err.empty() ? "" : ":\n", run.err.c_str());
    return kError;
  }
  auto tgt = mlirfe::import_mlir(run.out, "<tool output>", mlirfe::Side::Target);
  if (!tgt.parsed()) {
    std::fprintf(stderr, "ptir tv: error: the tool's output is not MLIR ptir can parse:\n%s\n", tgt.error.c_str());
    return kError;
  }
  std::vector<Row> rows;
  for (const auto& f : tgt.functions) {
    Row row;
    check_function(src, tgt, f.name, o, row);
    if (row.verdict == "REFUTED" && do_shrink) shrink(*text, row, cmd, dir, o, max_runs);
    rows.push_back(std::move(row));
  }
  int worst = rows.empty() ? kError : 0;
  int counts[5] = {0, 0, 0, 0, 0};  // PROVED REFUTED UNKNOWN NOT-IMPORTABLE ERROR
  for (const Row& r : rows) {
    worst = std::max(worst, row_rank(r.verdict));
    counts[r.verdict == "PROVED" ? 0 : r.verdict == "REFUTED" ? 1 : r.verdict == "UNKNOWN" ? 2
           : r.verdict == "NOT IMPORTABLE" ? 3 : 4]++;
  }
  const std::string tool = join_cmd(cmd);
  if (json) {
    std::string s = "{\"file\": " + json_str(path) + ", \"tool\": " + json_str(tool) + ", \"functions\": [";
    for (size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      s += std::string(k ? ", " : "") + "{\"name\": " + json_str(r.name) + ", \"verdict\": " + json_str(r.verdict) +
           ", \"detail\": " + json_str(r.detail) + ", \"counterexample\": [";
      for (size_t j = 0; j < r.lines.size(); ++j) s += std::string(j ? ", " : "") + json_str(r.lines[j]);
      s += "]";
      if (!r.shrunk.empty())
        s += ", \"shrunk\": " + json_str(r.shrunk) + ", \"shrunk_ops\": " + std::to_string(r.shrunk_ops) +
             ", \"original_ops\": " + std::to_string(r.original_ops) + ", \"shrink_runs\": " + std::to_string(r.shrink_runs);
      s += "}";
    }
    s += "], \"proved\": " + std::to_string(counts[0]) + ", \"refuted\": " + std::to_string(counts[1]) +
         ", \"unknown\": " + std::to_string(counts[2]) + ", \"not_importable\": " + std::to_string(counts[3]) +
         ", \"errors\": " + std::to_string(counts[4]) + "}\n";
    std::fwrite(s.data(), 1, s.size(), stdout);
  } else {
    std::printf("tv %s through '%s': %zu function%s\n", path.c_str(), tool.c_str(), rows.size(),
                rows.size() == 1 ? "" : "s");
    for (const Row& r : rows) {
      std::printf("@%-24s %-15s %s\n", r.name.c_str(), r.verdict.c_str(), r.detail.c_str());
      for (const std::string& l : r.lines) std::printf("    %s\n", l.c_str());
      if (!r.shrunk.empty()) {
        std::printf("    shrunk to %d op%s (from %d; %d tool runs), still REFUTED:\n", r.shrunk_ops,
                    r.shrunk_ops == 1 ? "" : "s", r.original_ops, r.shrink_runs);
        size_t b = 0;
        while (b < r.shrunk.size()) {
          size_t e = r.shrunk.find('\n', b);
          if (e == std::string::npos) e = r.shrunk.size();
          std::printf("    | %s\n", r.shrunk.substr(b, e - b).c_str());
          b = e + 1;
        }
      }
    }
    std::printf("summary: %d PROVED, %d REFUTED, %d UNKNOWN, %d NOT IMPORTABLE, %d ERROR\n", counts[0], counts[1],
                counts[2], counts[3], counts[4]);
  }
  if (worst != kError) mark_output_complete();
  return worst == 0 ? kProved : worst == 2 ? kRefuted : worst == 1 ? kUnknown : kError;
}

}  // namespace ptir::tool

// The module's entry points (tools/mlir_module.cpp). The version string lets the executable refuse a
// module built from other sources.
extern "C" {
const char* ptir_mlir_module_version() { return PTIR_VERSION; }
int ptir_mlir_import(const ptir::tool::Args& a) { return ptir::tool::import_command(a); }
int ptir_mlir_export(const ptir::tool::Args& a) { return ptir::tool::export_command(a); }
int ptir_mlir_tv(const ptir::tool::Args& a) { return ptir::tool::tv_command(a); }
}
#endif  // PTIR_HAVE_MLIR
