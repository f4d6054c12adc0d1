// `ptir parse|print|verify|run`.
#include <chrono>
#include <cstdio>
#include <optional>

#include "ir/interp.h"
#include "ir/verifier.h"
#include "tools/commands.h"
#include "tools/common.h"

namespace ptir::tool {
namespace {

int print_like(int argc, char** argv, const char* cmd) {
  Args a = split_args(argc, argv, {});
  if (a.has("help")) {
    std::printf("usage: ptir %s [FILE] [-o OUT] [--split-input-file] [--verify-diagnostics]\n\n"
                "Parses and verifies FILE (omitted or '-' = stdin) and prints it in canonical text form.\n"
                "Errors are printed as FILE:LINE:COL: error: ... followed by the source line and a caret,\n"
                "with exit code 1 (also for an output that cannot be written); usage errors exit 2.\n"
                "-o OUT is replaced only on exit 0, so it may name FILE (see 'ptir --help').\n%s", cmd, kInputHelp);
    return 0;
  }
  if (!check_known(a, cmd, {"split-input-file", "verify-diagnostics"})) return kExitUsage;
  auto path = input_path(a, std::string("usage: ptir ") + cmd + " [FILE]");
  if (!path) return kExitUsage;
  return for_each_program(*path, input_mode(a), true, [](Loaded& l) {
    std::string out = print_program(l.program());
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  });
}

}  // namespace

int cmd_parse(int argc, char** argv) { return print_like(argc, argv, "parse"); }
int cmd_print(int argc, char** argv) { return print_like(argc, argv, "print"); }

int cmd_verify(int argc, char** argv) {
  Args a = split_args(argc, argv, {});
  if (a.has("help")) {
    std::printf("usage: ptir verify [FILE] [--split-input-file] [--verify-diagnostics]\n\n"
                "Checks syntax, types, shapes, attributes, region signatures and SSA of FILE (omitted or '-' =\n"
                "stdin). Prints 'ok' (exit 0) or the first error as FILE:LINE:COL: error: ... followed by the\n"
                "source line and a caret (exit 1).\n%s", kInputHelp);
    return 0;
  }
  if (!check_known(a, "verify", {"split-input-file", "verify-diagnostics"})) return kExitUsage;
  auto path = input_path(a, "usage: ptir verify [FILE]");
  if (!path) return kExitUsage;
  return for_each_program(*path, input_mode(a), true, [](Loaded&) {
    std::printf("ok\n");
    return kExitOk;
  });
}

namespace {
/// Reads an --inputs file: one literal per entry parameter, in order, separated by newlines or ';'.
bool read_inputs(const std::string& path, const Program& p, BodyId entry, std::vector<Tensor>& out) {
  auto text = read_file(path);
  if (!text) return false;
  // Each literal ends at the '>' closing its type; split on the text "tensor<...>" boundaries.
  std::string_view s = *text;
  size_t pos = 0;
  while (true) {
    // Skip blanks, ';' and comments.
    while (pos < s.size()) {
      if (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == ';') { ++pos; continue; }
      if (s.compare(pos, 2, "//") == 0) { while (pos < s.size() && s[pos] != '\n') ++pos; continue; }
      break;
    }
    if (pos >= s.size()) break;
    size_t colon = s.find(':', pos);
    size_t end = colon == std::string_view::npos ? colon : s.find('>', s.find("tensor", colon));
    if (end == std::string_view::npos) {
      std::fprintf(stderr, "%s: error: input %zu is not a literal 'dense<...> : tensor<...>'\n", path.c_str(),
                   out.size() + 1);
      return false;
    }
    Tensor t;
    std::string err;
    if (!parse_literal(s.substr(pos, end + 1 - pos), &t, &err)) {
      std::fprintf(stderr, "%s: input %zu: %s\n", path.c_str(), out.size() + 1, err.c_str());
      return false;
    }
    out.push_back(std::move(t));
    pos = end + 1;
  }
  const Body& b = p.body(entry);
  if (out.size() != b.params.size()) {
    std::fprintf(stderr, "%s: error: @%s takes %zu inputs, the file gives %zu\n", path.c_str(), b.name.c_str(),
                 b.params.size(), out.size());
    return false;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].type != p.type_of(b.params[i])) {
      std::fprintf(stderr, "%s: error: input %zu has type %s, @%s expects %s\n", path.c_str(), i + 1,
                   to_string(out[i].type).c_str(), b.name.c_str(), to_string(p.type_of(b.params[i])).c_str());
      return false;
    }
  }
  return true;
}
}  // namespace

