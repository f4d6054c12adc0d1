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

constexpr const char* kHelp =
    "usage: ptir opt [FILE] [options]\n"
    "\n"
    "Runs a rewrite pipeline over FILE (omitted or '-' = stdin) and prints the optimized program in the text format\n"
    "on stdout. Diagnostics, logs and reports go to stderr.\n"
    "\n"
    "options:\n"
    "  --pipeline=STR          passes to run, default 'fixpoint(4){canonicalize,cse,dce}'. Passes:\n"
    "                            canonicalize  greedy patterns + fold hooks + removal of dead pure ops\n"
    "                            cse           merge identical pure instructions (rng never merged)\n"
    "                            dce           erase dead pure instructions (rng never erased)\n"
    "                            hoist-params  move pure computations of the parameters --hoist-params\n"
    "                                          selects into a prologue function @F_prologue whose results\n"
    "                                          become new trailing parameters of @F (rng never moves)\n"
    "                          Named pipelines (expand in place):\n"
    "                            default  fixpoint(4){canonicalize,cse,dce}\n"
    "                            gptrs    fixpoint(2){canonicalize},hoist-params,fixpoint(4){canonicalize,cse,dce}\n"
    "                                     (gpt.rs's optimizer: pre loop, param-only hoisting, post loop)\n"
    "                          'fixpoint(N){...}' repeats its passes until one round changes nothing, at\n"
    "                          most N times; ',' sequences; groups nest.\n"
    "  --hoist-params=A,B      the parameters hoist-params treats as weights (PTIR has no parameter roles):\n"
    "                          names with or without '%%', or prefixes ending in '*' ('w*'; '*' = all);\n"
    "                          they apply to every function. Without it hoist-params hoists nothing\n"
    "  --list-passes           print the passes and named pipelines, exit\n"
    "  --expensive-checks      check every rewrite of the pipeline: success => IR changed, failure => IR\n"
    "                          unchanged, each mutation verifies, and the values the rewrite replaced are\n"
    "                          compared with their replacements on the reference interpreter, over the\n"
    "                          rewrite's boundary values, with random and edge inputs (+-0, +-inf, NaN,\n"
    "                          subnormals); the first violation is printed with the pattern's name, the\n"
    "                          root op and the input, and ptir exits with 1 (--stats: replay counts)\n"
    "  --no-expensive-checks   run the pipeline without them\n"
    "%s"
    "  --debug-rewrites        print the rewrite tree (ops processed, patterns tried, why they failed,\n"
    "                          inserts/modifications/replacements/erasures)\n"
    "  --print-ir-after-all    print the program after every pass\n"
    "  --print-ir-before-all   print the program before every pass\n"
    "  --print-ir-after-change print the program after the passes that changed it (only those)\n"
    "  --stats                 print per-pass statistics\n"
    "  --timing                print wall time, us/op and bytes/op of parse, verify, each pass and print\n"
    "  --seed N                pop the canonicalize worklist in a random order seeded by N (N > 0; the\n"
    "                          result must not depend on it) and seed the expensive checks' inputs\n"
    "  --disable-patterns=A,B  drop the patterns with these debug names\n"
    "  --enable-patterns=A,B   keep only these patterns (plus those selected by --enable-labels)\n"
    "  --disable-labels=A,B    drop the patterns carrying any of these labels\n"
    "  --enable-labels=A,B     keep only patterns carrying one of these labels (plus --enable-patterns)\n"
    "  --list-patterns         print the canonicalization patterns (name, benefit, roots, labels, and where\n"
    "                          each comes from: C++, FILE:LINE of a rule, 'C++ plugin LIB' or\n"
    "                          'LIB(FILE):LINE' for a plugin's pattern), exit\n"
    "  --no-fold               canonicalize without fold hooks (identity folds and constant folding), so\n"
    "                          only patterns rewrite: the golden tests of the library isolate each pattern\n"
    "  --rules FILE            also load the rules of FILE (docs/rules.md) into canonicalize, no rebuild\n"
    "                          needed; repeatable; a malformed file is reported as FILE:LINE:COL: error\n"
    "  --load-plugin LIB       load the pattern plugin LIB (a shared library, docs/embedding.md): its C++\n"
    "                          patterns and rule files join canonicalize; repeatable; a plugin built\n"
    "                          against another ptir version is refused (exit 1)\n"
    "  --validate              after the pipeline, check with Z3 that the output refines the input, every\n"
    "                          function against its namesake (the program verdict is the weakest); a\n"
    "                          function that got a prologue is checked as 'prologue then function' (the\n"
    "                          prologue inlined, the original signature) against the input's function\n"
    "                          (bit-exact IEEE; counterexamples replayed in the interpreter) and print\n"
    "                          'validate: PROVED|REFUTED|UNKNOWN ...' on stderr (the full report when REFUTED)\n"
    "  --validate-timeout-ms=N budget of the validation, default 10000; running out gives UNKNOWN\n"
    "  --require-proof         with --validate, an UNKNOWN verdict fails the command too\n"
    "  --certify               record every rewrite the pipeline applied (pattern and count) and print a\n"
    "                          certificate on stderr: CERTIFIED when each came from a pattern PROVED FOR ALL\n"
    "                          SHAPES and bounded-PROVED (one proof per distinct pattern, whatever the tensor\n"
    "                          sizes: it scales where --validate gives UNKNOWN); otherwise the uncertified\n"
    "                          patterns with their counts and why. What is trusted, not proved (fold, CSE, DCE,\n"
    "                          and any change outside a named rewrite, which makes the run uncertified) is listed\n"
    "  --require-certificate   with --certify, NOT CERTIFIED fails the command (exit 1)\n"
    "  -o FILE                 write the program to FILE ('-' = stdout): through a temporary renamed over\n"
    "                          FILE on exit 0 only, so FILE may be the input and a failure keeps it as it was\n"
    "%s"
    "\n"
    "Exit codes: 0 success (a non-converging canonicalize is a warning; with --validate, PROVED, or UNKNOWN\n"
    "without --require-proof), 1 bad input, failed check, REFUTED validation, (with --require-certificate) NOT\n"
    "CERTIFIED or an output that cannot be written, 2 usage error.\n";

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

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
    std::string text = print_program(p);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fputc('\n', stderr);
  }
  bool before_, after_change_;
  int before_count_ = 0, after_count_ = 0;
};

