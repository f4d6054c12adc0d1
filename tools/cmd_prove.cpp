// `ptir prove`: prove every pattern of the library (or of a user's rule file) by running the real
// pattern on generated instances and checking each rewrite with Z3 (verify/prove/prove.h).
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <mutex>
#include <thread>

#include <signal.h>

#include "patterns/passes.h"
#include "patterns/templates.h"
#include "rewriter/rules/rules.h"
#include "tools/commands.h"
#include "tools/common.h"
#include "verify/prove/instance.h"
#include "tools/plugin.h"
#include "tools/progress.h"
#include "tools/targets.h"
#include "verify/prove/conversion.h"
#include "verify/prove/cache.h"
#include "verify/prove/prove.h"
#include "verify/smt/solver.h"
#include "verify/report.h"

namespace ptir::tool {
namespace {

constexpr int kOk = 0, kFail = 1, kUsage = 2;

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += "?";
        else o += c;
    }
  }
  return o;
}

bool failing(const prove::Report& r, bool require_proof) {
  if (r.disagreement || (r.all_shapes && r.all_shapes->verdict == allshape::Verdict::Refuted)) return true;
  return r.status == prove::Status::Refuted || r.status == prove::Status::NotExercised ||
         r.status == prove::Status::Error || r.status == prove::Status::Unknown ||
         (require_proof && (r.status == prove::Status::Tested || r.status == prove::Status::Partial ||
                            r.status == prove::Status::LicensedAFn || r.status == prove::Status::LicensedReassoc));
}

/// The coverage lines of one pattern: the classes that fired (with counts), never fired, unreachable.
std::string coverage_text(const prove::Report& r) {
  std::string fired, missed, unreachable;
  for (const auto& c : r.coverage) {
    if (!c.reachable) unreachable += "    " + c.name + ": " + c.why + "\n";
    else if (c.fired == 0) missed += "    " + c.name + (c.hint.empty() ? "" : " (" + c.hint + ")") + "\n";
    else fired += (fired.empty() ? "    " : ", ") + c.name + " (" + std::to_string(c.fired) + ")";
  }
  std::string s = "coverage: " + std::to_string(r.classes_fired()) + " of " + std::to_string(r.classes_reachable()) +
                  " reachable classes fired\n";
  if (!fired.empty()) s += "  fired:\n" + fired + "\n";
  if (!missed.empty()) s += "  never fired:\n" + missed;
  if (!unreachable.empty()) s += "  unreachable:\n" + unreachable;
  return s;
}

/// How a failing pattern is reported in JUnit: <failure> when a verdict says the pattern is wrong (REFUTED,
/// all-shape REFUTED, an all-shape/bounded disagreement), <error> when nothing decided it (ERROR, UNKNOWN,
/// NOT EXERCISED, TESTED under --require-proof).
bool junit_failure(const prove::Report& r) {
  return r.disagreement || r.status == prove::Status::Refuted ||
         (r.all_shapes && r.all_shapes->verdict == allshape::Verdict::Refuted);
}

/// A pattern the report lists although it has no verdict: the run was stopped (SIGINT/SIGTERM) while
/// it was being proved (`running`) or before it started.
struct Unfinished {
  std::string name, origin;
  bool running = false;
  double seconds = 0;  ///< how long it had been running
};

/// What the report covers: every pattern (complete), or the patterns finished before a signal.
struct Coverage {
  size_t total = 0;        ///< patterns the run was to prove
  int signal = 0;          ///< 0: complete
  std::vector<Unfinished> unfinished;
};

