// The `ptir` subcommands. Each returns the process exit code.
#pragma once

namespace ptir::tool {

/// One subcommand: its name, a one-line summary for `ptir --help`, its entry point and the exit codes main
/// uses for it (a bad -o, an output that cannot be written).
struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  ///< argv[0] is the subcommand name
  int error_code = 1;                 ///< an output that cannot be written (check-equiv: 3)
  int usage_code = 2;                 ///< a malformed -o (check-equiv: 3)
};

int cmd_parse(int argc, char** argv);
int cmd_print(int argc, char** argv);
int cmd_verify(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_opt(int argc, char** argv);
int cmd_check_equiv(int argc, char** argv);
int cmd_dot(int argc, char** argv);
int cmd_corpus(int argc, char** argv);
int cmd_prove(int argc, char** argv);
int cmd_synth(int argc, char** argv);

}  // namespace ptir::tool
