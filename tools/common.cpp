// Shared helpers of the `ptir` subcommands.
#include "tools/common.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <regex>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <csignal>
#include <cstdlib>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/verifier.h"
#include "rewriter/greedy.h"

namespace ptir::tool {

std::string version_text() {
  return std::string("ptir ") + kVersion + "\n" + "build: " + PTIR_BUILD_TYPE + ", expensive checks " +
         (kExpensiveChecksByDefault ? "on by default (PTIR_EXPENSIVE_CHECKS=ON; --no-expensive-checks turns them off)"
                                    : "off by default (PTIR_EXPENSIVE_CHECKS=OFF; --expensive-checks turns them on)") +
         "\n";
}

bool expensive_checks_option(const Args& a) {
  return a.has("expensive-checks") || (kExpensiveChecksByDefault && !a.has("no-expensive-checks"));
}

namespace {
std::string g_who = "ptir";
}
const char* who() { return g_who.c_str(); }
void set_command(const char* name) { g_who = std::string("ptir ") + name; }

std::optional<std::string> read_file(const std::string& path) {
  if (path == "-") {
    std::string text;
    char buf[1 << 16];
    while (true) {
      ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0) {
        text.append(buf, static_cast<size_t>(n));
      } else if (n == 0) {
        return text;
      } else if (errno != EINTR) {
        std::fprintf(stderr, "%s: cannot read <stdin>: %s\n", who(), std::strerror(errno));
        return std::nullopt;
      }
    }
  }
  // A folder opens as a stream that reads nothing; say what it is rather than "empty file".
  if (struct stat st; ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "%s: cannot read %s: %s\n", who(), path.c_str(), std::strerror(EISDIR));
    return std::nullopt;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "%s: cannot read %s: %s\n", who(), path.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  // A regular file is read in one go into a buffer of its size (a stringstream would grow by doubling
  // and copy the text twice: for a 77 MB program that is most of the page faults of `ptir opt`).
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    auto size = std::filesystem::file_size(path, ec);
    if (!ec) {
      std::string text(size, '\0');
      if (f.read(text.data(), static_cast<std::streamsize>(size)) && f.peek() == EOF) return text;
      f.clear();
      f.seekg(0);
    }
  }
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) {
    std::fprintf(stderr, "%s: cannot read %s\n", who(), path.c_str());
    return std::nullopt;
  }
  return ss.str();
}

Loaded::~Loaded() {
  if (map) munmap(const_cast<char*>(map), map_size);
}

/// Maps a regular, non-empty file read-only: the kernel maps the page cache around each fault, so a
/// large program costs a few hundred page faults instead of one per 4 KB of a copy (and no copy).
static bool map_file(const std::string& path, Loaded& l) {
  // Only a regular file is opened here: opening a named pipe and closing it unread would cost its
  // writer the data (read_file reads pipes).
  if (struct stat ps; ::stat(path.c_str(), &ps) != 0 || !S_ISREG(ps.st_mode)) return false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  if (ok) {
    void* m = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ok = m != MAP_FAILED;
    if (ok) {
      l.map = static_cast<const char*>(m);
      l.map_size = static_cast<size_t>(st.st_size);
      l.text = std::string_view(l.map, l.map_size);
    }
  }
  close(fd);
  return ok;
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Parses (and verifies) `l.text`; on failure sets `error` to the one-line diagnostic.
bool parse_loaded(Loaded& l, const std::string& name, bool verify, std::string& error) {
  auto t0 = std::chrono::steady_clock::now();
  l.parsed = parse_program(l.text, name);
  l.parse_seconds = seconds_since(t0);
  if (!l.parsed.ok()) {
    error = l.parsed.error;
    return false;
  }
  if (verify) {
    t0 = std::chrono::steady_clock::now();
    auto diags = verify_program(*l.parsed.program);
    l.verify_seconds = seconds_since(t0);
    if (!diags.empty()) {
      error = format_diagnostic(diags[0], *l.parsed.program, &l.parsed.source);
      return false;
    }
  }
  return true;
}

/// Parses (and verifies) `text`; on failure returns nullptr and sets `error` to the one-line diagnostic.
/// `text` is moved into the result, and given back when the load fails.
std::unique_ptr<Loaded> load_text(std::string& text, const std::string& name, bool verify, std::string& error) {
  auto l = std::make_unique<Loaded>();
  l->owned = std::move(text);
  l->text = l->owned;
  if (!parse_loaded(*l, name, verify, error)) {
    text = std::move(l->owned);
    return nullptr;
  }
  return l;
}

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

/// The line of a "NAME:LINE:COL: ..." diagnostic (0 when it has none) and where its message starts.
int diag_line(const std::string& diag, const std::string& name, int* col = nullptr, size_t* msg = nullptr) {
  if (diag.compare(0, name.size() + 1, name + ":") != 0) return 0;
  size_t i = name.size() + 1;
  int line = 0, c = 0;
  while (i < diag.size() && std::isdigit(static_cast<unsigned char>(diag[i]))) line = line * 10 + (diag[i++] - '0');
  if (i >= diag.size() || diag[i] != ':') return 0;
  ++i;
  while (i < diag.size() && std::isdigit(static_cast<unsigned char>(diag[i]))) c = c * 10 + (diag[i++] - '0');
  if (col) *col = c;
  if (msg) {
    size_t e = diag.find("error: ", i);
    *msg = e == std::string::npos ? i : e + 7;
  }
  return line;
}
}  // namespace