std::string signal_word(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal " + std::to_string(sig); }

std::string write_json(const std::vector<const prove::Report*>& rs, const std::vector<bool>& from_cache,
                       const prove::ProveOptions& o, double secs, const Coverage& cov) {
  std::string s = "{\"complete\": " + std::string(cov.signal ? "false" : "true") +
                  (cov.signal ? ", \"interrupted_by\": " + verify::json_quote(signal_word(cov.signal)) : "") +
                  ", \"total\": " + std::to_string(cov.total) + ", \"finished\": " + std::to_string(rs.size()) +
                  ", \"max_rank\": " + std::to_string(o.max_rank) + ", \"max_dim\": " + std::to_string(o.max_dim) +
                  ", \"seed\": " + std::to_string(o.seed) + ", \"seconds\": " + std::to_string(secs) + ", \"patterns\": [";
  for (size_t k = 0; k < rs.size(); ++k) {
    const auto& r = *rs[k];
    s += std::string(k ? ",\n  " : "\n  ") + "{\"name\": " + verify::json_quote(r.name) + ", \"origin\": " + verify::json_quote(r.origin) +
         ", \"verdict\": " + verify::json_quote(prove::status_word(r.status)) + ", \"instances\": " + std::to_string(r.instances) +
         ", \"fired\": " + std::to_string(r.fired) + ", \"near_misses\": " + std::to_string(r.near_misses) +
         ", \"near_misses_fired\": " + std::to_string(r.near_fired) + ", \"proved\": " + std::to_string(r.proved) +
         ", \"tested\": " + std::to_string(r.tested) + ", \"ms\": " + std::to_string(r.ms) +
         ", \"cached\": " + (from_cache[k] ? "true" : "false") +
         ", \"scope\": " + verify::json_quote(r.scope()) + ", \"detail\": " + verify::json_quote(r.detail) +
         ", \"coverage\": {\"reachable\": " + std::to_string(r.classes_reachable()) +
         ", \"fired\": " + std::to_string(r.classes_fired()) + ", \"root_ranks_fired\": " + verify::json_quote(r.fired_ranks()) +
         ", \"classes\": [";
    for (size_t c = 0; c < r.coverage.size(); ++c) {
      const auto& x = r.coverage[c];
      s += std::string(c ? ", " : "") + "{\"name\": " + verify::json_quote(x.name) + ", \"reachable\": " +
           (x.reachable ? "true" : "false") + ", \"fired\": " + std::to_string(x.fired) +
           (x.reachable ? "" : ", \"why\": " + verify::json_quote(x.why)) + "}";
    }
    s += "]}";
    if (r.all_shapes) {
      const auto& x = *r.all_shapes;
      s += ", \"all_shapes\": {\"verdict\": " + verify::json_quote(allshape::verdict_word(x.verdict)) +
           ", \"rank_bound\": " + std::to_string(x.rank_bound) + ", \"configurations\": " + std::to_string(x.configs) +
           ", \"queries\": " + std::to_string(x.queries) + ", \"canaries\": " + std::to_string(x.canaries) +
           ", \"ms\": " + std::to_string(x.ms) + ", \"scope\": " +
           verify::json_quote(x.verdict == allshape::Verdict::Proved ? x.scope() : "") +
           ", \"why\": " + verify::json_quote(x.why) + ", \"disagreement\": " + (r.disagreement ? "true" : "false") + "}";
    }
    s += "}";
  }
  s += "\n], \"unfinished\": [";
  for (size_t k = 0; k < cov.unfinished.size(); ++k) {
    const Unfinished& u = cov.unfinished[k];
    s += std::string(k ? ",\n  " : "\n  ") + "{\"name\": " + verify::json_quote(u.name) + ", \"origin\": " +
         verify::json_quote(u.origin) + ", \"state\": \"" + (u.running ? "running" : "not started") +
         "\", \"seconds\": " + std::to_string(u.seconds) + "}";
  }
  return s + (cov.unfinished.empty() ? "]}\n" : "\n]}\n");
}

std::string write_junit(const std::vector<const prove::Report*>& rs, bool require_proof, double secs, const Coverage& cov) {
  size_t failures = 0, errors = 0, skipped = 0;
  for (const prove::Report* r : rs)
    if (failing(*r, require_proof)) ++(junit_failure(*r) ? failures : errors);
  for (const Unfinished& u : cov.unfinished) ++(u.running ? errors : skipped);
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"ptir prove\" tests=\"" +
                  std::to_string(rs.size() + cov.unfinished.size()) + "\" failures=\"" + std::to_string(failures) +
                  "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
                  std::to_string(secs) + "\">\n";
  for (const prove::Report* rp : rs) {
    const prove::Report& r = *rp;
    s += "  <testcase classname=\"ptir.prove\" name=\"" + xml_escape(r.name) + "\" time=\"" + std::to_string(r.ms / 1000) + "\">\n";
    if (failing(r, require_proof)) {
      const char* element = junit_failure(r) ? "failure" : "error";
      std::string message = r.disagreement ? "DISAGREEMENT" : prove::status_word(r.status);
      if (r.status == prove::Status::Tested || r.status == prove::Status::LicensedAFn ||
          r.status == prove::Status::LicensedReassoc)
        message += " (--require-proof)";
      else if (r.status == prove::Status::Proved && r.all_shapes) message = "all shapes " + std::string(allshape::verdict_word(r.all_shapes->verdict));
      s += "    <" + std::string(element) + " message=\"" + xml_escape(message) + "\">" +
           xml_escape(r.detail + (r.all_shapes ? "\nall shapes: " + std::string(allshape::verdict_word(r.all_shapes->verdict)) +
                                                     " " + r.all_shapes->why : "")) + "</" + element + ">\n";
    }
    std::string out = std::string(prove::status_word(r.status)) + ": " + r.scope() + " from " + r.origin + "\n" +
                      coverage_text(r);
    if (r.all_shapes)
      out += "\nall shapes: " + std::string(allshape::verdict_word(r.all_shapes->verdict)) + " " +
             (r.all_shapes->verdict == allshape::Verdict::Proved ? r.all_shapes->scope() : r.all_shapes->why);
    s += "    <system-out>" + xml_escape(out) + "</system-out>\n  </testcase>\n";
  }
  const std::string by = signal_word(cov.signal);
  for (const Unfinished& u : cov.unfinished) {
    s += "  <testcase classname=\"ptir.prove\" name=\"" + xml_escape(u.name) + "\" time=\"" + std::to_string(u.seconds) + "\">\n";
    if (u.running)
      s += "    <error message=\"INTERRUPTED\">ptir prove was stopped by " + by + " after " +
           std::to_string(u.seconds) + " s of proving this pattern (from " + xml_escape(u.origin) + "): no verdict</error>\n";
    else
      s += "    <skipped message=\"not run: ptir prove was stopped by " + by + " before this pattern started\"/>\n";
    s += "  </testcase>\n";
  }
  return s + "</testsuite>\n</testsuites>\n";
}

/// SIGINT/SIGTERM while report files are open: the handler only records the signal; the main thread,
/// which polls it between the patterns' completions, commits the partial report and then hands the
/// signal to the previous handler (OutputFile's, which removes -o's temporary) so the process still
/// dies by it.
volatile std::sig_atomic_t g_signal = 0;
extern "C" void record_signal(int sig) { g_signal = sig; }

class InterruptHandlers {
 public:
  InterruptHandlers() {
    for (int k = 0; k < 2; ++k) {
      struct sigaction now {};
      now.sa_handler = record_signal;
      sigemptyset(&now.sa_mask);
      // A signal the caller ignores (nohup, a background job) stays ignored.
      if (sigaction(kSignals[k], nullptr, &old_[k]) == 0 && old_[k].sa_handler != SIG_IGN)
        installed_[k] = sigaction(kSignals[k], &now, nullptr) == 0;
    }
  }
  ~InterruptHandlers() { restore(); }
  void restore() {
    for (int k = 0; k < 2; ++k)
      if (installed_[k]) sigaction(kSignals[k], &old_[k], nullptr), installed_[k] = false;
  }
  /// Restores the previous handlers and raises `sig` again.
  [[noreturn]] void reraise(int sig) {
    restore();
    std::fflush(stdout);
    std::fflush(stderr);
    std::raise(sig);
    std::signal(sig, SIG_DFL);  // the previous handler returned: die by the signal anyway
    std::raise(sig);
    std::_Exit(128 + sig);
  }

 private:
  static constexpr int kSignals[2] = {SIGINT, SIGTERM};
  struct sigaction old_[2] {};
  bool installed_[2] = {false, false};
};

/// `ptir prove --target NAME` / `--target-file FILE`: the target's conversion patterns, each on an
/// instance per root op (and compare direction) and per dtype the target converts (verify/prove/
/// conversion.h), instead of the library. One row per pattern and one per instance; JSON and JUnit.
int prove_target(const Args& a) {
  for (const char* other : {"rules", "load-plugin", "all-shapes", "shard", "enable-patterns", "disable-patterns",
                            "enable-labels", "disable-labels", "all-shapes-emit-smt2", "coverage"})
    if (a.has(other)) {
      std::fprintf(stderr,
                   "ptir prove: --%s does not apply to conversion patterns (--target/--target-file proves the "
                   "target's conversion patterns only; see 'ptir prove --help')\n",
                   other);
      return kUsage;
    }
  const bool from_file = a.has("target-file");
  std::optional<conversion::ConversionTarget> target =
      load_conversion_target("prove", *a.get(from_file ? "target-file" : "target"), from_file);
  if (!target) return kFail;
  std::vector<const conversion::ConversionPattern*> patterns;
  if (!conversion_patterns_of("prove", *target, patterns)) return kFail;
  const std::string origin = "conversion pattern (C++), target " + target->name + " (" + target->source + ")";
  if (a.has("list")) {
    for (const auto* p : patterns) std::printf("%-34s %s\n", std::string(p->name()).c_str(), origin.c_str());
    return kOk;
  }
  if (patterns.empty()) {
    std::fprintf(stderr, "ptir prove: target %s has no conversion pattern: nothing to prove\n", target->name.c_str());
    return kFail;
  }
  std::unique_ptr<OutputFile> json_file, junit_file;
  for (auto [name, file] : {std::pair{"json", &json_file}, std::pair{"junit", &junit_file}})
    if (auto path = a.get(name)) {
      std::string err;
      *file = OutputFile::open(*path, &err);
      if (!*file) {
        std::fprintf(stderr, "ptir prove: cannot write --%s '%s': %s\n", name, escape_bytes(*path).c_str(), err.c_str());
        return kFail;
      }
    }
  const unsigned per = static_cast<unsigned>(*a.u64("instance-timeout-ms"));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<prove::ConversionPatternReport> reps = prove::prove_conversion_patterns(*target, patterns, per);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-34s %-14s %9s  %s\n", "pattern", "verdict", "instances", "from");
  int counts[3] = {0, 0, 0};  // PROVED, REFUTED, other
  int code = kOk;
  for (const prove::ConversionPatternReport& r : reps) {
    int fired = 0;
    // Instances the pattern converted (NOT FIRED: it left the op alone; ERROR: no instance to convert).
    for (const auto& in : r.instances) fired += in.verdict != "NOT FIRED" && in.verdict != "ERROR";
    std::printf("%-34s %-14s %4d/%-4zu  %s\n", r.pattern.c_str(), r.verdict.c_str(), fired, r.instances.size(), origin.c_str());
    for (const prove::ConversionInstanceResult& in : r.instances)
      std::printf("  %-40s %s%s\n", in.instance.c_str(), in.verdict.c_str(), in.note.empty() ? "" : (" (" + in.note + ")").c_str());
    ++counts[r.verdict == "PROVED" ? 0 : r.verdict == "REFUTED" ? 1 : 2];
    if (r.verdict != "PROVED") code = kFail;
  }
  std::printf("totals: target %s: %zu conversion patterns: %d PROVED, %d REFUTED, %d UNKNOWN or NOT EXERCISED; %.1f s\n",
              target->name.c_str(), reps.size(), counts[0], counts[1], counts[2], secs);
  std::printf("scope: each pattern on one instance per root op (and compare direction; for reductions and "
              "dot_general, accumulating in the converted dtype, in the narrow one, and with no accum written) in "
              "each dtype the target converts; narrow elementwise instances exhaustively (every input, so every shape), the others with "
              "Z3 at the instance's shapes (budget %u ms each); an instance the pattern does not convert is NOT FIRED "
              "and the op stays illegal with the reason\n",
              per);
  for (const prove::ConversionPatternReport& r : reps)
    for (const prove::ConversionInstanceResult& in : r.instances)
      if (!in.report.empty()) std::printf("\n== %s on %s: %s\n%s", r.pattern.c_str(), in.instance.c_str(), in.verdict.c_str(), in.report.c_str());
  mark_output_complete();
  auto write = [&](OutputFile& f, const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), f.stream());
    if (!f.commit()) {
      std::fprintf(stderr, "ptir prove: error: writing %s: %s\n", escape_bytes(f.name()).c_str(), f.error().c_str());
      code = kFail;
    }
  };
  if (json_file) {
    std::string s = "{\"complete\": true, \"target\": " + verify::json_quote(target->name) + ", \"target_source\": " +
                    verify::json_quote(target->source) + ", \"seconds\": " + std::to_string(secs) + ", \"patterns\": [";
    for (size_t k = 0; k < reps.size(); ++k) {
      const auto& r = reps[k];
      s += std::string(k ? ",\n  " : "\n  ") + "{\"name\": " + verify::json_quote(r.pattern) + ", \"origin\": " +
           verify::json_quote(origin) + ", \"verdict\": " + verify::json_quote(r.verdict) + ", \"instances\": [";
      for (size_t i = 0; i < r.instances.size(); ++i) {
        const auto& in = r.instances[i];
        s += std::string(i ? ", " : "") + "{\"instance\": " + verify::json_quote(in.instance) + ", \"verdict\": " +
             verify::json_quote(in.verdict) + ", \"note\": " + verify::json_quote(in.note) + ", \"detail\": " +
             verify::json_quote(in.report) + "}";
      }
      s += "]}";
    }
    write(*json_file, s + "\n]}\n");
  }
  if (junit_file) {
    int failures = 0;
    for (const auto& r : reps) failures += r.verdict != "PROVED";
    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"ptir prove\" tests=\"" +
                    std::to_string(reps.size()) + "\" failures=\"" + std::to_string(failures) +
                    "\" errors=\"0\" skipped=\"0\" time=\"" + std::to_string(secs) + "\">\n";
    for (const auto& r : reps) {
      std::string out = r.verdict + " (" + origin + ")\n";
      for (const auto& in : r.instances) out += in.instance + ": " + in.verdict + (in.note.empty() ? "" : " (" + in.note + ")") + "\n";
      s += "  <testcase classname=\"ptir.prove\" name=\"" + xml_escape(r.pattern) + "\">\n";
      if (r.verdict != "PROVED") {
        std::string detail;
        for (const auto& in : r.instances) detail += in.report;
        s += "    <failure message=\"" + xml_escape(r.verdict) + "\">" + xml_escape(detail) + "</failure>\n";
      }
      s += "    <system-out>" + xml_escape(out) + "</system-out>\n  </testcase>\n";
    }
    write(*junit_file, s + "</testsuite>\n");
  }
  return code;
}

}  // namespace

