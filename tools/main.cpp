// `ptir`: the command-line front end. Dispatches to one subcommand per file in tools/.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cerrno>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tools/commands.h"
#include "tools/common.h"
#include "tools/options.h"
#include "verify/refine.h"

namespace ptir::tool {
namespace {
/// The entry points; names, summaries, operands and options come from command_table() (tools/options.h).
const Command kCommands[] = {
    {"parse", cmd_parse},         {"print", cmd_print},       {"verify", cmd_verify},
    {"run", cmd_run},             {"opt", cmd_opt},           {"check-equiv", cmd_check_equiv, 3},
    {"dot", cmd_dot},             {"corpus", cmd_corpus},     {"prove", cmd_prove},
    {"synth", cmd_synth},         {"convert", cmd_convert},
#if PTIR_HAVE_MLIR
    {"import", cmd_import},       {"export", cmd_export},     {"tv", cmd_tv, 3},
#endif
};

/// Whether `args` asks for `--NAME` / `-NAME` (or `-SHORT`) before any `--`.
bool asks_for(const std::vector<std::string>& args, std::string_view name, std::string_view short_name = {}) {
  for (const std::string& arg : args) {
    if (arg == "--") return false;
    std::string_view s = arg;
    if (s.size() < 2 || s[0] != '-') continue;
    s.remove_prefix(s[1] == '-' ? 2 : 1);
    if (s == name || (!short_name.empty() && arg.size() == 2 && s == short_name)) return true;
  }
  return false;
}

/// Points `stdout` (the glibc variable every printf/puts/fputs(stdout) reads) at an OutputFile's stream
/// for its lifetime, so commands print as they always did and every write is checked.
class StdoutTo {
 public:
  explicit StdoutTo(FILE* f) : saved_(stdout) {
    std::fflush(stdout);
    stdout = f;
  }
  ~StdoutTo() { stdout = saved_; }
  StdoutTo(const StdoutTo&) = delete;
  StdoutTo& operator=(const StdoutTo&) = delete;

 private:
  FILE* saved_;
};

/// Closes `out` after a command that returned `code`: commits it when the command succeeded (`complete`),
/// else discards it. A failed write is reported as "ptir CMD: error: writing OUT: REASON"; it turns a
/// success into `error_code` and leaves a failure's code as it is.
int finish_output(OutputFile& out, const char* cmd, int code, bool complete, int error_code) {
  const bool ok = complete ? out.commit() : out.discard();
  if (ok) return code;
  std::fprintf(stderr, "ptir%s%s: error: writing %s: %s\n", cmd ? " " : "", cmd ? cmd : "", out.name().c_str(),
               out.error().c_str());
  return complete ? error_code : code;
}

/// Runs `print` (--version, --help) with stdout checked; returns 0, or `error_code` when stdout could not
/// be written. `cmd` is the command name, or nullptr.
template <class F>
int print_checked(const char* cmd, int error_code, F print) {
  std::string err;
  auto out = OutputFile::open("-", &err);
  if (!out) {
    std::fprintf(stderr, "ptir%s%s: error: writing <stdout>: %s\n", cmd ? " " : "", cmd ? cmd : "", err.c_str());
    return error_code;
  }
  {
    StdoutTo redirect(out->stream());
    print();
  }
  return finish_output(*out, cmd, 0, true, error_code);
}
}  // namespace
}  // namespace ptir::tool

int main(int argc, char** argv) {
  using namespace ptir::tool;
  const auto& table = option_table();
  const auto& commands = command_table();
  if (argc < 2) {
    std::fputs(tool_help(table, commands).c_str(), stderr);
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--version" || first == "-version")
    return print_checked(nullptr, 1, [] { std::fputs(version_text().c_str(), stdout); });
  if (first == "--help" || first == "-help" || first == "-h" || first == "help")
    return print_checked(nullptr, 1, [&] { std::fputs(tool_help(table, commands).c_str(), stdout); });
  const CommandSpec* spec = find_command(commands, first);
  const Command* c = nullptr;
  for (const Command& k : kCommands)
    if (spec && first == k.name) c = &k;
  if (!spec || !c) {
    std::vector<std::string> names;
    for (const CommandSpec& k : commands) names.push_back(k.name);
    const std::string near = closest_name(first, names);
    std::fprintf(stderr, "ptir: unknown command '%s'%s%s%s (see 'ptir --help')\n", escape_bytes(first).c_str(),
                 near.empty() ? "" : ", did you mean '", near.c_str(), near.empty() ? "" : "'?");
    return 2;
  }
  set_command(c->name);
  const std::vector<std::string> rest(argv + 2, argv + argc);
  if (asks_for(rest, "version"))
    return print_checked(c->name, c->error_code, [] { std::fputs(version_text().c_str(), stdout); });
  if (asks_for(rest, "help", "h"))
    return print_checked(c->name, c->error_code,
                         [&] { std::fputs(command_help(table, *spec).c_str(), stdout); });
  auto parsed = Args::parse(table, commands, *spec, rest);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    std::fprintf(stderr, "%s\n", err->c_str());
    return spec->usage_code;
  }
  const Args& args = std::get<Args>(parsed);
  const std::string path = *args.get("o");
  // Only a temporary is created here (FILE itself is replaced at the end), or a device/FIFO opened.
  std::string err;
  std::unique_ptr<OutputFile> out = OutputFile::open(path, &err);
  if (!out) {
    std::fprintf(stderr, "ptir %s: cannot write -o '%s': %s\n", c->name, escape_bytes(path).c_str(), err.c_str());
    return c->error_code;
  }
  int code;
  {
    StdoutTo redirect(out->stream());
    // An exception that reaches here (a plugin's pattern factory that throws, an internal error) is an
    // error message and the command's error code, never "terminate called" and an abort; -o's file is
    // left as it was.
    try {
      code = c->run(args);
    } catch (const std::exception& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "ptir %s: error: %s\n", c->name, e.what());
      code = c->error_code;
    }
  }
  code = finish_output(*out, c->name, code, code == 0 || output_marked_complete(), c->error_code);
  // A Z3 check that overran its budget may still be finishing on a background thread; the verdict
  // is already written, so leave now instead of waiting for it to join at exit.
  if (ptir::verify::abandoned_checks_running() > 0) {
    std::fflush(stderr);
    std::_Exit(code);
  }
  return code;
}