std::unique_ptr<Loaded> load_program(const std::string& path, bool verify) {
  std::string error, name = display_name(path);
  // A regular file is mapped, not copied; stdin and pipes are read.
  if (path != "-") {
    auto l = std::make_unique<Loaded>();
    if (map_file(path, *l)) {
      if (parse_loaded(*l, name, verify, error)) return l;
      std::fprintf(stderr, "%s\n", with_caret(error, std::string(l->text), name).c_str());
      return nullptr;
    }
  }
  auto text = read_file(path);
  if (!text) return nullptr;
  auto l = load_text(*text, name, verify, error);
  if (!l) std::fprintf(stderr, "%s\n", with_caret(error, *text, name).c_str());
  return l;
}

std::string escape_bytes(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string with_caret(const std::string& diag, const std::string& text, const std::string& name) {
  int col = 0;
  int line = diag_line(diag, name, &col);
  if (line <= 0 || col <= 0) return diag;
  size_t b = 0;
  for (int i = 1; i < line && b != std::string::npos; ++i) {
    b = text.find('\n', b);
    if (b != std::string::npos) ++b;
  }
  if (b == std::string::npos || b > text.size()) return diag;
  size_t e = text.find('\n', b);
  std::string src = text.substr(b, e == std::string::npos ? std::string::npos : e - b);
  if (!src.empty() && src.back() == '\r') src.pop_back();
  // A long line (a 400 KB literal on one line was echoed whole) is shown as a window of 80 bytes on
  // each side of the column, its cut ends marked "...".
  constexpr size_t kMaxShown = 200, kSide = 80;
  size_t from = 0, to = src.size();
  if (src.size() > kMaxShown) {
    const size_t at = std::min(static_cast<size_t>(col - 1), src.size());
    from = at > kSide ? at - kSide : 0;
    to = std::min(src.size(), at + kSide);
  }
  std::string shown = from > 0 ? "..." : "", pad = from > 0 ? "   " : "";
  for (size_t i = from; i < to; ++i) {
    std::string piece = src[i] == '\t' ? std::string("\t") : escape_bytes(std::string_view(&src[i], 1));
    shown += piece;
    if (static_cast<int>(i) + 1 < col) pad += piece == "\t" ? piece : std::string(piece.size(), ' ');
  }
  if (to < src.size()) shown += "...";
  return diag + "\n" + shown + "\n" + pad + "^";
}

std::vector<Chunk> split_input(const std::string& text, bool split) {
  std::vector<Chunk> out;
  if (!split) {
    out.push_back(Chunk{text, 1});
    return out;
  }
  std::string cur;
  int line = 1, start = 1;
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    size_t end = e == std::string::npos ? text.size() : e + 1;
    std::string_view l(text.data() + b, end - b);
    std::string_view t = l;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    if (t == "// -----") {
      out.push_back(Chunk{std::string(static_cast<size_t>(start - 1), '\n') + cur, start});
      cur.clear();
      start = line + 1;
    } else {
      cur.append(l);
    }
    ++line;
    b = end;
  }
  out.push_back(Chunk{std::string(static_cast<size_t>(start - 1), '\n') + cur, start});
  return out;
}

