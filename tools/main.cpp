// `ptir`: the command-line front end. Dispatches to one subcommand per file in tools/.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cerrno>
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
    {"check-equiv", "prove or refute that TGT refines SRC (Z3, bit-exact IEEE)", cmd_check_equiv},
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
               "exit codes: 0 success, 1 bad input (parse/verify/run error), 2 usage error;\n"
               "check-equiv: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 error.\n");
}
/// Takes `-o FILE` / `-o=FILE` out of `args` and points stdout at FILE; returns false (after printing why)
/// when the option is malformed or FILE cannot be written.
bool take_output_option(std::vector<char*>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    std::string s = args[i];
    std::string path;
    if (s == "-o") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "ptir %s: -o needs a file name ('-' = stdout)\n", args[0]);
        return false;
      }
      path = args[i + 1];
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
    } else if (s.rfind("-o=", 0) == 0) {
      path = s.substr(3);
      args.erase(args.begin() + static_cast<long>(i));
    } else {
      continue;
    }
    --i;
    if (path == "-") continue;
    if (path.empty() || !std::freopen(path.c_str(), "w", stdout)) {
      std::fprintf(stderr, "ptir %s: cannot write -o '%s': %s\n", args[0], path.c_str(),
                   path.empty() ? "empty file name" : std::strerror(errno));
      return false;
    }
  }
  return true;
}
}  // namespace
}  // namespace ptir::tool

int main(int argc, char** argv) {
  using namespace ptir::tool;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("ptir %s\n", kVersion);
    return 0;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name)) continue;
    for (int i = 2; i < argc; ++i)
      if (!std::strcmp(argv[i], "--version")) {
        std::printf("ptir %s\n", kVersion);
        return 0;
      }
    std::vector<char*> args(argv + 1, argv + argc);
    if (!take_output_option(args)) return 2;
    args.push_back(nullptr);
    int code = c.run(static_cast<int>(args.size()) - 1, args.data());
    // A Z3 check that overran its budget may still be finishing on a background thread; the verdict
    // is already printed, so leave now instead of waiting for it to join at exit.
    if (ptir::verify::abandoned_checks_running() > 0) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(code);
    }
    return code;
  }
  std::fprintf(stderr, "ptir: unknown command '%s' (see 'ptir --help')\n", escape_bytes(argv[1]).c_str());
  return 2;
}
