// The fuzz checks: interpreter differential and pipeline properties (fuzz_pipeline); the checker-soundness
// checks on pairs (fuzz_equiv) are in equiv_case.cpp, so fuzz_pipeline does not link the checker.
#include "fuzz/harness/harness.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unordered_set>

#include "fuzz/gen/bytes_choices.h"
#include "fuzz/harness/compare.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "patterns/passes.h"
#include "rewriter/canonicalize.h"
#include "rewriter/checks.h"
#include "verify/replay.h"

namespace ptir::fuzz {

InterpOptions interp_options() { return {.kernels = &fuzz_kernels(), .max_while_iterations = 1 << 12}; }

namespace {

std::vector<Tensor> inputs_for(const Program& p, int k, const DiffOptions& o) {
  const Body& body = p.body(p.entry());
  if (k < 11) {
    std::vector<Tensor> in;
    for (ValueId v : body.params) in.push_back(edge_tensor(p.type_of(v), static_cast<uint64_t>(k)));
    return in;
  }
  return random_inputs_avoiding_ub(p, p.entry(), o.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(k),
                                   o.edge_bias);
}

/// Input sets that are the same to the interpreter: same types, same form (splat or dense: the
/// interpreter may take another path for a splat) and the same bytes.
struct InputSetHash {
  size_t operator()(const std::vector<Tensor>& in) const { return verify::input_set_hash(in); }
};
struct InputSetEq {
  bool operator()(const std::vector<Tensor>& a, const std::vector<Tensor>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (a[k].type != b[k].type || a[k].splat != b[k].splat || a[k].data != b[k].data) return false;
    return true;
  }
};

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::UB:
      return "UB";
    case RunStatus::Bound:
      return "loop bound";
    case RunStatus::Error:
      return "error";
  }
  return "?";
}

}  // namespace

std::string show_inputs(const std::vector<Tensor>& in) {
  std::string s;
  for (size_t k = 0; k < in.size(); ++k) s += "  input " + std::to_string(k) + ": " + print_literal(in[k]) + "\n";
  return s;
}

std::string compare(const RunResult& s, const RunResult& t, const std::vector<Tensor>& in) {
  if (s.status == RunStatus::Error) return "the source does not run: " + s.message + "\n" + show_inputs(in);
  if (s.status != RunStatus::Ok) return "";
  if (t.status != RunStatus::Ok)
    return std::string("the target has ") + status_name(t.status) + " where the source runs: " + t.message + "\n" +
           show_inputs(in);
  if (s.results.size() != t.results.size()) return "result counts differ\n";
  for (size_t r = 0; r < s.results.size(); ++r)
    if (!results_equal(s.results[r], t.results[r]))
      return "result " + std::to_string(r) + " differs at element " +
             std::to_string(first_difference(s.results[r], t.results[r])) + ":\n  source " +
             print_literal(s.results[r]) + "\n  target " + print_literal(t.results[r]) + "\n" + show_inputs(in);
  return "";
}

namespace {

/// The canonicalization patterns (built-in rules, C++ patterns; no filter, plugins or rule files, as
/// run_pipeline asks for), compiled and frozen once per process: the rule library's compilation cost
/// more than the rest of a fuzz_pipeline case. A FrozenPatternSet is immutable and its copies share the
/// patterns; each CanonicalizePass keeps its own failure cache, so sharing changes nothing a run does.
const FrozenPatternSet& canonicalization_patterns() {
  static const FrozenPatternSet frozen = [] {
    PatternSet set;
    populate_canonicalization_patterns(set);
    return std::move(set).freeze();
  }();
  return frozen;
}

/// The expensive checks' passed replays across this thread's cases: a replay is keyed by its full
/// description by value (rewriter/replay.h), so one identical to a replay that passed in an earlier case
/// would pass again and is not run. A ReplayMemo allocates its memory once: every other cache lives for
/// one case only, because libFuzzer runs a case that allocates more than it frees again and
/// leak-checks it.
ReplayMemo& case_replay_memo() {
  thread_local ReplayMemo memo;
  return memo;
}

/// default_pass_registry(canon) with its canonicalize factory taking the shared frozen patterns
/// instead of compiling them again; every other pass and named pipeline is default_pass_registry's.
PassRegistry fuzz_pass_registry(const CanonicalizeOptions& canon) {
  const PassRegistry base = default_pass_registry(canon);
  PassRegistry r;
  for (const PassRegistry::Entry& e : base.entries()) {
    if (e.name == "canonicalize")
      r.add(e.name, e.summary,
            [greedy = canon.greedy] { return std::make_unique<CanonicalizePass>(canonicalization_patterns(), greedy); });
    else
      r.add(e.name, e.summary, e.factory);
  }
  for (const PassRegistry::NamedPipeline& n : base.pipelines()) r.add_pipeline(n.name, n.summary, n.text);
  return r;
}

}  // namespace