InputMode input_mode(const Args& a) { return {a.has("split-input-file"), a.has("verify-diagnostics")}; }

std::string input_path(const Args& a) { return a.positional().empty() ? std::string("-") : a.positional()[0]; }

namespace {
struct Expected {
  int line;
  std::string text;
  bool seen = false;
};

/// The `expected-error[@+N|@-N] {{text}}` comments of `text`.
std::vector<Expected> expectations(const std::string& text) {
  static const std::regex re(R"(expected-error(@([+-]?)([0-9]+))?\s*\{\{(.*?)\}\})");
  std::vector<Expected> out;
  int line = 1;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find('\n', b);
    std::string l = text.substr(b, e == std::string::npos ? std::string::npos : e - b);
    for (std::sregex_iterator it(l.begin(), l.end(), re), end; it != end; ++it) {
      const std::smatch& m = *it;
      int at = line;
      if (m[1].matched) {
        int n = std::stoi(m[3].str());
        at = m[2].str() == "-" ? line - n : m[2].str() == "+" ? line + n : n;
      }
      out.push_back(Expected{at, m[4].str()});
    }
    if (e == std::string::npos) break;
    b = e + 1;
    ++line;
  }
  return out;
}
}  // namespace

int for_each_program(const std::string& path, const InputMode& mode, bool verify,
                     const std::function<int(Loaded&)>& fn) {
  const std::string name = display_name(path);
  // One piece from a regular file: mapped, not copied, as load_program does (reading a 77 MB program
  // into a zeroed string and copying it into the piece were 10% of `ptir opt`'s time). The output is
  // written to a temporary file renamed over the target (OutputFile), so `-o` naming the input leaves
  // the mapped file intact.
  if (!mode.split && !mode.verify_diagnostics && path != "-") {
    auto l = std::make_unique<Loaded>();
    if (map_file(path, *l)) {
      std::string error;
      if (!parse_loaded(*l, name, verify, error)) {
        std::fprintf(stderr, "%s\n", with_caret(error, std::string(l->text), name).c_str());
        return kExitBadInput;
      }
      return fn(*l);
    }
  }
  auto text = read_file(path);
  if (!text) return kExitBadInput;
  // One piece and no expectations to read from the text afterwards: the piece takes the text itself.
  std::vector<Chunk> chunks;
  if (!mode.split && !mode.verify_diagnostics) chunks.push_back(Chunk{std::move(*text), 1});
  else chunks = split_input(*text, mode.split);
  std::vector<std::pair<int, std::string>> produced;  // (line, full diagnostic)
  int code = kExitOk, fn_code = kExitOk;
  for (size_t i = 0; i < chunks.size(); ++i) {
    // --verify-diagnostics checks errors: no separators, so a file whose every piece fails as expected
    // prints nothing (stdout holds only what the pieces that loaded printed).
    if (i > 0 && !mode.verify_diagnostics) {
      std::fflush(stderr);
      std::fputs("// -----\n", stdout);
      std::fflush(stdout);
    }
    std::string error;
    std::string& chunk_text = chunks[i].text;
    auto l = load_text(chunk_text, name, verify, error);
    if (!l) {
      if (mode.verify_diagnostics) {
        produced.emplace_back(diag_line(error, name), error);
      } else {
        std::fprintf(stderr, "%s\n", with_caret(error, chunk_text, name).c_str());
        code = std::max(code, kExitBadInput);
      }
      continue;
    }
    fn_code = std::max(fn_code, fn(*l));
  }
  if (!mode.verify_diagnostics) return std::max(code, fn_code);
  std::vector<Expected> want = expectations(*text);
  bool ok = true;
  for (const auto& [line, diag] : produced) {
    size_t msg = 0;
    diag_line(diag, name, nullptr, &msg);
    std::string m = diag.substr(msg);
    bool matched = false;
    for (Expected& w : want)
      if (!w.seen && w.line == line && m.find(w.text) != std::string::npos) {
        w.seen = matched = true;
        break;
      }
    if (!matched) {
      ok = false;
      std::fprintf(stderr, "%s:%d: error: unexpected error: %s\n", name.c_str(), line, escape_bytes(m).c_str());
    }
  }
  for (const Expected& w : want)
    if (!w.seen) {
      ok = false;
      std::fprintf(stderr, "%s:%d: error: expected error \"%s\" was not produced\n", name.c_str(), w.line,
                   w.text.c_str());
    }
  return ok ? fn_code : std::max(fn_code, kExitBadInput);
}

