// `ptir opt`: run a rewrite pipeline over a file and print the optimized program.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/verifier.h"
#include "patterns/passes.h"
#include "rewriter/rules/rules.h"
#include "rewriter/debug_log.h"
#include "rewriter/instrument.h"
#include "rewriter/hoist.h"
#include "rewriter/pass.h"
#include "tools/commands.h"
#include "patterns/templates.h"
#include "tools/plugin.h"
#include "verify/prove/certify.h"
#include "verify/refine.h"
#include "verify/report.h"
#include "tools/common.h"

namespace ptir::tool {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int list_patterns(const CanonicalizeOptions& canon) {
  PatternSet set;
  populate_canonicalization_patterns(set, canon.rule_files, canon.plugins);
  FrozenPatternSet frozen = std::move(set).freeze(canon.filter);
  for (const Pattern* p : frozen.all()) {
    std::string roots, labels;
    if (p->matches_any_op()) roots = "*";
    for (OpCode op : p->roots()) {
      if (!roots.empty()) roots += ',';
      roots += mnemonic(op);
    }
    for (const std::string& l : p->labels()) {
      if (!labels.empty()) labels += ',';
      labels += l;
    }
    std::printf("%-32s benefit %-3u roots %-14s labels %-24s from %s\n", std::string(p->debug_name()).c_str(),
                p->benefit(), roots.c_str(), labels.c_str(), std::string(p->origin()).c_str());
  }
  return kExitOk;
}

int list_passes(const PassRegistry& r) {
  std::printf("passes:\n");
  for (const PassRegistry::Entry& e : r.entries()) std::printf("  %-14s %s\n", e.name.c_str(), e.summary.c_str());
  std::printf("named pipelines:\n");
  for (const PassRegistry::NamedPipeline& n : r.pipelines())
    std::printf("  %-14s %s\n  %-14s   = %s\n", n.name.c_str(), n.summary.c_str(), "", n.text.c_str());
  return kExitOk;
}

/// --print-ir-before-all / --print-ir-after-change: the program before every pass, after those that changed it.
class ChangePrinter final : public PassInstrumentation {
 public:
  ChangePrinter(bool before, bool after_change) : before_(before), after_change_(after_change) {}
  void before_pass(const Pass& pass, const Program& p) override {
    if (!before_) return;
    std::fprintf(stderr, "// -----// IR Dump Before %.*s (%d) //----- //\n", int(pass.name().size()),
                 pass.name().data(), ++before_count_);
    dump(p);
  }
  void after_pass(const Pass& pass, const Program& p, const PassResult& r, double) override {
    ++after_count_;
    if (!after_change_ || !r.changed) return;
    std::fprintf(stderr, "// -----// IR Dump After %.*s (%d) //----- //\n", int(pass.name().size()),
                 pass.name().data(), after_count_);
    dump(p);
  }

 private:
  static void dump(const Program& p) {
    (void)print_program(p, stderr);
    std::fputc('\n', stderr);
  }
  bool before_, after_change_;
  int before_count_ = 0, after_count_ = 0;
};

/// Checks that every name of --enable-patterns / --disable-patterns is a canonicalization pattern
/// (unknown_pattern_name prints the first that is not, with the closest names).
bool check_pattern_names(const CanonicalizeOptions& canon, const std::vector<std::string>& names, const char* option) {
  if (names.empty()) return true;
  PatternSet set;
  populate_canonicalization_patterns(set, canon.rule_files, canon.plugins);
  FrozenPatternSet frozen = std::move(set).freeze(PatternFilter{});
  std::vector<std::string> known;
  for (const Pattern* p : frozen.all()) known.emplace_back(p->debug_name());
  return !unknown_pattern_name("opt", option, names, known, "ptir opt --list-patterns");
}

struct OptFlags {
  std::string pipeline{kDefaultPipeline};
  bool checks = false, debug = false, print_after = false, stats = false, timing = false;
  bool print_before = false, print_after_change = false;
  bool validate = false, require_proof = false;
  bool certify = false, require_certificate = false;
  unsigned validate_timeout_ms = 10000;
  uint64_t seed = 0;
  CanonicalizeOptions canon;
  HoistOptions hoist;
};

/// Reads the options into `f`; returns an exit code on an error (a rule file or plugin that does not load,
/// an unknown pattern name).
std::optional<int> read_flags(const Args& a, OptFlags& f) {
  f.pipeline = *a.get("pipeline");
  for (const std::string& path : a.all("rules")) {
    auto loaded = rules::load_rule_file(path);
    if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
      std::fprintf(stderr, "%s\n", e->format().c_str());
      return kExitBadInput;
    }
    f.canon.rule_files.push_back(std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded))));
  }
  if (!load_plugins(a, f.canon.plugins)) return kExitBadInput;
  f.checks = expensive_checks_option(a);
  f.debug = a.has("debug-rewrites");
  f.print_after = a.has("print-ir-after-all");
  f.print_before = a.has("print-ir-before-all");
  f.print_after_change = a.has("print-ir-after-change");
  f.stats = a.has("stats");
  f.timing = a.has("timing");
  f.validate = a.has("validate");
  f.certify = a.has("certify");
  f.require_certificate = a.has("require-certificate");  // the table makes it need --certify
  f.require_proof = a.has("require-proof");              // ... and this one --validate
  f.validate_timeout_ms = static_cast<unsigned>(*a.u64("validate-timeout-ms"));
  f.seed = *a.u64("seed");
  f.canon.filter.disabled_names = a.list("disable-patterns");
  f.canon.filter.enabled_names = a.list("enable-patterns");
  f.canon.filter.disabled_labels = a.list("disable-labels");
  f.canon.filter.enabled_labels = a.list("enable-labels");
  if (!check_pattern_names(f.canon, f.canon.filter.disabled_names, "disable-patterns") ||
      !check_pattern_names(f.canon, f.canon.filter.enabled_names, "enable-patterns"))
    return kExitUsage;
  if (a.has("no-fold")) f.canon.greedy.fold = false;
  if (a.has("bottom-up")) f.canon.greedy.order = TraversalOrder::BottomUp;
  f.hoist.params = a.list("hoist-params");
  f.canon.greedy.random_order_seed = f.seed;
  f.canon.greedy.check_seed = f.seed ? f.seed : 1;
  return std::nullopt;
}