int cmd_prove(const Args& a) {
  if (a.has("list-natives")) {
    std::fputs(rules::describe_natives().c_str(), stdout);
    return kOk;
  }
  if (a.has("target") || a.has("target-file")) return prove_target(a);
  prove::ProveOptions o;
  const int jobs = static_cast<int>(*a.u64("jobs"));
  const bool all_shapes = a.has("all-shapes");
  allshape::Options ao;
  ao.timeout_ms = static_cast<unsigned>(*a.u64("all-shapes-query-timeout-ms"));
  o.max_rank = static_cast<int>(*a.u64("max-rank"));
  o.max_dim = static_cast<int>(*a.u64("max-dim"));
  o.instances = static_cast<int>(*a.u64("instances"));
  o.timeout_ms = static_cast<unsigned>(*a.u64("instance-timeout-ms"));
  o.campaign_runs = static_cast<int>(*a.u64("campaign-runs"));
  o.solver_threads = 1;  // one solver thread per check: budgets in units are then reproducible
  o.seed = *a.u64("seed");
  int shard_k = 1, shard_n = 1;
  if (auto v = a.get("shard")) {
    const size_t slash = v->find('/');
    uint64_t k = 0, n = 0;
    auto num = [](std::string_view t, uint64_t& out) {
      auto r = std::from_chars(t.data(), t.data() + t.size(), out);
      return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size() && out <= 1000000;
    };
    if (slash == std::string::npos || !num(std::string_view(*v).substr(0, slash), k) ||
        !num(std::string_view(*v).substr(slash + 1), n) || k < 1 || n < 1 || k > n) {
      std::fprintf(stderr, "ptir prove: --shard expects K/N with 1 <= K <= N, got %s (see 'ptir prove --help')\n",
                   escape_bytes(*v).c_str());
      return kUsage;
    }
    shard_k = static_cast<int>(k), shard_n = static_cast<int>(n);
  }

  // What to prove: the library, or only the rules of the given files.
  std::vector<std::shared_ptr<const rules::RuleFile>> files;
  std::set<std::string> seen_paths;
  for (const std::string& path : a.all("rules")) {
    // A file given twice (same path, or another spelling of one file) is proved once.
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(path, ec);
    if (!seen_paths.insert(ec ? path : canonical.string()).second) continue;
    // Read once: the rules proved and the text the verdict cache keys them by are the same bytes.
    // (A directory opens as an empty stream: load_rule_file refuses it.)
    std::string text;
    bool readable = false;
    if (!std::filesystem::is_directory(path, ec)) {
      std::ifstream in(path, std::ios::binary);
      if (in) {
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
        readable = !in.bad();
      }
    }
    auto loaded = readable ? rules::load_rule_text(text, path) : rules::load_rule_file(path);
    if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
      std::fprintf(stderr, "%s\n", e->format().c_str());
      return kFail;
    }
    files.push_back(std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded))));
  }
  std::vector<std::shared_ptr<const Plugin>> plugins;
  if (!load_plugins(a, plugins)) return kFail;
  // The termination check `ptir opt` runs on the same pattern set (the library, these plugins, these
  // rule files): a set opt would refuse fails here too, with the same message (exit 1 whatever the
  // verdicts). Each pattern is still proved: soundness of one step and termination are separate
  // questions, and a wrong rule that also cycles is shown REFUTED with its counterexample.
  std::string cycles;
  {
    CanonicalizeOptions canon;
    canon.rule_files = files;
    canon.plugins = plugins;
    cycles = canonicalization_termination_errors(canon);
  }
  prove::Populate populate;
  std::vector<std::pair<std::string, std::string>> templates = cpp_pattern_templates();
  if (files.empty() && plugins.empty())
    populate = [](PatternSet& s) { populate_canonicalization_patterns(s); };
  else
    populate = [files, plugins](PatternSet& s) {
      populate_plugin_patterns(s, plugins);
      for (const auto& f : files) rules::add_rule_patterns(s, f);
    };
  for (const auto& p : plugins) templates.insert(templates.end(), p->templates().begin(), p->templates().end());
  std::vector<prove::Subject> subjects = prove::subjects_of(populate, templates);
  // The selection options of `ptir opt` (PatternFilter): --enable-patterns/--enable-labels keep, the
  // --disable-* ones drop; an unknown pattern name is a usage error.
  PatternFilter filter{.disabled_names = a.list("disable-patterns"), .disabled_labels = a.list("disable-labels"),
                       .enabled_names = a.list("enable-patterns"), .enabled_labels = a.list("enable-labels")};
  if (!filter.disabled_names.empty() || !filter.disabled_labels.empty() || !filter.enabled_names.empty() ||
      !filter.enabled_labels.empty()) {
    std::vector<std::string> known;
    for (const auto& s : subjects) known.push_back(s.name);
    if (unknown_pattern_name("prove", "enable-patterns", filter.enabled_names, known, "ptir prove --list") ||
        unknown_pattern_name("prove", "disable-patterns", filter.disabled_names, known, "ptir prove --list"))
      return kUsage;
    PatternSet set;
    populate(set);
    std::vector<prove::Subject> kept;
    for (auto& s : subjects)
      for (const auto& p : set.patterns())
        if (p->debug_name() == s.name) {
          if (filter.keeps(*p)) kept.push_back(std::move(s));
          break;
        }
    subjects = std::move(kept);
  }
  std::sort(subjects.begin(), subjects.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  if (shard_n > 1) {
    std::vector<prove::Subject> mine;
    for (size_t i = 0; i < subjects.size(); ++i)
      if (static_cast<int>(i % shard_n) == shard_k - 1) mine.push_back(std::move(subjects[i]));
    subjects = std::move(mine);
  }
  if (a.has("list")) {
    for (const auto& s : subjects) std::printf("%-34s %s\n", s.name.c_str(), s.origin.c_str());
    return kOk;
  }
  if (subjects.empty()) {
    std::fprintf(stderr, "ptir prove: no pattern to prove\n");
    return kFail;
  }
  // The report files: temporaries now (an unwritable path fails before the proofs, not after), renamed over
  // the files once the report is complete, whatever its verdicts (tools/common.h, OutputFile).
  std::unique_ptr<OutputFile> json_file, junit_file, smt2_file;
  for (auto [name, file] : {std::pair{"json", &json_file}, std::pair{"junit", &junit_file},
                            std::pair{"all-shapes-emit-smt2", &smt2_file}})
    if (auto path = a.get(name)) {
      std::string err;
      *file = OutputFile::open(*path, &err);
      if (!*file) {
        std::fprintf(stderr, "ptir prove: cannot write --%s '%s': %s\n", name, escape_bytes(*path).c_str(), err.c_str());
        return kFail;
      }
    }

  const bool require = a.has("require-proof");
  auto all_col = [](const prove::Report& r) -> std::string {
    if (!r.all_shapes) return "";
    const auto& x = *r.all_shapes;
    switch (x.verdict) {
      case allshape::Verdict::Proved: return "ALL SHAPES (B=" + std::to_string(x.rank_bound) + ")";
      case allshape::Verdict::BoundedOnly: return "BOUNDED ONLY";
      case allshape::Verdict::Refuted: return "REFUTED";
      case allshape::Verdict::Unknown: return r.disagreement ? "DISAGREEMENT" : "UNKNOWN";
    }
    return "?";
  };
  std::vector<char> cached(subjects.size(), 0);  // the row is the verdict cache's
  auto row = [&](const prove::Report& r, bool from_cache) {
    char f[32], n[32], c[32], t[32], line[1024];
    std::snprintf(f, sizeof f, "%d/%d", r.fired, r.instances);
    std::snprintf(n, sizeof n, "%d(%d)", r.near_misses, r.near_fired);
    std::snprintf(c, sizeof c, "%d/%d", r.classes_fired(), r.classes_reachable());
    // The time is the only column a cached row cannot reproduce: "(cached)" instead.
    if (from_cache) std::snprintf(t, sizeof t, "(cached)");
    else std::snprintf(t, sizeof t, "%7.2fs", (r.ms + (r.all_shapes ? r.all_shapes->ms : 0)) / 1000);
    if (all_shapes)
      std::snprintf(line, sizeof line, "%-34s %-14s %-18s %9s %11s %9s %8s  ", r.name.c_str(), prove::status_word(r.status),
                    all_col(r).c_str(), f, n, c, t);
    else
      std::snprintf(line, sizeof line, "%-34s %-14s %9s %11s %9s %8s  ", r.name.c_str(), prove::status_word(r.status), f, n,
                    c, t);
    return line + r.origin + "\n";
  };
  if (all_shapes)
    std::printf("%-34s %-14s %-18s %9s %11s %9s %8s  %s\n", "pattern", "verdict", "all shapes", "fired", "near(fired)",
                "classes", "time", "from");
  else
    std::printf("%-34s %-14s %9s %11s %9s %8s  %s\n", "pattern", "verdict", "fired", "near(fired)", "classes", "time", "from");
  std::fflush(stdout);

  // The patterns run on --jobs threads; each row is printed as soon as it and every row above it are
  // done (the table stays in name order). The main thread waits, polling for SIGINT/SIGTERM when report
  // files are open: the report of the patterns finished so far is then committed (tools/common.h
  // OutputFile) before the process dies by the signal.
  const auto t0 = std::chrono::steady_clock::now();
  enum class State : uint8_t { Waiting, Running, Done };
  std::vector<prove::Report> reports(subjects.size());
  std::vector<State> state(subjects.size(), State::Waiting);
  std::vector<std::chrono::steady_clock::time_point> started(subjects.size());
  std::mutex mu;
  std::mutex smt2_mu;  // guards smt2_file (--all-shapes-emit-smt2): proofs run on --jobs threads
  std::condition_variable cv;
  size_t finished = 0, printed = 0;
  std::unique_ptr<InterruptHandlers> handlers;
  if (json_file || junit_file) handlers = std::make_unique<InterruptHandlers>();
  Progress progress(Progress::mode_for(a), subjects.size(), "patterns",
                    ", " + std::to_string(jobs) + (jobs == 1 ? " job" : " jobs") + (all_shapes ? ", all shapes" : ""));
  // The verdict cache (verify/prove/cache.h): hits are filled in before the pool starts; the misses run
  // slowest first (their time the last time they were proved with these options, else an estimate), so
  // a long proof does not start last and leave one job idle.
  std::vector<size_t> order;
  std::vector<std::string> keys(subjects.size());
  std::unique_ptr<prove::VerdictCache> cache;
  {
    std::string dir = a.has("no-cache") || smt2_file ? "" : a.get("cache-dir").value_or(prove::default_cache_dir());
    if (!dir.empty()) {
      std::string identity = prove::prover_identity();
      const allshape::Options mine = [&] {
        allshape::Options x = ao;
        x.seed = o.seed;
        return x;
      }();
      cache = std::make_unique<prove::VerdictCache>(dir, std::move(identity),
                                                    prove::options_key(o, all_shapes ? &mine : nullptr));
    }
  }
  std::vector<double> cost(subjects.size(), 0);
  for (size_t i = 0; i < subjects.size(); ++i) {
    const prove::Subject& sj = subjects[i];
    std::vector<std::string> texts;
    for (const auto& [name, text] : templates)
      if (name == sj.name) texts.push_back(text);
    // A rule is keyed by the bytes its file was parsed from, wherever the file came from: `--rules`, a
    // plugin's rule file (read from disk when the plugin loads, so a plugin unchanged on disk may bring
    // other rules), the library.
    keys[i] = prove::subject_key(sj, sj.rule_file ? prove::hash_hex(sj.rule_file->text) : "", texts);
    if (cache) {
      if (std::optional<prove::Report> hit = cache->load(keys[i]);
          hit && hit->name == sj.name && hit->origin == sj.origin && hit->all_shapes.has_value() == all_shapes) {
        reports[i] = std::move(*hit);
        state[i] = State::Done;
        cached[i] = 1;
        ++finished;
        continue;
      }
      if (auto c = cache->cost(keys[i])) cost[i] = *c;
    }
    if (cost[i] == 0) {
      // No earlier time: without --all-shapes, name order. With it, an estimate: every reduction, cast
      // and dot_general in the templates adds the most (they multiply the configurations of an
      // all-shape proof, and the bounded proof of a C++ pattern over chains of them runs Z3 to its
      // budget: merge_reduce_chain, 20 s, used to start last in a cold run and leave the other job
      // idle); then all-shape proofs of rules; then the rest.
      cost[i] = all_shapes && sj.rule ? 1000 : 1;
      std::function<void(const rules::Node&)> walk = [&](const rules::Node& n) {
        if (n.kind == rules::Node::Kind::Op &&
            (n.op == OpCode::ReduceSum || n.op == OpCode::ReduceMax || n.op == OpCode::ReduceMin ||
             n.op == OpCode::Cast || n.op == OpCode::DotGeneral))
          cost[i] += 20000;
        for (const auto& c : n.operands) walk(*c);
      };
      if (all_shapes)
        for (const auto& t : sj.templates) walk(*t);
    }
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return cost[x] > cost[y]; });
  for (size_t i = 0; i < subjects.size(); ++i)
    if (cached[i]) {
      progress.started(i, subjects[i].name);
      std::string verdict = prove::status_word(reports[i].status);
      if (all_shapes) verdict += " / all shapes " + all_col(reports[i]);
      progress.finished(i, verdict + " (cached)");
    }
  {
    std::string rows;
    for (; printed < subjects.size() && state[printed] == State::Done; ++printed) rows += row(reports[printed], true);
    if (!rows.empty()) progress.print_stdout(rows);
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k, i; !g_signal && (k = next++) < order.size();) {
      i = order[k];
      // A wall-clock net or a memory cap that decides part of this pattern's proof (on this thread, or a
      // solver thread it waited for) keeps its result out of the cache.
      const uint64_t events = smt::nondeterministic_events_here();
      {
        std::lock_guard<std::mutex> l(mu);
        state[i] = State::Running;
        started[i] = std::chrono::steady_clock::now();
      }
      progress.started(i, subjects[i].name);
      prove::Report r;
      bool threw = false;
      // An exception out of a proof (a plugin's pattern factory that throws on some call, an internal
      // error) is this pattern's ERROR, never a crash of the worker thread; the result is not cached.
      try {
        r = prove::prove_pattern(subjects[i], populate, o);
      } catch (const std::exception& e) {
        threw = true;
        r = prove::Report{};
        r.name = subjects[i].name;
        r.origin = subjects[i].origin;
        r.status = prove::Status::Error;
        r.detail = std::string("the proof stopped on an exception: ") + e.what() + "\n";
      }
      if (all_shapes && !threw) {
        allshape::Options mine = ao;
        mine.seed = o.seed;
        if (smt2_file)  // --all-shapes-emit-smt2: the exact queries, one proof at a time per line block
          mine.on_query_smt2 = [&](const std::string& rule, int rank, const std::string& smt2) {
            std::lock_guard<std::mutex> l(smt2_mu);
            std::fprintf(smt2_file->stream(), "; %s rank %d\n%s\n", rule.c_str(), rank, smt2.c_str());
          };
        r.all_shapes = prove::prove_pattern_all_shapes(subjects[i], populate, o, mine);
        if (r.all_shapes->disagreement) r.disagreement = true;  // a canary refuted the symbolic proof
        // Safety net: an all-shape PROVED must be confirmed by the bounded proof of the real pattern.
        if (r.all_shapes->verdict == allshape::Verdict::Proved && r.status != prove::Status::Proved) {
          if (r.status == prove::Status::Refuted) r.disagreement = true;
          r.all_shapes->why = std::string(r.status == prove::Status::Refuted ? "DISAGREEMENT (a bug in ptir): " : "") +
                              "the symbolic proof succeeded but the bounded proof says " + prove::status_word(r.status);
          r.all_shapes->verdict = allshape::Verdict::Unknown;
        }
      }
      std::string verdict = prove::status_word(r.status);
      if (all_shapes) verdict += " / all shapes " + all_col(r);
      if (cache) {
        cache->store_cost(keys[i], r.ms + (r.all_shapes ? r.all_shapes->ms : 0));
        if (smt::nondeterministic_events_here() == events && !g_signal && !threw) cache->store(keys[i], r);
      }
      std::lock_guard<std::mutex> l(mu);
      reports[i] = std::move(r);
      state[i] = State::Done;
      ++finished;
      progress.finished(i, verdict);
      std::string rows;
      for (; printed < subjects.size() && state[printed] == State::Done; ++printed) rows += row(reports[printed], cached[printed]);
      if (!rows.empty()) progress.print_stdout(rows);
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < jobs; ++j) pool.emplace_back(work);
  {
    std::unique_lock<std::mutex> l(mu);
    while (finished < subjects.size() && !(handlers && g_signal))
      cv.wait_for(l, std::chrono::milliseconds(handlers ? 100 : 1000));
    if (finished < subjects.size()) {
      // Interrupted: the report of what is finished, the patterns being proved as errors, the rest as
      // skipped; committed, then the signal goes on (the proofs still running are abandoned).
      const int sig = g_signal;
      const auto now = std::chrono::steady_clock::now();
      const double secs = std::chrono::duration<double>(now - t0).count();
      std::vector<const prove::Report*> done;
      std::vector<bool> done_cached;
      Coverage cov{subjects.size(), sig, {}};
      size_t running = 0;
      for (size_t i = 0; i < subjects.size(); ++i) {
        if (state[i] == State::Done) {
          done.push_back(&reports[i]);
          done_cached.push_back(cached[i]);
          continue;
        }
        const bool run = state[i] == State::Running;
        running += run;
        cov.unfinished.push_back(Unfinished{subjects[i].name, subjects[i].origin, run,
                                            run ? std::chrono::duration<double>(now - started[i]).count() : 0.0});
      }
      progress.stop();
      std::string files;
      for (auto [f, text] : {std::pair{json_file.get(), json_file ? write_json(done, done_cached, o, secs, cov) : ""},
                             std::pair{junit_file.get(), junit_file ? write_junit(done, require, secs, cov) : ""}}) {
        if (!f) continue;
        std::fwrite(text.data(), 1, text.size(), f->stream());
        if (f->commit()) {
          files += (files.empty() ? "" : " and ") + escape_bytes(f->name());
        } else {
          std::fprintf(stderr, "ptir prove: error: writing %s: %s\n", escape_bytes(f->name()).c_str(), f->error().c_str());
        }
      }
      std::fprintf(stderr,
                   "ptir prove: stopped by %s after %.1f s: %zu of %zu patterns finished, %zu being proved (listed as "
                   "errors), %zu not started (skipped)%s%s\n",
                   signal_word(sig).c_str(), secs, done.size(), subjects.size(), running,
                   subjects.size() - done.size() - running, files.empty() ? "" : "; partial report in ", files.c_str());
      handlers->reraise(sig);
    }
  }
  for (auto& t : pool) t.join();
  if (handlers) handlers->restore();
  progress.stop();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int counts[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  int instances = 0, fired = 0, near = 0, near_fired = 0;
  int classes = 0, classes_fired = 0, complete = 0;
  for (const auto& r : reports) {
    ++counts[static_cast<int>(r.status)];
    instances += r.instances, fired += r.fired, near += r.near_misses, near_fired += r.near_fired;
    classes += r.classes_reachable(), classes_fired += r.classes_fired();
    complete += r.classes_fired() == r.classes_reachable() && r.fired > 0;
  }
  // LICENSED rows (never PROVED) are counted only when there are some, so the usual line is unchanged.
  const std::string licensed = counts[7] + counts[8] == 0 ? ""
                               : ", " + std::to_string(counts[7]) + " LICENSED (afn), " + std::to_string(counts[8]) +
                                     " LICENSED (reassoc)";
  std::printf("totals: %zu patterns: %d PROVED, %d TESTED, %d REFUTED, %d NOT EXERCISED, %d ERROR, %d UNKNOWN, %d PARTIAL%s; "
              "%d instances (%d fired, %d near misses of which %d fired); %.1f s\n",
              reports.size(), counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], licensed.c_str(),
              instances, fired, near, near_fired, secs);
  std::printf("coverage: %d of %d reachable classes fired; %d of %zu patterns fired every reachable class "
              "(--coverage lists them per pattern)\n",
              classes_fired, classes, complete, reports.size());
  std::printf("scope: root ranks at most %d and dims at most %d (operands may be larger where a shape rule needs; "
              "the room beside a slice, dynamic_slice or gather window and an operand axis the result does not show -- "
              "reduced, indexed, scattered, contracted -- at most %d); the "
              "ranks, dtypes and classes that fired are per pattern; seed %llu, Z3 budget %u ms per instance, %d "
              "directed tries per class left after %d instances, %d interpreter runs before TESTED%s\n",
              o.max_rank, o.max_dim, prove::wide_extent(o.max_dim), static_cast<unsigned long long>(o.seed), o.timeout_ms, o.class_tries, o.instances,
              o.campaign_runs, shard_n > 1 ? (", shard " + std::to_string(shard_k) + "/" + std::to_string(shard_n)).c_str() : "");
  if (all_shapes) {
    int ac[4] = {0, 0, 0, 0}, disagreements = 0;
    std::vector<double> times;
    for (const auto& r : reports) {
      if (r.disagreement) ++disagreements;
      else ++ac[static_cast<int>(r.all_shapes->verdict)];
      if (r.all_shapes->verdict == allshape::Verdict::Proved) times.push_back(r.all_shapes->ms);
    }
    std::sort(times.begin(), times.end());
    std::printf("all shapes: %d PROVED FOR ALL SHAPES, %d BOUNDED ONLY, %d REFUTED, %d UNKNOWN, %d DISAGREEMENT of %zu "
                "patterns; proof time median %.0f ms, max %.0f ms\n",
                ac[0], ac[1], ac[2], ac[3], disagreements, reports.size(), times.empty() ? 0.0 : times[times.size() / 2],
                times.empty() ? 0.0 : times.back());
    std::printf("all-shape scope: every rank (ranks 0..B checked, B from the rank-bound argument), every size "
                "including 0, every dtype and permutation configuration the constraints admit; Z3 budget %u ms per "
                "query; each PROVED is also bounded-PROVED and passed a canary at rank B+1\n",
                ao.timeout_ms);
  }
  for (const auto& r : reports)
    if (r.status != prove::Status::Proved)
      std::printf("\n== %s: %s (%s)\n%s", r.name.c_str(), prove::status_word(r.status), r.scope().c_str(), r.detail.c_str());
  // What a PROVED of a rule that assumes reassoc or contract does not say (docs/verification.md
  // "Reassoc and contract in context").
  for (size_t i = 0; i < reports.size(); ++i) {
    const prove::Report& r = reports[i];
    const auto& rule = subjects[i].rule;
    if (r.status != prove::Status::Proved || !rule || !(rule->assumes & (rules::kReassoc | rules::kContract))) continue;
    const bool re = rule->assumes & rules::kReassoc;
    std::printf("\n== %s: PROVED on each instance alone: it assumes %s, and under %s a rewrite can %s the code "
                "around it, which refinement of an instance does not carry to a program; not proved in context, and "
                "'ptir opt --certify' never certifies its rewrites\n",
                r.name.c_str(), re ? "reassoc" : "contract", re ? "reassoc" : "contract",
                re ? "merge add/mul trees with" : "create a * b + c fusions with");
  }
  if (a.has("coverage"))
    for (const auto& r : reports)
      std::printf("\n-- %s: %s (%s)\n%s", r.name.c_str(), prove::status_word(r.status), r.scope().c_str(),
                  coverage_text(r).c_str());
  if (all_shapes)
    for (const auto& r : reports) {
      const auto& x = *r.all_shapes;
      if (x.verdict == allshape::Verdict::Proved) {
        if (!x.notes.empty()) std::printf("\n-- %s: PROVED FOR ALL SHAPES: %s\n", r.name.c_str(), x.scope().c_str());
        continue;
      }
      std::printf("\n-- %s: all shapes %s: %s\n", r.name.c_str(), all_col(r).c_str(), x.why.c_str());
    }

  int code = kOk;
  for (const auto& r : reports)
    if (failing(r, require)) code = kFail;
  if (!cycles.empty()) {
    std::fflush(stdout);  // after the table, also when both go to one pipe
    std::fputs(cycles.c_str(), stderr);
    std::fprintf(stderr, "ptir prove: the pattern set may not terminate: 'ptir opt' refuses it (exit 1)\n");
    code = kFail;
  }
  // The table above is the result, failing patterns included: -o FILE is replaced for exit 1 too.
  mark_output_complete();
  auto write = [&](OutputFile& f, const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), f.stream());
    if (!f.commit()) {
      std::fprintf(stderr, "ptir prove: error: writing %s: %s\n", escape_bytes(f.name()).c_str(), f.error().c_str());
      code = kFail;
    }
  };
  std::vector<const prove::Report*> all;
  for (const auto& r : reports) all.push_back(&r);
  const std::vector<bool> all_cached(cached.begin(), cached.end());
  const Coverage whole{reports.size(), 0, {}};
  if (json_file) write(*json_file, write_json(all, all_cached, o, secs, whole));
  if (junit_file) write(*junit_file, write_junit(all, require, secs, whole));
  if (smt2_file) write(*smt2_file, "");
  return code;
}

}  // namespace ptir::tool