bool unknown_pattern_name(std::string_view cmd, std::string_view option, const std::vector<std::string>& names,
                          const std::vector<std::string>& known, std::string_view list) {
  for (const std::string& n : names) {
    if (std::find(known.begin(), known.end(), n) != known.end()) continue;
    std::vector<std::pair<size_t, std::string>> close;
    for (const std::string& k : known) {
      const size_t d = edit_distance(n, k);
      if (d <= std::max<size_t>(3, n.size() / 2) || (n.size() >= 3 && k.find(n) != std::string::npos))
        close.emplace_back(d, k);
    }
    std::sort(close.begin(), close.end());
    std::string hint;
    for (size_t i = 0; i < close.size() && i < 5; ++i) hint += (i ? ", " : "") + close[i].second;
    std::fprintf(stderr, "ptir %.*s: --%.*s: no pattern is named '%s'%s%s (see '%.*s')\n", int(cmd.size()), cmd.data(),
                 int(option.size()), option.data(), escape_bytes(n).c_str(), hint.empty() ? "" : "; close names: ",
                 hint.c_str(), int(list.size()), list.data());
    return true;
  }
  return false;
}

// ---- OutputFile ----------------------------------------------------------------------------------------

namespace {
/// The temporaries alive now, removed by the signal handler: fixed slots, so the handler only reads.
constexpr int kMaxTemps = 8;
char* g_temps[kMaxTemps] = {};
bool g_complete = false;

extern "C" void remove_temps_and_reraise(int sig) {
  for (char* t : g_temps)
    if (t) ::unlink(t);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void register_temp(const std::string& path) {
  static bool handlers = false;
  if (!handlers) {
    handlers = true;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
      struct sigaction old {};
      // A signal the caller ignores (nohup, a shell's background job) stays ignored.
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) std::signal(sig, remove_temps_and_reraise);
    }
  }
  for (char*& t : g_temps)
    if (!t) {
      t = ::strdup(path.c_str());
      return;
    }
}

void unregister_temp(const std::string& path) {
  for (char*& t : g_temps)
    if (t && path == t) {
      char* p = t;
      t = nullptr;
      std::free(p);
      return;
    }
}

bool same_file(const struct stat& st, int fd) {
  struct stat f;
  return ::fstat(fd, &f) == 0 && f.st_dev == st.st_dev && f.st_ino == st.st_ino;
}
}  // namespace

void mark_output_complete() { g_complete = true; }
bool output_marked_complete() { return g_complete; }

ssize_t OutputFile::write_cb(void* self, const char* buf, size_t n) {
  auto* o = static_cast<OutputFile*>(self);
  if (o->errno_) return 0;  // after a failure nothing more is written; a short count marks the stream failed
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(o->fd_, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      o->errno_ = w < 0 ? errno : EIO;
      return 0;
    }
    done += static_cast<size_t>(w);
  }
  return static_cast<ssize_t>(n);
}

int OutputFile::close_cb(void* self) {
  auto* o = static_cast<OutputFile*>(self);
  if (!o->owns_fd_ && o->fd_ != STDOUT_FILENO) return 0;
  // stdout itself is closed too, so a late error of the file system (NFS, quotas) is seen here.
  if (::close(o->fd_) != 0 && errno != EINTR) {
    if (!o->errno_) o->errno_ = errno;
    return -1;
  }
  return 0;
}