/// The scope note of a validation that undid hoistings: which functions were composed with which prologues.
std::string hoist_scope(const std::vector<HoistRecord>& records) {
  std::string s;
  for (const HoistRecord& r : records)
    s += (s.empty() ? "" : ", ") + ("@" + r.function + " composed with its prologue @" + r.prologue);
  return " (hoist-params: " + s + ", i.e. prologue then function, checked against the input's function)";
}

/// Checks that `after` refines `before` and reports the verdict on stderr; returns the exit code. When
/// hoist-params made prologues, `after` is first composed back (rewriter/hoist.h): the program checked
/// has the input's functions and signatures, each hoisted function running its prologues first.
int validate(const Program& before, const Program& after, const std::vector<HoistRecord>& hoisted,
             const OptFlags& f, TimingReport& timing) {
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Program> composed;
  std::string scope;
  if (!hoisted.empty()) {
    std::string err;
    composed = compose_prologues(after, hoisted, &err);
    if (composed && err.empty())
      if (auto diags = verify_program(*composed); !diags.empty()) err = diags[0].message;
    if (!composed || !err.empty()) {
      std::fprintf(stderr, "validate: ERROR: cannot compose the prologues back into their functions: %s\n", err.c_str());
      return kExitBadInput;
    }
    scope = hoist_scope(hoisted);
  }
  const Program& target = composed ? *composed : after;
  // Every function of the program is checked against its namesake (a whole-program verdict).
  const verify::ProgramVerdict v =
      verify::check_program_refinement(before, target, {.timeout_ms = f.validate_timeout_ms});
  timing.add("validate", seconds_since(t0), after.num_live_insts(), after.memory_bytes());
  std::fprintf(stderr, "validate: %s%s\n", verify::program_summary_line(v).c_str(), scope.c_str());
  const int kind = v.kind();
  if (kind == 1) {
    std::fputs(verify::format_program_text(v, before).c_str(), stderr);
    return kExitBadInput;
  }
  if (kind == 0) return kExitOk;
  return f.require_proof || kind == 3 ? kExitBadInput : kExitOk;
}

}  // namespace