int cmd_run(int argc, char** argv) {
  Args a = split_args(argc, argv, {"inputs", "random", "timeout-ms", "memory-mb"});
  if (a.has("help")) {
    std::printf(
        "usage: ptir run [FILE] [--inputs FILE | --random SEED] [--timeout-ms N] [--memory-mb N] [-o OUT]\n\n"
        "FILE omitted or '-' reads stdin.\n"
        "Runs the entry function (@main, else the first func) in the reference interpreter and prints\n"
        "each result as a PTIR literal, one per line. Inputs come from --inputs (one literal per\n"
        "parameter, e.g. 'dense<[1.0, 2.0]> : tensor<f32, 2>', separated by newlines or ';'), or are\n"
        "drawn from --random SEED (edge values included); a function without parameters needs neither.\n"
        "With --random the inputs are printed first as '// input N: LITERAL' lines.\n"
        "--timeout-ms N stops the run after N ms (default: no limit); --memory-mb N (default 4096, 0 =\n"
        "none) bounds the tensors the run holds at once: an instruction that would go past it is not run.\n"
        "Either budget ends the run with a clean error naming it.\n"
        "Exit codes: 0 ran, 1 bad input, undefined behaviour, no kernel or an output that cannot be\n"
        "written, 2 usage error. -o OUT is replaced only on exit 0.\n");
    return 0;
  }
  if (!check_known(a, "run", {"inputs", "random", "timeout-ms", "memory-mb"})) return kExitUsage;
  InterpOptions io;
  io.max_bytes = uint64_t{4096} << 20;
  if (auto v = a.get("memory-mb")) {
    auto n = parse_ranged_option("run", "memory-mb", *v, 0, uint64_t{1} << 30);
    if (!n) return kExitUsage;
    io.max_bytes = *n << 20;
  }
  if (auto v = a.get("timeout-ms")) {
    auto n = parse_u64_option("run", "timeout-ms", *v);
    if (!n) return kExitUsage;
    if (*n == 0 || *n > 86400000) {
      std::fprintf(stderr, "ptir run: --timeout-ms needs a value from 1 to 86400000, got %s\n", v->c_str());
      return kExitUsage;
    }
    io.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(*n);
  }
  if (a.positional.size() > 1 || (a.has("inputs") && a.has("random"))) {
    std::fprintf(stderr, "usage: ptir run [FILE] [--inputs FILE | --random SEED]\n");
    return kExitUsage;
  }
  const std::string path = a.positional.empty() ? "-" : a.positional[0];
  std::optional<uint64_t> random_seed;
  if (auto seed = a.get("random")) {
    random_seed = parse_u64_option("run", "random", *seed);
    if (!random_seed) return kExitUsage;
  }
  auto l = load_program(path);
  if (!l) return kExitBadInput;
  const Program& p = l->program();
  BodyId entry = p.entry();
  std::vector<Tensor> inputs;
  if (auto in = a.get("inputs")) {
    if (!read_inputs(*in, p, entry, inputs)) return kExitBadInput;
  } else if (random_seed) {
    const uint64_t* s = &*random_seed;
    uint64_t need = 0;
    for (ValueId v : p.body(entry).params)
      need += static_cast<uint64_t>(p.type_of(v).num_elements()) * dtype_bytes(p.type_of(v).dtype);
    if (io.max_bytes && need > io.max_bytes) {
      std::fprintf(stderr, "ptir run: error: memory budget of %llu MB exceeded: the random inputs need %llu MB (--memory-mb)\n",
                   static_cast<unsigned long long>(io.max_bytes >> 20), static_cast<unsigned long long>((need + (1 << 20) - 1) >> 20));
      return kExitBadInput;
    }
    inputs = random_inputs_avoiding_ub(p, entry, *s);
    for (size_t i = 0; i < inputs.size(); ++i) std::printf("// input %zu: %s\n", i + 1, print_literal(inputs[i]).c_str());
  } else if (!p.body(entry).params.empty()) {
    std::fprintf(stderr, "ptir run: @%s takes %zu inputs: give --inputs FILE or --random SEED\n",
                 p.body(entry).name.c_str(), p.body(entry).params.size());
    return kExitUsage;
  }
  RunResult r = run_program(p, inputs, io);
  if (r.status != RunStatus::Ok) {
    const char* what = r.status == RunStatus::UB ? "undefined behaviour" : r.status == RunStatus::Bound ? "loop bound hit" : "cannot run";
    std::string loc = r.at != kNone ? l->parsed.source.inst_location(p, r.at) : path;
    std::fprintf(stderr, "%s: error: %s: %s\n", loc.c_str(), what, r.message.c_str());
    return kExitBadInput;
  }
  for (const Tensor& t : r.results) std::printf("%s\n", print_literal(t).c_str());
  return kExitOk;
}

}  // namespace ptir::tool
