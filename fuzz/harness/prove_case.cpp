// The prover fuzzer's property (fuzz/harness/prove_case.h).
#include "fuzz/harness/prove_case.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <random>
#include <set>

#include "fuzz/gen/bytes_choices.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "rewriter/replay.h"
#include "rewriter/rules/rules.h"
#include "verify/allshape/allshape.h"
#include "verify/fastmath.h"
#include "verify/prove/instance.h"
#include "verify/prove/prove.h"
#include "verify/smt/solver.h"

namespace ptir::fuzz {
namespace {

using clock = std::chrono::steady_clock;

/// CPU time of the whole process (every thread: Z3 checks run on a solver host thread), in ms.
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

int64_t input_elements(const Program& p) {
  int64_t n = 0;
  for (ValueId v : p.body(p.entry()).params) n += p.type_of(v).num_elements();
  return n;
}

std::string show_inputs(const std::vector<Tensor>& in) {
  std::string s;
  for (size_t k = 0; k < in.size(); ++k) s += "  input " + std::to_string(k) + ": " + print_literal(in[k]) + "\n";
  return s;
}

/// Runs source and rewritten program on `runs` input sets; "" when the rewritten program refines the
/// source on every one of them (spec equality; flags through verify::confirm_difference).
std::string differ(const Program& src, const Program& tgt, int runs, uint64_t seed) {
  const BodyId sb = src.entry(), tb = tgt.entry();
  const bool flags = src.body(sb).fastmath.bits != 0;
  std::optional<verify::FastMathPlan> plan;
  InterpOptions io;
  io.max_while_iterations = 4096;
  io.max_bytes = uint64_t{1} << 28;
  for (int k = 0; k < runs; ++k) {
    std::vector<Tensor> in;
    if (k < 4) {
      for (ValueId v : src.body(sb).params) in.push_back(edge_tensor(src.type_of(v), static_cast<uint64_t>(k * 3)));
    } else {
      static constexpr double kBias[] = {0.5, 0.25, 0.1};
      in = random_inputs_avoiding_ub(src, sb, mix(seed, static_cast<uint64_t>(k)), kBias[k % 3]);
    }
    const RunResult a = run_body(src, sb, in, io);
    if (a.status == RunStatus::Error) return "the source does not run: " + a.message + "\n" + show_inputs(in);
    if (a.status != RunStatus::Ok) continue;  // source UB: anything goes
    const RunResult b = run_body(tgt, tb, in, io);
    // Under nsz a zero result of a governed op the source returns may have either sign
    // (verify::same_output); confirm_difference below assumes that comparison was made.
    if (flags && !plan) plan = verify::plan_fastmath(src, sb, tgt, tb);
    std::string d;
    if (b.status != RunStatus::Ok) {
      d = std::string("the rewritten program has ") + (b.status == RunStatus::UB ? "UB" : "an error") +
          " where the source runs: " + b.message + "\n";
    } else if (a.results.size() != b.results.size()) {
      d = "result counts differ\n";
    } else {
      for (size_t r = 0; r < a.results.size() && d.empty(); ++r)
        if (flags ? !verify::same_output(*plan, r, a.results[r], b.results[r]) : !results_equal(a.results[r], b.results[r]))
          d = "result " + std::to_string(r) + " differs at element " +
              std::to_string(first_difference(a.results[r], b.results[r])) + ":\n  source    " +
              print_literal(a.results[r]) + "\n  rewritten " + print_literal(b.results[r]) + "\n";
    }
    if (d.empty()) continue;
    if (flags && b.status != RunStatus::Error) {
      // Under fast-math flags the source allows more than its default run: another zero sign (nsz) or
      // association order (reassoc) may be the rewritten program's.
      std::string why;
      if (verify::confirm_difference(*plan, src, sb, in, b, io, &why) != verify::Confirm::Refutes) continue;
      d += "  (no behaviour the source's fast-math flags allow matches it)\n";
    }
    return d + show_inputs(in);
  }
  return "";
}

/// The REAL pattern of `one` on instances of `rule`'s source at root ranks 0..max_rank and dims
/// 0..max_dim (root dtypes in `dtypes` when given): "" when every fired instance agrees with the
/// interpreter, else the instance and the difference. `fired` counts the instances the rule fired on.
std::string concrete_check(const rules::Rule& rule, const rules::RulePattern* pattern, const FrozenPatternSet& one,
                           int max_rank, int max_dim, int scope_dim, const std::set<std::string>* dtypes,
                           const ProveFuzzOptions& o, uint64_t seed, int* fired) {
  std::mt19937_64 rng(seed);
  // A claim limited to dims 0..scope_dim (the bounded prover's) refuted on a larger root says so.
  auto scope_note = [&](const Program& p) -> std::string {
    if (scope_dim < 0) return "";
    const TensorType& t = p.type_of(p.operand(p.terminator(p.entry()), 0));
    for (int64_t x : t.dims)
      if (x > scope_dim)
        return " (root " + to_string(t) + ": beyond the claim's dims 0-" + std::to_string(scope_dim) + ")";
    return " (root " + to_string(t) + ": within the claim's dims 0-" + std::to_string(scope_dim) + ")";
  };
  for (int i = 0; i < o.check_instances; ++i) {
    const int rank = i % (max_rank + 1);
    // dims 1..max_dim in turn (each instance draws every dim from 0..that), the largest most often
    const int dim = std::max(1, max_dim - (i / (max_rank + 1)) % max_dim);
    uint8_t flags = rule.assumes;
    if (i % 3 == 2) flags |= static_cast<uint8_t>(std::uniform_int_distribution<int>(1, 7)(rng));
    std::unique_ptr<Program> inst;
    int d = dim;
    for (int t = 0; t < 60 && !inst; ++t) {
      prove::InstanceOptions io{.rank = rank, .max_dim = d, .perturb = prove::Perturb::None, .fastmath = flags};
      prove::Instance x = prove::make_instance(*rule.source, io, rng);
      if (!x.program) continue;
      if (dtypes && !dtypes->count(x.dtype)) continue;
      if (input_elements(*x.program) > o.max_elements) {
        if (d > 1 && t % 4 == 3) --d;
        continue;
      }
      const Program& p = *x.program;
      const InstId root = p.def_inst(p.operand(p.terminator(p.entry()), 0));
      if (pattern && !pattern->matches(p, root)) continue;
      inst = std::move(x.program);
    }
    if (!inst) continue;
    Program tgt(*inst);
    const prove::Applied ap = prove::apply_once(tgt, one);
    if (!ap.error.empty())
      return "root rank " + std::to_string(rank) + ", dims <= " + std::to_string(d) + scope_note(*inst) + ": " +
             ap.error + "instance:\n" + print_program(*inst);
    if (!ap.changed) continue;
    ++*fired;
    if (std::string diff = differ(*inst, tgt, o.check_runs, mix(seed, static_cast<uint64_t>(i))); !diff.empty())
      return "root rank " + std::to_string(rank) + ", dims <= " + std::to_string(d) + scope_note(*inst) +
             ":\ninstance:\n" +
             print_program(*inst) + "rewritten (the real pattern, applied once):\n" + print_program(tgt) + diff;
  }
  return "";
}

}  // namespace

std::string check_rule_text(const std::string& text, bool role_conflict, const ProveFuzzOptions& o,
                            ProveFuzzOutcome* out) {
  ProveFuzzOutcome local;
  ProveFuzzOutcome& res = out ? *out : local;
  res = {};
  const auto t0 = clock::now();
  const double cpu0 = process_cpu_ms();
  auto loaded = rules::load_rule_text(text, "fuzz.rules");
  if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
    res.load_error = e->format();
    if (e->message.empty()) return "the loader rejected the rule with an empty message:\n" + text;
    return "";
  }
  res.loaded = true;
  if (role_conflict)
    return "a rule using one captured attribute in two roles loaded (rewriter/rules/compile.cpp must reject "
           "it):\n" + text;
  auto file = std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded)));
  if (file->rules.size() != 1) return "the generator wrote " + std::to_string(file->rules.size()) + " rules:\n" + text;
  const prove::Populate populate = [file](PatternSet& s) { rules::add_rule_patterns(s, file); };
  std::vector<prove::Subject> subjects = prove::subjects_of(populate, {});
  if (subjects.size() != 1) return "one rule gave " + std::to_string(subjects.size()) + " patterns:\n" + text;
  const prove::Subject& s = subjects[0];
  const rules::Rule& rule = file->rules[0];

  prove::ProveOptions po;
  po.max_rank = o.bounded_max_rank;
  po.max_dim = o.bounded_max_dim;
  po.instances = o.bounded_instances;
  po.seed = o.seed;
  po.timeout_ms = o.bounded_timeout_ms;
  po.campaign_runs = o.bounded_campaign_runs;
  po.solver_threads = 1;
  po.shrink = false;
  const prove::Report rep = prove::prove_pattern(s, populate, po);
  res.bounded = prove::status_word(rep.status);
  allshape::Options ao;
  ao.timeout_ms = o.allshape_timeout_ms;
  ao.total_ms = o.allshape_total_ms;
  ao.seed = o.seed;
  const allshape::Result all = prove::prove_pattern_all_shapes(s, populate, po, ao);
  res.allshape = allshape::verdict_word(all.verdict);
  const bool bounded_proved = rep.status == prove::Status::Proved;
  const bool engine_proved = all.verdict == allshape::Verdict::Proved;
  res.allshape_engine_proved = engine_proved;
  res.allshape_final_proved = engine_proved && bounded_proved;  // tools/cmd_prove.cpp's safety net

  PatternSet set;
  populate(set);
  PatternFilter f;
  f.enabled_names = {s.name};
  const FrozenPatternSet one = std::move(set).freeze(f);
  const auto* pattern = one.size() == 1 ? dynamic_cast<const rules::RulePattern*>(one.all()[0]) : nullptr;
  std::string finding;
  auto claim = [&](const char* what, int max_rank, int scope_dim, const std::set<std::string>* dtypes,
                   uint64_t salt) -> std::string {
    int fired = 0;
    std::string d = concrete_check(rule, pattern, one, max_rank, o.check_max_dim, scope_dim, dtypes, o,
                                   mix(o.seed, salt), &fired);
    res.checked += fired;
    if (d.empty()) return "";
    return std::string(what) + " but the concrete check (root ranks 0-" + std::to_string(max_rank) + ", dims 0-" +
           std::to_string(o.check_max_dim) + ", the real pattern applied once, the interpreter) refutes it at " + d;
  };
  if (bounded_proved) {
    // The bounded claim is about the root dtypes it fired on (listed in its scope), at its ranks.
    std::string d = claim("bounded PROVED", o.bounded_max_rank, o.bounded_max_dim, &rep.dtypes, 11);
    if (!d.empty()) finding = d;
  }
  if (finding.empty() && engine_proved) {
    std::string d = claim(bounded_proved ? "PROVED FOR ALL SHAPES" : "the all-shape engine says PROVED",
                          o.allshape_check_rank, -1, nullptr, 23);
    if (!d.empty()) {
      if (bounded_proved || o.engine_strict) finding = d;
      else res.engine_disagreement = true, res.engine_note = d;
    }
  }
  if (engine_proved && rep.status == prove::Status::Refuted) {
    // ptir prove's DISAGREEMENT: the engine proved what the bounded prover refuted with a replayed
    // counterexample. Caught by the safety net; an engine bug all the same.
    res.engine_disagreement = true;
    if (res.engine_note.empty()) res.engine_note = "the all-shape engine says PROVED, the bounded prover REFUTED:\n" + rep.detail;
  }
  res.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  // CPU time, not wall time: the budgets are Z3 units, so a loaded machine (a campaign beside two
  // builds: load 8 on 2 cores) stretches the wall time of a rule that stays within them.
  const double cpu = process_cpu_ms() - cpu0;
  if (finding.empty() && cpu > o.max_rule_ms)
    finding = "the rule took " + std::to_string(static_cast<int>(cpu)) + " ms of CPU time (limit " +
              std::to_string(static_cast<int>(o.max_rule_ms)) + "; " + std::to_string(static_cast<int>(res.ms)) + " ms wall)";
  if (finding.empty()) return "";
  return finding + "\n--- rule (bounded " + res.bounded + ", all shapes " + res.allshape +
         (all.verdict == allshape::Verdict::Proved ? ": " + all.scope() : "") + ") ---\n" + text;
}

std::string fuzz_prove_case(const uint8_t* data, size_t size, RepeatFilter* repeats) {
  BytesChoices c(data, size);
  RuleGenOptions ro;
  ro.max_ops = 6;
  const GeneratedRule g = generate_rule(c, ro);
  // The check is a function of these two and of its time budgets (a repeat of a check that ran out of
  // time might end otherwise, and is not run again either).
  if (repeats && repeats->seen_before((g.role_conflict ? "role conflict\n" : "\n") + g.text)) return "";
  ProveFuzzOptions o;
  o.bounded_instances = 16;
  o.bounded_timeout_ms = 500;
  o.allshape_timeout_ms = 1000;
  o.allshape_total_ms = 4000;
  o.check_instances = 21;
  o.check_runs = 8;
  o.max_elements = 2000;
  o.max_rule_ms = 120000;
  std::string finding = check_rule_text(g.text, g.role_conflict, o);
  smt::reap_abandoned_checks();  // as fuzz_equiv_case: no Z3 context outlives the input (leak checks)
  return finding;
}

}  // namespace ptir::fuzz
