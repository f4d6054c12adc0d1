// Progress lines of the long commands (tools/progress.h).
#include "tools/progress.h"

#include <algorithm>
#include <cstdio>

#include <sys/ioctl.h>
#include <unistd.h>

namespace ptir::tool {

namespace {
using Clock = std::chrono::steady_clock;

double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// Columns of the terminal on stderr (80 when unknown).
size_t columns() {
  struct winsize w {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 10) return w.ws_col;
  return 80;
}

/// How long a Lines-mode run stays silent before a "running:" line.
constexpr double kHeartbeatSeconds = 10;
}  // namespace

Progress::Mode Progress::mode_for(const Args& a) {
  if (a.has("no-progress")) return Mode::Off;
  if (::isatty(STDERR_FILENO)) return Mode::Tty;
  return a.has("progress") ? Mode::Lines : Mode::Off;
}

std::string Progress::duration(double s) {
  char buf[32];
  if (s < 0) s = 0;
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  } else if (s < 3600) {
    const long t = static_cast<long>(s);
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  } else {
    const long t = static_cast<long>(s / 60);
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 60, t % 60);
  }
  return buf;
}

Progress::Progress(Mode mode, size_t total, std::string what, std::string detail)
    : mode_(mode), total_(total), what_(std::move(what)), items_(total) {
  if (mode_ == Mode::Off) return;
  if (mode_ == Mode::Lines) {
    std::fprintf(stderr, "[0/%zu] starting: %zu %s%s\n", total_, total_, what_.c_str(), detail.c_str());
    std::fflush(stderr);
  } else {
    std::lock_guard<std::mutex> l(mu_);
    draw_locked();
  }
  ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() { stop(); }

void Progress::stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_ && !ticker_.joinable()) return;
    stopping_ = true;
    clear_locked();
  }
  cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void Progress::tick() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    cv_.wait_for(l, std::chrono::seconds(1));
    if (stopping_) break;
    if (mode_ == Mode::Tty) {
      draw_locked();
    } else if (secs(last_line_, Clock::now()) >= kHeartbeatSeconds) {
      std::string list;
      for (const auto& [name, s] : running_locked()) list += (list.empty() ? "" : ", ") + name + " (" + duration(s) + ")";
      std::fprintf(stderr, "[%zu/%zu] running: %s (elapsed %s, eta %s)\n", done_, total_,
                   list.empty() ? "-" : list.c_str(), duration(secs(t0_, Clock::now())).c_str(), eta_locked().c_str());
      std::fflush(stderr);
      last_line_ = Clock::now();
    }
  }
}

std::vector<std::pair<std::string, double>> Progress::running_locked() const {
  const auto now = Clock::now();
  std::vector<std::pair<std::string, double>> out;
  for (const Item& it : items_)
    if (it.start && !it.done) out.emplace_back(it.name, secs(*it.start, now));
  // Longest-running first.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::vector<std::pair<std::string, double>> Progress::running() const {
  std::lock_guard<std::mutex> l(mu_);
  return running_locked();
}

size_t Progress::done() const {
  std::lock_guard<std::mutex> l(mu_);
  return done_;
}

double Progress::elapsed() const { return secs(t0_, Clock::now()); }

std::string Progress::eta_locked() const {
  if (done_ == 0) return "?";
  if (done_ >= total_) return "0s";
  const double e = secs(t0_, Clock::now());
  return duration(e / static_cast<double>(done_) * static_cast<double>(total_ - done_));
}

void Progress::draw_locked() {
  if (mode_ != Mode::Tty || stopping_) return;
  const auto run = running_locked();
  std::string s = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] ";
  if (run.empty()) {
    s += last_.empty() ? "starting" : last_;
  } else {
    s += run[0].first + " (" + duration(run[0].second) + ")";
    if (run.size() > 1) s += " +" + std::to_string(run.size() - 1) + " running";
  }
  s += " (elapsed " + duration(secs(t0_, Clock::now())) + ", eta " + eta_locked() + ")";
  const size_t w = columns() - 1;
  if (s.size() > w) s = s.substr(0, w);
  std::fprintf(stderr, "\r%s\033[K", s.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::clear_locked() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void Progress::started(size_t index, const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  if (index >= items_.size()) return;
  items_[index].name = name;
  items_[index].start = Clock::now();
  if (mode_ == Mode::Tty) draw_locked();
}

void Progress::finished(size_t index, const std::string& verdict) {
  std::lock_guard<std::mutex> l(mu_);
  if (index >= items_.size() || items_[index].done) return;
  Item& it = items_[index];
  it.done = true;
  last_ = it.name + " " + verdict;
  ++done_;
  const auto now = Clock::now();
  if (mode_ == Mode::Lines) {
    std::fprintf(stderr, "[%zu/%zu] %s %s in %.2fs (elapsed %s, eta %s)\n", done_, total_, it.name.c_str(),
                 verdict.c_str(), it.start ? secs(*it.start, now) : 0.0, duration(secs(t0_, now)).c_str(),
                 eta_locked().c_str());
    std::fflush(stderr);
    last_line_ = now;
  } else if (mode_ == Mode::Tty) {
    draw_locked();
  }
}

void Progress::print_stdout(std::string_view text) {
  std::lock_guard<std::mutex> l(mu_);
  const bool redraw = drawn_;
  clear_locked();
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (redraw) draw_locked();
}

}  // namespace ptir::tool