std::string differential(const Program& src, const Program& tgt, const DiffOptions& o) {
  // Each instruction's index map (with its memo) built once for all the runs of both programs.
  std::optional<IndexMapCache> own_maps;
  IndexMapCache& maps = o.index_maps ? *o.index_maps : own_maps.emplace();
  PlanCache src_plans, tgt_plans;  // each body's plan built once per program (neither changes here)
  InterpOptions io = interp_options();
  io.index_maps = &maps;
  InterpOptions so = io, to = io;
  so.plans = &src_plans;
  to.plans = &tgt_plans;
  // The input sets already run (see harness.h: a repeat cannot find anything new).
  std::unordered_set<std::vector<Tensor>, InputSetHash, InputSetEq> seen;
  DiffStats st;
  std::string d;
  for (int k = 0; k < o.runs && d.empty(); ++k) {
    std::vector<Tensor> in = inputs_for(src, k, o);
    ++st.drawn;
    if (seen.contains(in)) continue;
    ++st.distinct;
    // compare() reads the target's run only when the source ran Ok (a source with UB, a loop at its
    // bound or an error decides alone): the target is not run otherwise.
    const RunResult s = run_program(src, in, so);
    RunResult t;
    if (s.status == RunStatus::Ok) {
      t = run_program(tgt, in, to);
      ++st.target_runs;
    }
    d = compare(s, t, in);
    seen.insert(std::move(in));
  }
  if (o.stats) {
    o.stats->drawn += st.drawn;
    o.stats->distinct += st.distinct;
    o.stats->target_runs += st.target_runs;
  }
  return d;
}

namespace {

/// run_pipeline on `p` itself.
PipelineOutcome run_pipeline_on(std::unique_ptr<Program> p, ChecksLevel checks, uint64_t worklist_seed,
                                std::string_view pipeline) {
  PipelineOutcome out;
  out.program = std::move(p);
  InterpOptions replay_interp = interp_options();
  replay_interp.index_maps = checks.index_maps;
  CanonicalizeOptions canon;
  canon.greedy.random_order_seed = worklist_seed;
  PassManager pm(PassManagerOptions{.expensive_checks = checks.on,
                                    .check_options = CheckOptions{.random_trials = checks.random_trials,
                                                                  .edge_trials = checks.edge_trials,
                                                                  .seed = worklist_seed ? worklist_seed : 1,
                                                                  .interp = replay_interp,
                                                                  .replay_memo = &case_replay_memo()}});
  // The registry of the default worklist order is built once per thread (two pipeline runs per case
  // built it, and default_pass_registry's, afresh: 2% of fuzz_pipeline's time under ASan); a seeded
  // order gets its own.
  std::optional<PassRegistry> seeded;
  if (worklist_seed != 0) seeded.emplace(fuzz_pass_registry(canon));
  thread_local const PassRegistry unseeded = fuzz_pass_registry(CanonicalizeOptions{});
  const PassRegistry& registry = seeded ? *seeded : unseeded;
  std::string err = parse_pipeline(pipeline.empty() ? kDefaultPipeline : pipeline, registry, pm.top());
  if (!err.empty()) {
    out.result.ok = false;
    out.result.error = err;
    return out;
  }
  out.result = pm.run(*out.program);
  return out;
}

}  // namespace

PipelineOutcome run_pipeline(const Program& p, ChecksLevel checks, uint64_t worklist_seed, std::string_view pipeline) {
  return run_pipeline_on(std::make_unique<Program>(p), checks, worklist_seed, pipeline);
}

