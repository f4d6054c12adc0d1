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

int print_like(const Args& a) {
  return for_each_program(input_path(a), input_mode(a), true, [](Loaded& l) {
    (void)print_program(l.program(), stdout);  // a write error is reported when the output is closed
    return kExitOk;
  });
}

}  // namespace

int cmd_parse(const Args& a) { return print_like(a); }
int cmd_print(const Args& a) { return print_like(a); }

int cmd_verify(const Args& a) {
  return for_each_program(input_path(a), input_mode(a), true, [](Loaded&) {
    std::printf("ok\n");
    return kExitOk;
  });
}

namespace {
/// "PATH:LINE:COL" of byte `off` of `s`.
std::string input_location(const std::string& path, std::string_view s, size_t off) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < off && i < s.size(); ++i) {
    if (s[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return path + ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// Reads an --inputs file: one literal per entry parameter, in order, separated by newlines or ';'.
/// Errors are located in the file (PATH:LINE:COL), as the parser's are in a program.
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
      std::fprintf(stderr, "%s: error: input %zu is not a literal 'dense<...> : tensor<...>'\n",
                   input_location(path, s, pos).c_str(), out.size() + 1);
      return false;
    }
    Tensor t;
    std::string err;
    if (!parse_literal(s.substr(pos, end + 1 - pos), &t, &err)) {
      // parse_literal locates its error in the literal ("<literal>:L:C: error: M"): moved into the file.
      unsigned long l = 0, c = 0;
      int used = 0;
      std::string where = input_location(path, s, pos);
      if (std::sscanf(err.c_str(), "<literal>:%lu:%lu: %n", &l, &c, &used) == 2 && used > 0) {
        size_t off = pos;  // the literal's line l, column c, counted from pos
        for (unsigned long k = 1; k < l && off < s.size(); ++off)
          if (s[off] == '\n') ++k;
        where = input_location(path, s, off + c - 1);
        err = err.substr(static_cast<size_t>(used));
      }
      std::fprintf(stderr, "%s: %s (input %zu)\n", where.c_str(), err.c_str(), out.size() + 1);
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

namespace {
/// Tensors of more elements than this (not splats) are summarised by `ptir run` unless --full.
constexpr int64_t kRunFullElements = 1024;
/// Elements a summary shows at each end.
constexpr int64_t kRunShownElements = 4;

/// A tensor as `ptir run` prints it: a literal, or past kRunFullElements (and not `full`) one line
/// "TYPE: N elements, fnv1a HASH; first 4: ...; last 4: ... (--full prints all)", HASH being the 64-bit
/// FNV-1a hash of the elements' bits (each element's dtype_bytes bytes, little-endian, row-major).
std::string show_run_tensor(const Tensor& t, bool full) {
  if (full || t.splat || t.size() <= kRunFullElements) return print_literal(t);
  const int64_t n = t.size();
  const size_t nb = dtype_bytes(t.dtype());
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = t.bits(i);
    for (size_t k = 0; k < nb; ++k) {
      h ^= (bits >> (8 * k)) & 0xff;
      h *= 0x100000001b3ull;
    }
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(h));
  std::string s = to_string(t.type) + ": " + std::to_string(n) + " elements, fnv1a " + hash + "; first " +
                  std::to_string(kRunShownElements) + ":";
  for (int64_t i = 0; i < kRunShownElements; ++i) s += (i ? ", " : " ") + format_elem(t.dtype(), t.bits(i));
  s += "; last " + std::to_string(kRunShownElements) + ":";
  for (int64_t i = n - kRunShownElements; i < n; ++i)
    s += (i > n - kRunShownElements ? ", " : " ") + format_elem(t.dtype(), t.bits(i));
  return s + " (--full prints all)";
}
}  // namespace

int cmd_run(const Args& a) {
  InterpOptions io;
  io.max_bytes = *a.u64("memory-mb") << 20;
  if (auto n = a.u64("timeout-ms")) io.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(*n);
  const bool full = a.has("full");
  const std::string path = input_path(a);
  const std::optional<uint64_t> random_seed = a.u64("random");
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
    for (size_t i = 0; i < inputs.size(); ++i)
      std::printf("// input %zu: %s\n", i + 1, show_run_tensor(inputs[i], full).c_str());
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
  for (const Tensor& t : r.results) std::printf("%s\n", show_run_tensor(t, full).c_str());
  return kExitOk;
}

}  // namespace ptir::tool
