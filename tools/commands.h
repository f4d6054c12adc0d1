// The `ptir` subcommands. Each takes its arguments parsed against the option table (tools/options.h) and
// returns the process exit code.
#pragma once
#include "tools/options.h"

namespace ptir::tool {

/// One subcommand's entry point and the exit code main uses for an output that cannot be written. Its
/// name, summary, operands, options and usage exit code are in the option table (command_table()).
struct Command {
  const char* name;
  int (*run)(const Args& args);
  int error_code = 1;  ///< an output that cannot be written (check-equiv: 3)
};

int cmd_parse(const Args& a);
int cmd_print(const Args& a);
int cmd_verify(const Args& a);
int cmd_run(const Args& a);
int cmd_opt(const Args& a);
int cmd_check_equiv(const Args& a);
int cmd_dot(const Args& a);
int cmd_corpus(const Args& a);
int cmd_prove(const Args& a);
int cmd_synth(const Args& a);
int cmd_convert(const Args& a);
#if PTIR_HAVE_MLIR
int cmd_import(const Args& a);
int cmd_export(const Args& a);
int cmd_tv(const Args& a);
#endif

}  // namespace ptir::tool