/// Edit distance of two names (for "did you mean").
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// Checks that every name of --enable-patterns / --disable-patterns is a pattern; prints the unknown one with
/// the closest names and returns false otherwise.
bool check_pattern_names(const CanonicalizeOptions& canon, const std::vector<std::string>& names, const char* option) {
  if (names.empty()) return true;
  PatternSet set;
  populate_canonicalization_patterns(set, canon.rule_files, canon.plugins);
  FrozenPatternSet frozen = std::move(set).freeze(PatternFilter{});
  std::vector<std::string> known;
  for (const Pattern* p : frozen.all()) known.emplace_back(p->debug_name());
  for (const std::string& n : names) {
    if (std::find(known.begin(), known.end(), n) != known.end()) continue;
    std::vector<std::pair<size_t, std::string>> close;
    for (const std::string& k : known) {
      size_t d = edit_distance(n, k);
      if (d <= std::max<size_t>(3, n.size() / 2) || (n.size() >= 3 && k.find(n) != std::string::npos))
        close.emplace_back(d, k);
    }
    std::sort(close.begin(), close.end());
    std::string hint;
    for (size_t i = 0; i < close.size() && i < 5; ++i) hint += (i ? ", " : "") + close[i].second;
    std::fprintf(stderr, "ptir opt: --%s: no pattern is named '%s'%s%s (see 'ptir opt --list-patterns')\n", option,
                 escape_bytes(n).c_str(), hint.empty() ? "" : "; close names: ", hint.c_str());
    return false;
  }
  return true;
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

/// Reads the options into `f`; returns an exit code on a usage error.
std::optional<int> read_flags(const Args& a, OptFlags& f) {
  if (auto v = a.get("pipeline")) f.pipeline = *v;
  for (const std::string& path : a.all("rules")) {
    auto loaded = rules::load_rule_file(path);
    if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
      std::fprintf(stderr, "%s\n", e->format().c_str());
      return kExitBadInput;
    }
    f.canon.rule_files.push_back(std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded))));
  }
  if (!load_plugins(a, f.canon.plugins)) return kExitBadInput;
  auto checks = expensive_checks_option(a, "opt");
  if (!checks) return kExitUsage;
  f.checks = *checks;
  f.debug = a.has("debug-rewrites");
  f.print_after = a.has("print-ir-after-all");
  f.print_before = a.has("print-ir-before-all");
  f.print_after_change = a.has("print-ir-after-change");
  f.stats = a.has("stats");
  f.timing = a.has("timing");
  f.validate = a.has("validate");
  f.certify = a.has("certify");
  f.require_certificate = a.has("require-certificate");
  if (f.require_certificate && !f.certify) {
    std::fprintf(stderr, "ptir opt: --require-certificate needs --certify\n");
    return kExitUsage;
  }
  f.require_proof = a.has("require-proof");
  if (auto v = a.get("validate-timeout-ms")) {
    auto n = parse_ranged_option("opt", "validate-timeout-ms", *v, 1, 86400000);
    if (!n) return kExitUsage;
    f.validate_timeout_ms = static_cast<unsigned>(*n);
  }
  if (f.require_proof && !f.validate) {
    std::fprintf(stderr, "ptir opt: --require-proof needs --validate\n");
    return kExitUsage;
  }
  if (auto v = a.get("seed")) {
    auto n = parse_u64_option("opt", "seed", *v);
    if (!n) return kExitUsage;
    f.seed = *n;
  }
  if (auto v = a.get("disable-patterns")) f.canon.filter.disabled_names = split_list(*v);
  if (auto v = a.get("enable-patterns")) f.canon.filter.enabled_names = split_list(*v);
  if (auto v = a.get("disable-labels")) f.canon.filter.disabled_labels = split_list(*v);
  if (auto v = a.get("enable-labels")) f.canon.filter.enabled_labels = split_list(*v);
  if (!check_pattern_names(f.canon, f.canon.filter.disabled_names, "disable-patterns") ||
      !check_pattern_names(f.canon, f.canon.filter.enabled_names, "enable-patterns"))
    return kExitUsage;
  if (a.has("no-fold")) f.canon.greedy.fold = false;
  if (auto v = a.get("hoist-params")) {
    f.hoist.params = split_list(*v);
    if (f.hoist.params.empty()) {
      std::fprintf(stderr, "ptir opt: --hoist-params needs at least one parameter name\n");
      return kExitUsage;
    }
  }
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

