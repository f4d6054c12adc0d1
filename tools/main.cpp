// `ptir`: the command-line front end. Dispatches to one subcommand per file in tools/.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/common.h"
#include "verify/refine.h"

namespace ptir::tool {
namespace {
const Command kCommands[] = {
    {"parse", "parse and verify a file, print it back in canonical form", cmd_parse},
    {"print", "same as parse: print a file in canonical form", cmd_print},
    {"verify", "check types, shapes and SSA; print 'ok' or the first error", cmd_verify},
    {"run", "run the entry function on given or random inputs, print the results", cmd_run},
    {"opt", "run a rewrite pipeline and print the optimized program", cmd_opt},
    {"check-equiv", "prove or refute that TGT refines SRC (Z3, bit-exact IEEE)", cmd_check_equiv, 3, 3},
    {"dot", "write a program (or a refuted pair) as GraphViz DOT", cmd_dot},
    {"corpus", "parse, verify and run every program of a folder; print a table", cmd_corpus},
    {"prove", "prove every pattern of the library (or a rule file) on generated instances", cmd_prove},
    {"synth", "print a random valid program (fuzz generator), deterministic for a seed", cmd_synth},
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: ptir COMMAND [ARGS]\n\n"
               "PTIR tensor-IR toolkit: text format, verifier, reference interpreter, rewrite driver and\n"
               "Z3-backed equivalence checker.\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-12s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\n'ptir COMMAND --help' describes a command. Every command takes -o FILE (write the output\n"
               "there; '-' = stdout) and --version; commands that read one program read stdin when FILE is\n"
               "omitted or '-'.\n"
               "-o FILE is written to a temporary file next to FILE and renamed over it when the command\n"
               "succeeds: exit 0, or a complete verdict or report (check-equiv 1 and 2; prove and corpus 1\n"
               "when they list failures). Otherwise FILE keeps its old content, so FILE may also be an input.\n"
               "Devices, FIFOs and /dev/stdout are written directly. Every write is checked, stdout too: a\n"
               "failed one prints 'ptir COMMAND: error: writing OUT: REASON' and fails the command.\n"
               "exit codes: 0 success, 1 bad input (parse/verify/run error) or an output that cannot be\n"
               "written, 2 usage error; check-equiv: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 error (bad file,\n"
               "usage, an output that cannot be written).\n");
}

/// Takes `-o FILE` / `-o=FILE` out of `args`: FILE in `*path` ("-" when absent). Returns false (after
/// printing why) when the option is malformed or given twice.
bool take_output_option(std::vector<char*>& args, std::string* path) {
  bool seen = false;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string s = args[i], p;
    if (s == "-o") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "ptir %s: -o needs a file name ('-' = stdout)\n", args[0]);
        return false;
      }
      p = args[i + 1];
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
    } else if (s.rfind("-o=", 0) == 0) {
      p = s.substr(3);
      args.erase(args.begin() + static_cast<long>(i));
    } else {
      continue;
    }
    --i;
    if (seen) {
      std::fprintf(stderr, "ptir %s: -o given twice\n", args[0]);
      return false;
    }
    if (p.empty()) {
      std::fprintf(stderr, "ptir %s: -o needs a file name ('-' = stdout)\n", args[0]);
      return false;
    }
    seen = true;
    *path = p;
  }
  return true;
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
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--version"))
    return print_checked(nullptr, 1, [] { std::fputs(version_text().c_str(), stdout); });
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help"))
    return print_checked(nullptr, 1, [] { usage(stdout); });
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name)) continue;
    for (int i = 2; i < argc; ++i)
      if (!std::strcmp(argv[i], "--version"))
        return print_checked(c.name, c.error_code, [] { std::fputs(version_text().c_str(), stdout); });
    std::vector<char*> args(argv + 1, argv + argc);
    std::string path = "-";
    if (!take_output_option(args, &path)) return c.usage_code;
    // Only a temporary is created here (FILE itself is replaced at the end), or a device/FIFO opened.
    std::string err;
    std::unique_ptr<OutputFile> out = OutputFile::open(path, &err);
    if (!out) {
      std::fprintf(stderr, "ptir %s: cannot write -o '%s': %s\n", c.name, escape_bytes(path).c_str(), err.c_str());
      return c.error_code;
    }
    args.push_back(nullptr);
    int code;
    {
      StdoutTo redirect(out->stream());
      code = c.run(static_cast<int>(args.size()) - 1, args.data());
    }
    code = finish_output(*out, c.name, code, code == 0 || output_marked_complete(), c.error_code);
    // A Z3 check that overran its budget may still be finishing on a background thread; the verdict
    // is already written, so leave now instead of waiting for it to join at exit.
    if (ptir::verify::abandoned_checks_running() > 0) {
      std::fflush(stderr);
      std::_Exit(code);
    }
    return code;
  }
  std::fprintf(stderr, "ptir: unknown command '%s' (see 'ptir --help')\n", escape_bytes(argv[1]).c_str());
  return 2;
}