std::unique_ptr<OutputFile> OutputFile::open(const std::string& path, std::string* error) {
  std::unique_ptr<OutputFile> o(new OutputFile());
  o->name_ = path == "-" ? "<stdout>" : path;
  auto fail = [&](int e) {
    *error = std::strerror(e);
    if (o->fd_ >= 0 && o->owns_fd_) ::close(o->fd_);
    if (!o->temp_.empty()) {
      ::unlink(o->temp_.c_str());
      unregister_temp(o->temp_);
    }
    o->fd_ = -1;
    o->temp_.clear();
    o->closed_ = true;
    return nullptr;
  };
  if (path.empty()) {
    *error = "empty file name";
    return nullptr;
  }
  struct stat st {};
  const bool exists = path != "-" && ::stat(path.c_str(), &st) == 0;
  if (path == "-") {
    o->fd_ = STDOUT_FILENO;
    o->owns_fd_ = false;
  } else if (!exists && errno != ENOENT) {
    return fail(errno);
  } else if (exists && S_ISDIR(st.st_mode)) {
    return fail(EISDIR);
  } else if (exists && (same_file(st, STDOUT_FILENO) || same_file(st, STDERR_FILENO))) {
    // /dev/stdout, /dev/fd/2, ...: the descriptor the shell opened (its offset and O_APPEND included).
    o->fd_ = ::fcntl(same_file(st, STDOUT_FILENO) ? STDOUT_FILENO : STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (o->fd_ < 0) return fail(errno);
  } else if (struct stat lst {}; exists ? !S_ISREG(st.st_mode) : ::lstat(path.c_str(), &lst) == 0) {
    // A device, FIFO or socket, or a dangling symlink (which creates its target): written directly.
    o->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (exists ? 0 : O_TRUNC), 0666);
    if (o->fd_ < 0) return fail(errno);
  } else {
    // A regular file or a new one: a temporary next to it (next to the target of a symlink).
    o->target_ = path;
    if (exists) {
      char* real = ::realpath(path.c_str(), nullptr);
      if (!real) return fail(errno);
      o->target_ = real;
      std::free(real);
    }
    size_t slash = o->target_.rfind('/');
    std::string dir = slash == std::string::npos ? "" : o->target_.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? o->target_ : o->target_.substr(slash + 1);
    std::string tmpl = dir + "." + base + ".tmp-XXXXXX";
    o->fd_ = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (o->fd_ < 0) return fail(errno);
    o->temp_ = tmpl;
    register_temp(o->temp_);
    mode_t mode = 0;
    if (exists) {
      mode = st.st_mode & 07777;
    } else {
      mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
    if (::fchmod(o->fd_, mode) != 0) return fail(errno);
  }
  o->stream_ = ::fopencookie(o.get(), "w", cookie_io_functions_t{nullptr, &OutputFile::write_cb, nullptr,
                                                                   &OutputFile::close_cb});
  if (!o->stream_) return fail(errno);
  if (::isatty(o->fd_))
    std::setvbuf(o->stream_, nullptr, _IOLBF, BUFSIZ);
  else
    std::setvbuf(o->stream_, nullptr, _IOFBF, 1 << 16);
  return o;
}

bool OutputFile::close_stream() {
  if (closed_) return errno_ == 0;
  closed_ = true;
  if (std::fclose(stream_) != 0 && !errno_) errno_ = errno ? errno : EIO;
  stream_ = nullptr;
  return errno_ == 0;
}

bool OutputFile::commit() {
  bool ok = close_stream();
  if (temp_.empty()) return ok;
  if (ok && ::rename(temp_.c_str(), target_.c_str()) != 0) {
    errno_ = errno;
    ok = false;
  }
  if (!ok) ::unlink(temp_.c_str());
  unregister_temp(temp_);
  temp_.clear();
  return ok;
}

bool OutputFile::discard() {
  bool ok = close_stream();
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    unregister_temp(temp_);
    temp_.clear();
  }
  return ok;
}

OutputFile::~OutputFile() {
  if (!closed_ || !temp_.empty()) discard();
}

std::string OutputFile::error() const { return errno_ ? std::strerror(errno_) : ""; }

}  // namespace ptir::tool