int cmd_opt(const Args& a) {
  OptFlags f;
  if (auto code = read_flags(a, f)) return *code;
  if (a.has("list-patterns")) return list_patterns(f.canon);
  auto hoist_log = std::make_shared<HoistLog>();
  PassRegistry registry = default_pass_registry(f.canon, f.hoist, hoist_log);
  if (a.has("list-passes")) return list_passes(registry);
  const std::string path = input_path(a);
  // A rule set that may rewrite forever is refused before anything runs (the driver's cap stays as the
  // runtime guard for what the check does not model).
  if (std::string cycles = canonicalization_termination_errors(f.canon); !cycles.empty()) {
    std::fputs(cycles.c_str(), stderr);
    return kExitBadInput;
  }

  PassManager pm(PassManagerOptions{.expensive_checks = f.checks,
                                    .check_options = CheckOptions{.seed = f.canon.greedy.check_seed}});
  if (std::string err = parse_pipeline(f.pipeline, registry, pm.top()); !err.empty()) {
    std::fprintf(stderr, "ptir opt: %s\n", err.c_str());
    return kExitUsage;
  }

  IrPrinterInstrumentation ir_printer(stderr);
  if (f.print_after) pm.add_instrumentation(&ir_printer);
  ChangePrinter change_printer(f.print_before, f.print_after_change);
  if (f.print_before || f.print_after_change) pm.add_instrumentation(&change_printer);
  TimingReport timing;
  PassTimingInstrumentation pass_timing(timing);
  if (f.timing) pm.add_instrumentation(&pass_timing);
  return for_each_program(path, input_mode(a), /*verify=*/true, [&](Loaded& loaded) -> int {
  Program& p = loaded.program();
  hoist_log->records.clear();
  timing.add("parse", loaded.parse_seconds, p.num_live_insts(), p.memory_bytes());
  timing.add("verify", loaded.verify_seconds, p.num_live_insts(), p.memory_bytes());

  // Translation validation compares the whole output with a copy of the input taken here.
  std::unique_ptr<Program> before;
  if (f.validate) before = std::make_unique<Program>(p);

  // Observers of the pipeline.
  ProgramRewriter rw(p);
  std::unique_ptr<DebugLogger> logger;
  if (f.debug) {
    logger = std::make_unique<DebugLogger>(rw, stderr);
    rw.add_listener(logger.get());
  }
  prove::RewriteRecorder recorder(&p);
  if (f.certify) rw.add_listener(&recorder);

  PipelineResult r = pm.run(rw);
  for (const std::string& w : r.warnings) std::fprintf(stderr, "ptir opt: warning: %s\n", w.c_str());
  if (f.stats) std::fputs(format_statistics(pm).c_str(), stderr);
  if (f.stats && f.checks)
    std::fprintf(stderr, "expensive-checks\n  (S) %8lld replayed - rewrites replayed at their boundary\n"
                         "  (S) %8lld runs - one-side evaluations\n  (S) %8lld windowed - replayed on a window\n"
                         "  (S) %8lld unreplayable - rewrites part of which could not be replayed\n"
                         "  (S) %8lld structural - replayed rewrites decided without a run (identical twins)\n"
                         "  (S) %8lld memoized - replayed rewrites identical to one that passed earlier (no run)\n",
                 (long long)r.replayed_rewrites, (long long)r.replay_runs, (long long)r.replay_windowed,
                 (long long)r.replay_unreplayable, (long long)r.replay_structural,
                 (long long)r.replay_memoized);
  if (!r.ok) {
    std::fprintf(stderr, "ptir opt: %s\n", r.error.c_str());
    if (f.timing) std::fputs(timing.format().c_str(), stderr);
    return kExitBadInput;
  }
  // A plugin's C++ pattern can build anything. The expensive checks verify every rewrite; without them,
  // and with a plugin loaded, the output is verified before it is printed, so a program a pattern broke
  // is an error, never printed with exit 0 (the library's patterns and rules cannot build ill-typed IR).
  if (!f.checks && !f.canon.plugins.empty()) {
    const auto t1 = std::chrono::steady_clock::now();
    if (auto d = verify_program(p, 1); !d.empty()) {
      std::fprintf(stderr, "ptir opt: the pipeline's output does not verify (a plugin's pattern broke it): %s\n",
                   format_diagnostic(d[0], p, nullptr).c_str());
      return kExitBadInput;
    }
    timing.add("verify output", seconds_since(t1), p.num_live_insts(), p.memory_bytes());
  }

  // Printed straight to the output in 64 KB pieces (a write error is reported when it is closed).
  auto t0 = std::chrono::steady_clock::now();
  (void)print_program(p, stdout);
  timing.add("print", seconds_since(t0), p.num_live_insts(), p.memory_bytes());
  int code = kExitOk;
  if (before) code = validate(*before, p, hoist_log->records, f, timing);
  if (f.certify) {
    const auto rule_files = f.canon.rule_files;
    const auto plugins = f.canon.plugins;
    prove::Populate populate = [rule_files, plugins](PatternSet& s) {
      populate_canonicalization_patterns(s, rule_files, plugins);
    };
    std::vector<std::pair<std::string, std::string>> templates = cpp_pattern_templates();
    for (const auto& pl : plugins) templates.insert(templates.end(), pl->templates().begin(), pl->templates().end());
    prove::ProveOptions po;
    const prove::Certificate cert = prove::certify(recorder, populate, templates, po, allshape::Options{});
    std::fputs(cert.format().c_str(), stderr);
    if (!cert.certified && f.require_certificate) code = kExitBadInput;
  }
  if (f.timing) std::fputs(timing.format().c_str(), stderr);
  return code;
  });
}

}  // namespace ptir::tool
