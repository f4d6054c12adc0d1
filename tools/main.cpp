// `ptir`: the command-line front end. Dispatches to one subcommand per file in tools/.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tools/commands.h"
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
               "\n'ptir COMMAND --help' describes a command.\n"
               "exit codes: 0 success, 1 bad input (parse/verify/run error), 2 usage error;\n"
               "check-equiv: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 error.\n");
}
}  // namespace
}  // namespace ptir::tool

int main(int argc, char** argv) {
  using namespace ptir::tool;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name)) continue;
    int code = c.run(argc - 1, argv + 1);
    // A Z3 check that overran its budget may still be finishing on a background thread; the verdict
    // is already printed, so leave now instead of waiting for it to join at exit.
    if (ptir::verify::abandoned_checks_running() > 0) {
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(code);
    }
    return code;
  }
  std::fprintf(stderr, "ptir: unknown command '%s' (see 'ptir --help')\n", argv[1]);
  return 2;
}
