// Shared helpers of the `ptir` subcommands: argument handling, file loading, exit codes.
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "ir/program.h"
#include "ir/text.h"
#include "tools/options.h"

namespace ptir::tool {

/// Exit codes shared by every subcommand (check-equiv uses its own 0..3, documented in its help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

/// The running command for messages: "ptir opt" once main() found the command ("ptir" before).
const char* who();
void set_command(const char* name);
/// Reads a whole file ("-" = stdin). On failure (a folder included) prints "ptir CMD: cannot read FILE:
/// reason" and returns nullopt.
std::optional<std::string> read_file(const std::string& path);
/// Reads, parses and verifies a file; prints the one-line diagnostic on failure.
struct Loaded {
  Loaded() = default;
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;
  ~Loaded();
  std::string owned;       ///< the text when it was read (stdin, pipes)
  const char* map = nullptr;  ///< the text when the file was mapped (regular files)
  size_t map_size = 0;
  std::string_view text;   ///< the program text, in `owned` or `map`
  ParseResult parsed;
  double parse_seconds = 0;   ///< wall time of parsing
  double verify_seconds = 0;  ///< wall time of verification (0 when not verified)
  Program& program() { return *parsed.program; }
};
std::unique_ptr<Loaded> load_program(const std::string& path, bool verify = true);

/// The version of ptir, from CMake's project(VERSION ...).
inline constexpr const char* kVersion = PTIR_VERSION;
/// What `ptir --version` and `ptir CMD --version` print: "ptir VERSION" on the first line, then the build
/// type and whether expensive checks are on by default (PTIR_EXPENSIVE_CHECKS).
std::string version_text();

/// Whether a command's pipelines run with expensive checks (rewriter/checks.h): the build's default
/// (kExpensiveChecksByDefault, the CMake option PTIR_EXPENSIVE_CHECKS) unless --expensive-checks or
/// --no-expensive-checks is given (the option table makes them exclude each other).
bool expensive_checks_option(const Args& a);

/// One program of an input file: the whole file, or with --split-input-file one piece between `// -----`
/// lines. `text` is padded with the newlines before the piece so line numbers are those of the file.
struct Chunk {
  std::string text;
  int first_line = 1;  ///< 1-based line of the file where the piece starts
};
/// Splits `text` at lines `// -----` when `split`; otherwise one chunk holding everything.
std::vector<Chunk> split_input(const std::string& text, bool split);

/// Adds the source line and a caret under the column to a one-line "NAME:LINE:COL: error: ..." diagnostic
/// whose NAME is `name`; control bytes of the shown line are escaped as \xHH. Unlocated diagnostics pass as is.
std::string with_caret(const std::string& diag, const std::string& text, const std::string& name);

/// Replaces control bytes (and bytes >= 0x7f) of `s` by \xHH so a diagnostic never prints them raw.
std::string escape_bytes(std::string_view s);

/// How a command reads its input: --split-input-file, --verify-diagnostics.
struct InputMode {
  bool split = false;
  bool verify_diagnostics = false;
};
/// Reads the two input options of `a`.
InputMode input_mode(const Args& a);
/// The one input path of a command: its operand, or "-" (stdin) when there is none (the option table
/// allows at most one).
std::string input_path(const Args& a);

/// Parses (and verifies when `verify`) every program of the file at `path` and calls `fn` on each that
/// loads; `fn` prints its output on stdout and returns an exit code. Chunk outputs are separated by
/// `// -----` (not with --verify-diagnostics). Without --verify-diagnostics an error is printed with its source line and caret and the
/// result is the largest exit code; with it, errors are matched against the `expected-error` comments of
/// the file and the result is 0 when all match, else 1 with each mismatch printed as FILE:LINE: error: ...
int for_each_program(const std::string& path, const InputMode& mode, bool verify,
                     const std::function<int(Loaded&)>& fn);

/// For --enable-patterns / --disable-patterns (`option`, without dashes): when a name of `names` is not in
/// `known`, prints "ptir CMD: --OPTION: no pattern is named 'X'; close names: A, B (see 'LIST')" and
/// returns true.
bool unknown_pattern_name(std::string_view cmd, std::string_view option, const std::vector<std::string>& names,
                          const std::vector<std::string>& known, std::string_view list);

/// A file a command writes (-o FILE, --json FILE, ...), handled like LLVM's ToolOutputFile:
///   - "-" is stdout;
///   - a path naming the same file as stdout or stderr (/dev/stdout, /dev/fd/2, ...) is written through
///     that descriptor;
///   - a regular file, or a path that does not exist yet, is written to a temporary file created in the
///     same folder (".NAME.tmp-XXXXXX", with the old file's permissions, or 0666 minus the umask) and
///     renamed over the file by commit(): the file is untouched until then, so an output may name an
///     input and a failing command leaves the old file as it was (a symlink is followed: its target is
///     replaced, the link stays);
///   - anything else (/dev/null, /dev/full, a FIFO, a terminal) is opened and written directly.
/// Every write, the final flush and the close are checked; the first failure is kept for error().
/// A temporary is removed by discard(), by the destructor, and on SIGINT/SIGTERM/SIGHUP/SIGPIPE.
class OutputFile {
 public:
  /// Opens `path`; returns nullptr with `*error` set (strerror text) when it cannot be written.
  static std::unique_ptr<OutputFile> open(const std::string& path, std::string* error);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();
  /// The stream to write (buffered; line-buffered on a terminal).
  FILE* stream() const { return stream_; }
  /// The path as given, or "<stdout>".
  const std::string& name() const { return name_; }
  /// Flushes and closes; a temporary is renamed over the file. False when a write, the flush, the close
  /// or the rename failed (a temporary is then removed and the file keeps its old content).
  bool commit();
  /// Flushes and closes without replacing the file: a temporary is removed; a direct output keeps what was
  /// written. False when a write, the flush or the close failed.
  bool discard();
  /// The reason of the first failure (strerror text), empty while none.
  std::string error() const;

 private:
  OutputFile() = default;
  bool close_stream();
  static ssize_t write_cb(void* self, const char* buf, size_t n);
  static int close_cb(void* self);
  std::string name_, target_, temp_;  ///< temp_ empty for a direct output
  int fd_ = -1;
  bool owns_fd_ = true;
  FILE* stream_ = nullptr;
  int errno_ = 0;
  bool closed_ = false;
};

/// Called by a command whose failing exit code still comes with its complete output, a verdict or a
/// report (check-equiv REFUTED/UNKNOWN, prove and corpus listing failures): -o FILE is then replaced
/// too. Without it, -o FILE is replaced only when the command exits 0.
void mark_output_complete();
bool output_marked_complete();

}  // namespace ptir::tool