int cmd_opt(int argc, char** argv) {
  Args a = split_args(argc, argv, {"pipeline", "seed", "disable-patterns", "enable-patterns", "disable-labels",
                                   "enable-labels", "validate-timeout-ms", "rules", "hoist-params", "load-plugin"});
  if (a.has("help")) {
    std::printf(kHelp, expensive_checks_default_help(26).c_str(), kInputHelp);
    return kExitOk;
  }
  if (!check_known(a, "opt", {"pipeline", "expensive-checks", "debug-rewrites", "print-ir-after-all", "stats",
                              "timing", "seed", "disable-patterns", "enable-patterns", "disable-labels",
                              "enable-labels", "list-patterns", "validate", "validate-timeout-ms", "rules",
                              "require-proof", "no-fold", "hoist-params", "list-passes", "print-ir-before-all",
                              "print-ir-after-change", "split-input-file", "verify-diagnostics", "certify",
                              "require-certificate", "load-plugin", "no-expensive-checks"}))
    return kExitUsage;
  OptFlags f;
  if (auto code = read_flags(a, f)) return *code;
  if (a.has("list-patterns")) return list_patterns(f.canon);
  auto hoist_log = std::make_shared<HoistLog>();
  PassRegistry registry = default_pass_registry(f.canon, f.hoist, hoist_log);
  if (a.has("list-passes")) return list_passes(registry);
  auto path = input_path(a, "usage: ptir opt [FILE] [--pipeline=STR] [options] (see 'ptir opt --help')");
  if (!path) return kExitUsage;
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
  return for_each_program(*path, input_mode(a), /*verify=*/true, [&](Loaded& loaded) -> int {
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
                         "  (S) %8lld unreplayable - rewrites part of which could not be replayed\n",
                 (long long)r.replayed_rewrites, (long long)r.replay_runs, (long long)r.replay_windowed,
                 (long long)r.replay_unreplayable);
  if (!r.ok) {
    std::fprintf(stderr, "ptir opt: %s\n", r.error.c_str());
    if (f.timing) std::fputs(timing.format().c_str(), stderr);
    return kExitBadInput;
  }

  auto t0 = std::chrono::steady_clock::now();
  std::string out = print_program(p);
  timing.add("print", seconds_since(t0), p.num_live_insts(), p.memory_bytes());
  std::fwrite(out.data(), 1, out.size(), stdout);
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
