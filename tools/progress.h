// Progress of the long commands (`ptir prove`, `ptir corpus`) on stderr.
//
// Three modes:
//   Off    nothing (the default when stderr is not a terminal: golden tests and CI logs stay as they were)
//   Tty    stderr is a terminal: one status line "[k/n] NAME (12s) ... (elapsed 1m03s, eta 2m10s)" redrawn
//          in place every second by a ticker thread, from the start of the run, showing the item that has
//          been running longest; erased at the end. Rows written through print_stdout() erase it first and
//          redraw it after, so a table on the same terminal is never garbled.
//   Lines  --progress with stderr not a terminal: one plain line per finished item
//          "[k/n] NAME VERDICT in 0.41s (elapsed 12s, eta 5m10s)", a first line "[0/n] starting ..." and,
//          when nothing finished for 10 s, "[k/n] running: NAME (45s), ... (elapsed ..., eta ...)".
// --progress on a terminal is Tty; --no-progress is Off everywhere. All methods are thread-safe.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tools/common.h"

namespace ptir::tool {

class Progress {
 public:
  enum class Mode { Off, Tty, Lines };
  /// The mode for a command's options: --no-progress Off; a terminal on stderr Tty; --progress Lines.
  static Mode mode_for(const Args& a);

  /// `total` items; `what` names them in the first line ("patterns", "programs"), `detail` is appended
  /// to it (", 2 jobs"). The ticker starts here in Tty and Lines modes.
  Progress(Mode mode, size_t total, std::string what, std::string detail = "");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Item `index` (0-based, < total) named `name` has started.
  void started(size_t index, const std::string& name);
  /// Item `index` has finished with `verdict` ("PROVED", "ok", ...).
  void finished(size_t index, const std::string& verdict);
  /// Writes `text` to stdout and flushes it, with the status line out of the way.
  void print_stdout(std::string_view text);
  /// Stops the ticker and erases the status line (idempotent; the destructor calls it).
  void stop();
  /// The items started and not finished, with their seconds so far.
  std::vector<std::pair<std::string, double>> running() const;
  size_t done() const;
  double elapsed() const;

  /// "12s", "1m03s", "2h05m".
  static std::string duration(double seconds);

 private:
  void tick();
  void draw_locked();
  void clear_locked();
  std::string eta_locked() const;
  std::vector<std::pair<std::string, double>> running_locked() const;

  const Mode mode_;
  const size_t total_;
  const std::string what_;
  const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Item {
    std::string name;
    std::optional<std::chrono::steady_clock::time_point> start;
    bool done = false;
  };
  std::vector<Item> items_;
  size_t done_ = 0;
  std::string last_;  ///< "NAME VERDICT" of the last finished item
  bool drawn_ = false, stopping_ = false;
  std::chrono::steady_clock::time_point last_line_ = t0_;
  std::thread ticker_;
};

}  // namespace ptir::tool