std::string check_pipeline(const Program& p, ChecksLevel checks, const DiffOptions& diff) {
  // The input is printed only for a finding: `p` itself is not changed (the pipeline runs on a copy).
  auto before = [&p] { return print_program(p); };
  // One cache of index maps for the checks' replays and the differential, which run the same
  // instructions (the cache lives for this case only: see case_replay_memo).
  IndexMapCache maps;
  checks.index_maps = &maps;
  PipelineOutcome o = run_pipeline(p, checks);
  if (!o.result.ok) return "the pipeline failed: " + o.result.error + "\n--- input ---\n" + before();
  const std::string after = print_program(*o.program);
  if (auto d = verify_program(*o.program, 1); !d.empty())
    return "the pipeline's output does not verify: " + format_diagnostic(d[0], *o.program, nullptr) +
           "\n--- input ---\n" + before() + "--- output ---\n" + after;
  DiffOptions shared = diff;
  shared.index_maps = &maps;
  if (std::string d = differential(p, *o.program, shared); !d.empty())
    return "the pipeline changed the results: " + d + "--- input ---\n" + before() + "--- output ---\n" + after;
  PipelineOutcome again = run_pipeline_on(std::move(o.program), {.on = false}, 0, {});  // o.program is not read again
  if (!again.result.ok) return "the second pipeline run failed: " + again.result.error + "\n" + after;
  const std::string twice = print_program(*again.program);
  if (twice != after)
    return "the pipeline is not idempotent\n--- input ---\n" + before() + "--- once ---\n" + after + "--- twice ---\n" +
           twice;
  return "";
}

GenOptions fuzz_gen_options(Choices& c, int max_ops) {
  GenOptions o;
  o.num_ops = static_cast<int>(c.range(1, max_ops));
  o.profile = static_cast<Profile>(c.range(0, 4));
  o.seeded_patterns = c.chance(1, 2);
  o.max_rank = static_cast<int>(c.range(0, 3));
  o.max_elements = c.range(1, 32);
  if (c.chance(1, 3))
    o.dtypes = {static_cast<DType>(c.range(0, kNumDTypes - 1)), static_cast<DType>(c.range(0, kNumDTypes - 1))};
  return o;
}

std::string fuzz_pipeline_case(const uint8_t* data, size_t size, RepeatFilter* repeats) {
  // An input ending with the bytes an earlier generation read makes that program again (repeats.h).
  if (repeats && repeats->input_seen_before(data, size)) return "";
  BytesChoices c(data, size);
  GenOptions o = fuzz_gen_options(c, 12);
  Generated g = generate_text(c, o);
  if (repeats) repeats->remember_input(data, size, c.used());
  // Everything below is a function of g.text (the program is parsed from it).
  if (repeats && repeats->seen_before(g.text)) return "";
  parse_generated(g);
  if (!g.program) return "the generator wrote a program the parser rejects: " + g.error + "\n" + g.text;
  if (auto d = verify_program(*g.program, 1); !d.empty())
    return "the generator wrote a program that does not verify: " + d[0].message + "\n" + g.text;
  // The printer's form parses back to itself. The generator writes that form (so far always): then
  // g.program was parsed from this very text and printed it back, and parsing it again would repeat
  // that, so the round trip is checked only where the texts differ.
  const std::string printed = print_program(*g.program);
  if (printed != g.text) {
    ParseResult again = parse_program(printed, "printed.ptir");
    if (!again.ok() || print_program(*again.program) != printed) return "print/parse is not exact\n" + printed;
  }
  // Light expensive checks (every rewrite replayed on 1 random and 2 edge inputs) keep the target fast;
  // the whole-program differential below covers what they skip.
  return check_pipeline(*g.program, {.on = true, .random_trials = 1, .edge_trials = 2},
                        {.runs = 6, .seed = 1, .edge_bias = 0.4});
}

RepeatFilter& target_repeat_filter(const char* target, const char* what) {
  // Never destroyed: the exit hook reads it, and libFuzzer leaves through exit(), which runs atexit
  // hooks and static destructors in an order not worth relying on.
  static RepeatFilter* filter = nullptr;
  static const char* name = nullptr;
  static const char* noun = nullptr;
  if (!filter) {
    filter = new RepeatFilter();
    name = target;
    noun = what;
    std::atexit([] {
      const auto n = [](uint64_t v) { return static_cast<unsigned long long>(v); };
      const uint64_t cases = filter->checked() + filter->repeats();
      if (cases == 0) return;
      std::fprintf(stderr,
                   "%s repeats: %llu %s checked, %llu repeats skipped (%.0f%% of %llu cases; %llu known by "
                   "their input's last bytes before generation), %llu table restarts\n",
                   name, n(filter->checked()), noun, n(filter->repeats()),
                   100.0 * static_cast<double>(filter->repeats()) / static_cast<double>(cases), n(cases),
                   n(filter->input_repeats()), n(filter->restarts()));
    });
  }
  return *filter;
}

}  // namespace ptir::fuzz
