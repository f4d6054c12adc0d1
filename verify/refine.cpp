// The refinement check: the numbered queries of refine.h, solved one output element at a time on up to
// CheckOptions::threads threads (one Z3 context each), with every counterexample replayed.
//
// Speed without giving up exactness: terms are hash-consed and normalised before Z3 (equal elements
// are recognised without a solver); element queries that are the same formula up to a renaming of
// the inputs are solved once (an elementwise tensor costs one query, not one per element); the
// remaining queries are shared between threads; and the interpreter fast pass runs first.
#include "verify/refine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <unordered_map>

#include "verify/budget.h"
#include "verify/encode/encode.h"
#include "verify/encode/transcendental.h"
#include "verify/exhaustive/exhaustive.h"
#include "verify/fastmath.h"
#include "verify/precondition.h"
#include "verify/replay.h"
#include "verify/smt/solver.h"
#include "verify/smt/staged.h"

namespace ptir::verify {
namespace {

using clock = std::chrono::steady_clock;
using smt::Expr;

double ms_since(clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); }

enum class Q : uint8_t { Precondition = 2, TargetUB = 3, Values = 4, Loops = 5 };

const char* query_name(Q q) {
  switch (q) {
    case Q::Precondition: return "precondition satisfiable";
    case Q::TargetUB: return "target UB only where source UB";
    case Q::Values: return "values equal";
    case Q::Loops: return "loops finish within the bound";
  }
  return "?";
}

/// A Values job with element -1 (only for a result computed by a contract site of the source, whose
/// fused values query 4 accepts element by element): no single choice of the site (unfused, or fused at
/// one operand, the same for every element) gives the target's whole result.
struct Job {
  Q q;
  int result = -1;
  int64_t element = -1;
};

/// What a job concluded. Only `proves` counts towards PROVED; it is set only by an unsat answer of a
/// query whose unsat is the property (3, 4, 5), or by an unsat answer of an equivalent query.
struct Outcome {
  bool done = false;
  bool proves = false;
  bool sat = false;     ///< query 2: the source is defined somewhere
  int stage = 0;        ///< which stage of a refuting query answered
  /// >= 0: a cheaper stage overran and took the worker's Z3 context with it (smt::Context::dead);
  /// the query is to be asked again in a new context from this stage on.
  int retry_from = -1;
  std::string unknown;  ///< non-empty: why this query has no answer
  std::string text = "not run";
  double ms = 0;
  std::string smt2;
};

/// The two programs encoded in one worker's context.
struct Encoded {
  SymInputs in;
  BodyEncoding src, tgt;
  Expr defined;  ///< the source is defined and every loop finished within the bound
  std::unique_ptr<Precondition> pre;
  std::vector<ZeroSignVar> tgt_signs;  ///< the target's free nsz zero signs (every choice is checked)
  std::vector<ContractVar> tgt_fused;  ///< the target's free contract choices (every choice is checked)
  std::vector<ContractAlt> src_alts;   ///< the fused alternatives of the source's contract sites
  /// Under nsz, when the source's zero signs are not all free outputs: no governed source op makes a zero
  /// whose sign it may choose (on such inputs the source has one behaviour, so a difference replays as
  /// a refutation). True otherwise.
  Expr src_no_choice = Expr::boolean(true);
};

std::string element_subject(const TensorType& t, int r, int64_t e) {
  if (e < 0) return "result " + std::to_string(r) + " (one choice of its contract site for every element)";
  std::vector<int64_t> idx(t.dims.size(), 0);
  for (int k = static_cast<int>(t.dims.size()) - 1; k >= 0 && t.dims[k] > 0; --k) {
    idx[k] = e % t.dims[k];
    e /= t.dims[k];
  }
  std::string s = "result " + std::to_string(r) + " element [";
  for (size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

class Checker {
 public:
  /// `source_defined`: an interpreter run already showed the source defined on some input (query 2).
  /// `start`: when the whole check started (the budget counts from there, fast pass included).
  Checker(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const CheckOptions& o, bool source_defined,
          clock::time_point start)
      : src_(src), tgt_(tgt), sb_(sb), tb_(tb), opts_(o), source_defined_(source_defined),
        deadline_(start + std::chrono::milliseconds(o.deterministic ? uint64_t{smt::kWallFactor} * o.timeout_ms + smt::kWallSlackMs : o.timeout_ms)),
        fm_(plan_fastmath(src, sb, tgt, tb)),
        units_(o.timeout_ms, start) {}

  Verdict run();

 private:
  void plan();
  void worker(bool main);
  /// Main thread only: answers the jobs that need no solver and groups the rest by formula.
  void group(const Encoded& e);
  void run_group(size_t g, const Encoded& e);
  /// Runs job k from stage `from` and stores its outcome; false when the worker's context died (the
  /// job is then queued again if it has stages left).
  bool run_one(size_t k, int from, const Encoded& e, Outcome* out = nullptr);
  /// Queues jobs to be run again in a new context.
  void retry(size_t k, int from);
  Encoded encode() const;
  std::optional<Outcome> trivial(const Job& j, const Encoded& e) const;
  /// The formula whose models are counterexamples (queries 3 and 4).
  /// The formulas whose models are counterexamples (queries 3 and 4), cheapest first: the last is
  /// exact, the others have more models (precondition sliced, functions abstracted), so an unsat
  /// answer to any of them is a proof.
  std::vector<Expr> refuting_stages(const Job& j, const Encoded& e) const;
  Outcome run_job(const Job& j, const Encoded& e, int from = 0);
  Outcome solve_refuting(const Job& j, const std::vector<Expr>& stages, const Encoded& e, int from);
  Outcome solve_plain(const Expr& goal, Q q);
  std::vector<Tensor> model_inputs(const smt::Model& m, const Encoded& e) const;
  /// What is left of the budget, in ms: wall time, or (CheckOptions::deterministic) the Z3 units left
  /// expressed in ms (smt::Solver turns them back into the same units).
  unsigned remaining_ms() const;
  /// Deterministic budgets: counts what a check spent.
  void charge(uint64_t units) { units_.charge(units); }
  /// Stops every worker: interrupts their Z3 calls; `out_of_time`: because the budget ran out.
  void stop_all(bool out_of_time = false);
  /// The watchdog: at the deadline, stops everything (and keeps interrupting until the workers are
  /// done, since an interrupt only reaches a Z3 call that is running).
  void watchdog();
  Verdict verdict();

  const Program& src_;
  const Program& tgt_;
  BodyId sb_, tb_;
  const CheckOptions& opts_;
  bool source_defined_;
  clock::time_point deadline_;
  FastMathPlan fm_;  ///< what the fast-math flags of the pair mean for this check
  smt::UnitBudget units_;  ///< CheckOptions::deterministic: the Z3 units of the check (smt/staged.h)
  std::vector<Job> jobs_;
  std::vector<Outcome> out_;
  /// Elements plan() did not reach by the deadline: (result, first element, last element).
  struct Unplanned {
    int result;
    int64_t first, last;
  };
  std::vector<Unplanned> unplanned_;
  std::vector<std::vector<size_t>> groups_;  ///< jobs to solve; a group's jobs are one formula up to renaming
  std::atomic<size_t> next_{0};
  std::mutex retry_m_;
  std::vector<std::pair<size_t, int>> retry_;  ///< (job, first stage) to run again in a new context
  std::atomic<bool> stop_{false};
  std::atomic<bool> out_of_time_{false};  ///< stop_ because the deadline passed
  std::mutex dog_m_;
  std::condition_variable dog_cv_;
  bool finished_ = false;  ///< guarded by dog_m_: every worker is done
  std::atomic<int> solver_calls_{0};
  std::atomic<uint64_t> helper_events_{0};  ///< nondeterministic events of the helper threads
  std::mutex m_;  ///< guards live_, refuted_, error_
  std::vector<smt::Context*> live_;
  std::vector<std::thread> helpers_;
  std::optional<Refuted> refuted_;
  std::string error_;
  std::string fm_unknown_;  ///< a counterexample under the source's default fast-math choices only
};

void Checker::plan() {
  jobs_.push_back({Q::Precondition});
  jobs_.push_back({Q::TargetUB});
  const Body& b = src_.body(sb_);
  // One job per output element. Planning millions of them takes seconds: it stops at the deadline, and
  // the elements not planned are undecided (UNKNOWN).
  bool late = false;
  for (size_t r = 0; r < b.result_types.size(); ++r)
    for (int64_t i = 0, n = src_.type(b.result_types[r]).num_elements(); i < n; ++i) {
      late = late || ((jobs_.size() & 4095) == 0 && clock::now() > deadline_);
      if (late) {
        if (i < n) unplanned_.push_back({static_cast<int>(r), i, n - 1});
        break;
      }
      jobs_.push_back({Q::Values, static_cast<int>(r), i});
    }
  // A contract site at a source root: its fused values are accepted element by element above, but the
  // site's choice is one for the whole tensor, so one more query asks for that.
  for (size_t r = 0; r < b.result_types.size() && !late; ++r)
    if (fm_.contract_root[r] != kNone && src_.type(b.result_types[r]).num_elements() >= 2)
      jobs_.push_back({Q::Values, static_cast<int>(r), -1});
  jobs_.push_back({Q::Loops});
  out_.assign(jobs_.size(), Outcome{});
}

Encoded Checker::encode() const {
  Encoded e;
  e.in = symbolic_inputs(src_, sb_, &stop_);
  // The source keeps the IEEE default zero signs (one allowed choice: a proof exhibits it); every
  // zero sign the target's nsz allows is checked (free variables).
  EncodeOptions eo;
  eo.while_unroll = opts_.while_unroll;
  eo.stop = &stop_;
  eo.fold_deadline = deadline_;
  eo.fold_max_bytes = opts_.memory_mb << 20;
  std::vector<ZeroChoice> choices;
  if (!fm_.src_signs_exact) eo.zero_choices = &choices;
  eo.contract_alts = &e.src_alts;  // a fused alternative at the source root is an allowed value there
  e.src = encode_body(src_, sb_, e.in.tensors, eo);
  eo.zero_choices = nullptr;
  eo.contract_alts = nullptr;
  if (!choices.empty()) {
    // A free output's zero compares equal whatever its sign: no choice there.
    std::vector<InstId> free;
    const InstId ret = src_.terminator(sb_);
    for (size_t k = 0; k < fm_.free_zero_result.size(); ++k)
      if (fm_.free_zero_result[k]) free.push_back(src_.def_inst(src_.operand(ret, static_cast<uint32_t>(k))));
    std::vector<Expr> none;
    for (const ZeroChoice& z : choices)
      if (std::find(free.begin(), free.end(), z.inst) == free.end()) none.push_back(!z.is_zero);
    e.src_no_choice = Expr::all(none);
  }
  eo.zero_sign = EncodeOptions::ZeroSign::Any;
  eo.zero_signs = &e.tgt_signs;
  eo.zero_sign_prefix = "nsz.tgt";
  eo.contract = EncodeOptions::Contract::Any;  // every fusion the target's contract allows is checked
  eo.contract_vars = &e.tgt_fused;
  eo.contract_prefix = "contract.tgt";
  e.tgt = encode_body(tgt_, tb_, e.in.tensors, eo);
  e.defined = !e.src.ub && !e.src.unfinished && !e.tgt.unfinished;
  e.pre = std::make_unique<Precondition>(e.src.ub || e.src.unfinished || e.tgt.unfinished);
  return e;
}

unsigned Checker::remaining_ms() const {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now()).count();
  if (left <= 0) return 0;
  if (opts_.deterministic) return units_.left_ms();
  return static_cast<unsigned>(left);
}

void Checker::stop_all(bool out_of_time) {
  if (out_of_time) out_of_time_ = true;
  stop_ = true;
  std::lock_guard<std::mutex> g(m_);
  for (smt::Context* c : live_) c->interrupt();
}

void Checker::watchdog() {
  std::unique_lock<std::mutex> lk(dog_m_);
  if (dog_cv_.wait_until(lk, deadline_, [&] { return finished_; })) return;
  while (!finished_) {
    lk.unlock();
    stop_all(true);
    lk.lock();
    dog_cv_.wait_for(lk, std::chrono::milliseconds(5), [&] { return finished_; });
  }
}

std::optional<Outcome> Checker::trivial(const Job& j, const Encoded& e) const {
  Outcome o;
  switch (j.q) {
    case Q::Precondition:
      if (e.src.ub.isFalse() || (e.src.ub.isTrue() && e.src.unfinished.isFalse())) {
        o.sat = e.src.ub.isFalse();
        o.text = o.sat ? "sat (no UB in source)" : "unsat (source always UB)";
        return o;
      }
      if (!source_defined_) return std::nullopt;
      o.sat = true;
      o.text = "sat (an interpreter run of the fast pass)";
      return o;
    case Q::TargetUB:
      if (!e.tgt.ub.isFalse() && !e.tgt.ub.same(e.src.ub)) return std::nullopt;
      o.proves = true;
      o.text = e.tgt.ub.isFalse() ? "unsat (no UB in target)" : "unsat (the same UB as the source)";
      return o;
    case Q::Values:
      if (j.element < 0) return std::nullopt;
      // Hash-consed and normalised: the same term on both sides.
      if (!e.src.results[j.result].elems[j.element].same(e.tgt.results[j.result].elems[j.element])) return std::nullopt;
      o.proves = true;
      o.text = "unsat (same term)";
      return o;
    case Q::Loops:
      if (!(e.src.unfinished || e.tgt.unfinished).isFalse()) return std::nullopt;
      o.proves = true;
      o.text = "unsat (no loop past the bound)";
      return o;
  }
  return std::nullopt;
}

std::vector<Expr> Checker::refuting_stages(const Job& j, const Encoded& e) const {
  // Query 3 shows that the target is defined wherever the source is, so query 4 only compares values.
  Expr bad = Expr::boolean(true);
  if (j.q == Q::TargetUB) {
    bad = e.tgt.ub;
  } else if (j.element < 0) {
    // Every choice of the root's contract site differs from the target somewhere.
    const bool free_zero = fm_.free_zero_result[static_cast<size_t>(j.result)];
    const SymTensor& tr = e.tgt.results[j.result];
    auto differs = [&](const std::vector<Expr>& v) {
      std::vector<Expr> any;
      for (size_t k = 0; k < v.size(); ++k) {
        Expr d = v[k] != tr.elems[k];
        if (free_zero && v[k].isFP()) d = d && !(v[k].isZero() && tr.elems[k].isZero());
        any.push_back(d);
      }
      return Expr::any(any);
    };
    std::vector<Expr> all{differs(e.src.results[j.result].elems)};
    for (const ContractAlt& alt : e.src_alts)
      if (alt.inst == fm_.contract_root[static_cast<size_t>(j.result)]) all.push_back(differs(alt.elems));
    bad = Expr::all(all);
  } else {
    const Expr& a = e.src.results[j.result].elems[j.element];
    const Expr& b = e.tgt.results[j.result].elems[j.element];
    bad = a != b;
    // A free output zero of the source (nsz): -0 and +0 are both allowed source values.
    const bool free_zero = fm_.free_zero_result[static_cast<size_t>(j.result)] && a.isFP();
    if (free_zero) bad = bad && !(a.isZero() && b.isZero());
    // A contract site at the source root (contract): each fused alternative is an allowed source value.
    // Inner sites keep the unfused default, one allowed source behaviour (sound, not complete).
    if (const InstId site = fm_.contract_root[static_cast<size_t>(j.result)]; site != kNone)
      for (const ContractAlt& alt : e.src_alts)
        if (alt.inst == site) {
          const Expr& f = alt.elems[static_cast<size_t>(j.element)];
          bad = bad && f != b;
          if (free_zero) bad = bad && !(f.isZero() && b.isZero());
        }
  }
  std::vector<Expr> stages;
  auto add = [&](const Expr& f) {
    if (stages.empty() || !stages.back().same(f)) stages.push_back(f);
  };
  // The queries of a contract root usually hold by the case split on the target's choices alone (its
  // fused and unfused values are the source's terms): with the float arithmetic abstracted (more models,
  // so unsat carries over) Z3 sees that without bit-blasting fma.
  if (j.q == Q::Values && fm_.contract_root[static_cast<size_t>(j.result)] != kNone)
    add((e.defined && bad).abstractArithmetic());
  add((e.pre->for_formula(bad) && bad).abstractFunctions());
  add(e.defined && bad);
  return stages;
}

std::vector<Tensor> Checker::model_inputs(const smt::Model& m, const Encoded& e) const {
  std::vector<Tensor> in;
  for (size_t k = 0; k < e.in.tensors.size(); ++k) {
    Tensor t(e.in.tensors[k].type);
    for (size_t i = 0; i < e.in.bits[k].size(); ++i) {
      auto v = m.eval(e.in.bits[k][i]).numeral();
      if (!v) throw std::runtime_error("z3: the model has no value for an input");
      t.set_bits(static_cast<int64_t>(i), *v & bits_mask(t.dtype()));
    }
    in.push_back(std::move(t));
  }
  return in;
}

/// Tries one satisfiability check of a query for a counterexample.
enum class Try : uint8_t { Unsat, Sat, Unknown };

Outcome Checker::solve_refuting(const Job& j, const std::vector<Expr>& stages, const Encoded& e, int from) {
  Outcome o;
  const std::string not_replayed =
      "counterexamples did not replay in the interpreter (they depend on uninterpreted functions, or on a "
      "zero sign or fusion the target chooses inside a region, which the replay does not reproduce)";
  std::vector<Expr> blocked;  // inputs whose counterexample did not replay
  std::string why_not;        // why the last one did not (fast-math choices of the source)
  int unreplayed = 0;         // models that did not replay (uninterpreted functions, rng)
  int answered = 0;           // models another allowed source behaviour answers (or may answer)
  // One check; a sat answer is replayed: a replayed difference refutes the whole check, any other
  // model is blocked so that the next check looks elsewhere.
  auto attempt = [&](const Expr& f, unsigned budget) -> Try {
    if (smt::current_context()->dead()) {  // an earlier stage overran and took the context with it
      o.text = "timeout";
      o.unknown = "solver: timeout";
      return Try::Unknown;
    }
    if (budget == 0 || stop_) {
      o.unknown = o.text = stop_ && !out_of_time_ ? "stopped" : "time budget exhausted";
      return Try::Unknown;
    }
    smt::Solver s(budget);
    s.add(f);
    for (const Expr& b : blocked) s.add(b);
    for (const Expr& fact : transc::facts_for({&f, 1})) s.add(fact);  // what libm guarantees
    if (opts_.emit_smt2) o.smt2 += (o.smt2.empty() ? "" : "(reset)\n") + s.to_smt2();  // one script per call
    ++solver_calls_;
    const smt::Result r = s.check();
    charge(s.units());
    if (r == smt::Result::Unknown) {
      const std::string why = out_of_time_ ? "timeout" : s.reason_unknown();
      o.text = stop_ && !out_of_time_ ? "stopped" : why == "timeout" || why == "canceled" ? "timeout" : "unknown";
      o.unknown = stop_ && !out_of_time_ ? "stopped" : "solver: " + why;
      return Try::Unknown;
    }
    if (r == smt::Result::Unsat) return Try::Unsat;
    std::vector<Tensor> in = model_inputs(*s.model(), e);
    // The target's zero signs of the model (instructions of the function body; in a region an
    // instruction runs several times and keeps its IEEE default sign in the replay).
    ZeroSigns signs;
    for (const ZeroSignVar& z : e.tgt_signs)
      if (!z.in_region) signs[{z.inst, z.element}] = s.model()->eval(z.var).isTrue();
    // The target's fused contract sites of the model (function body; in a region a site keeps the unfused
    // default in the replay). The first true choice of a site wins, as in the encoding.
    Contractions fused;
    for (const ContractVar& c : e.tgt_fused)
      if (!c.in_region && !fused.count(c.inst) && s.model()->eval(c.var).isTrue()) fused[c.inst] = c.k;
    std::string why;
    if (auto ref = replay(src_, sb_, tgt_, tb_, in, opts_, InterpOptions{}.max_while_iterations, &fm_, &signs, &why,
                          deadline_, &fused)) {
      ref->query = static_cast<int>(j.q);
      ref->query_name = query_name(j.q);
      ref->found_by = "z3";
      if (!fused.empty())
        ref->found_by += "; the target ran with " + std::to_string(fused.size()) + " contract site" +
                         (fused.size() == 1 ? "" : "s") + " fused (a*b+c rounded once), an allowed target behaviour";
      o.text = "sat, replayed";
      {
        std::lock_guard<std::mutex> g(m_);
        if (!refuted_) refuted_ = std::move(*ref);
      }
      stop_all();
      return Try::Sat;
    }
    // Not a replayed difference: an uninterpreted function or rng value made it (no why), or another
    // allowed choice of the source answers it or may answer it (nsz zero signs, reassoc orders). Block
    // the model; after the first answered one, also ask for inputs where the source chooses no zero sign.
    if (why.empty()) {
      ++unreplayed;
      // An uninterpreted value may have made the difference: the next model must take libm's values at
      // this model's arguments (transc::lemmas_at; blocking, so no PROVED can follow).
      for (Expr& l : transc::lemmas_at({&f, 1}, *s.model())) blocked.push_back(std::move(l));
    } else {
      if (answered++ == 0 && !e.src_no_choice.isTrue()) blocked.push_back(e.src_no_choice);
      why_not = why;
    }
    std::vector<Expr> differs;
    for (size_t k = 0; k < in.size(); ++k)
      for (size_t i = 0; i < e.in.bits[k].size(); ++i) {
        const Expr& var = e.in.bits[k][i];
        const uint64_t bits = in[k].bits(static_cast<int64_t>(i));
        differs.push_back(var.isBool() ? var != Expr::boolean(bits & 1) : var != Expr::bv(bits, var.width()));
      }
    blocked.push_back(Expr::any(differs));
    return Try::Sat;
  };
  // The cheaper stages first (smt::run_cheap_stages, shared with the all-shape prover): their unsat is a
  // proof; their sat may be a real counterexample (replay decides), else the next, more exact stage runs.
  std::vector<std::function<Expr()>> cheap;
  for (size_t k = 0; k + 1 < stages.size(); ++k) cheap.push_back([&stages, k] { return stages[k]; });
  const smt::StagesRun run = smt::run_cheap_stages(cheap, static_cast<size_t>(std::max(0, from)), [&](const Expr& f, size_t k) {
    const Try t = attempt(f, std::max(1u, remaining_ms() / 2));
    if (t == Try::Unsat) return smt::StageStep::Unsat;
    if (stop_) return smt::StageStep::Stop;
    if (smt::current_context()->dead()) {  // the next stage runs in a new context
      o.retry_from = static_cast<int>(k) + 1;
      return smt::StageStep::Stop;
    }
    blocked.clear();
    unreplayed = answered = 0;
    why_not.clear();
    o.unknown.clear();
    return smt::StageStep::Open;
  });
  if (run.unsat_at) {
    o.proves = true;
    o.stage = static_cast<int>(*run.unsat_at);
    o.text = "unsat (sliced/abstracted)";
    return o;
  }
  if (run.stopped) return o;
  const Expr& goal = stages.back();
  o.stage = static_cast<int>(stages.size()) - 1;
  Try t = Try::Sat;
  while (unreplayed < std::max(1, opts_.replay_attempts) && answered < std::max(1, opts_.fastmath_rounds)) {
    // Once a model was answered by the source's choices the query cannot be proved: the rounds only look
    // for a refutation, and get a quarter of what is left each.
    t = attempt(goal, answered ? std::max(1u, remaining_ms() / 4) : remaining_ms());
    if (t != Try::Sat || stop_) break;
  }
  if (stop_ || (t == Try::Unknown && answered == 0)) return o;
  // Unsat after blocking models is no proof: those models exist.
  o.proves = t == Try::Unsat && blocked.empty();
  if (o.proves) {
    o.text = "unsat";
    return o;
  }
  if (why_not.empty()) {
    o.text = "sat, not replayed";
    o.unknown = not_replayed;
    return o;
  }
  // Differences under the source's default zero signs or association order that another allowed choice
  // of the source answers (or may answer): this query cannot be proved, and nothing here refutes it.
  const std::string then = t == Try::Unsat  ? "then no other model"
                           : t == Try::Sat  ? "none a counterexample"
                                            : "then " + o.unknown + " looking for another";
  o.text = "sat, answered by the source's fast-math choices";
  o.unknown = why_not + " (" + std::to_string(answered) + (answered == 1 ? " model" : " models") + " of Z3, " +
              then + ")";
  {
    std::lock_guard<std::mutex> g(m_);
    if (fm_unknown_.empty()) {
      fm_unknown_ = "query " + std::to_string(static_cast<int>(j.q)) + " \"" + query_name(j.q) + "\"";
      if (j.q == Q::Values)
        fm_unknown_ += " " + element_subject(src_.type(src_.body(sb_).result_types[j.result]), j.result, j.element);
      fm_unknown_ += ": " + o.unknown;
    }
  }
  // The check can no longer be PROVED; only another query's refutation could still change the verdict,
  // and that is not worth the rest of the budget.
  stop_all();
  return o;
}

Outcome Checker::solve_plain(const Expr& goal, Q q) {
  Outcome o;
  if (smt::current_context()->dead()) throw smt::ContextAbandoned();
  // Query 2 only decides the vacuous case, so it gets a quarter of what is left.
  smt::Solver s(std::max(1u, q == Q::Precondition ? remaining_ms() / 4 : remaining_ms()));
  s.add(goal);
  for (const Expr& fact : transc::facts_for({&goal, 1})) s.add(fact);
  if (opts_.emit_smt2) o.smt2 = s.to_smt2();
  ++solver_calls_;
  const smt::Result r = s.check();
  charge(s.units());
  o.text = r == smt::Result::Sat ? "sat" : r == smt::Result::Unsat ? "unsat" : "unknown";
  if (r == smt::Result::Unknown)
    o.unknown = stop_ && !out_of_time_ ? "stopped" : "solver: " + (out_of_time_ ? "timeout" : s.reason_unknown());
  if (q == Q::Precondition) {
    o.sat = r == smt::Result::Sat;
    if (r == smt::Result::Unsat) o.text = "unsat (source always UB)";
  } else {  // loops: sat means a defined input keeps a loop running past the bound
    o.proves = r == smt::Result::Unsat;
    if (r == smt::Result::Sat)
      o.unknown = "a while loop may run past the unroll bound of " + std::to_string(opts_.while_unroll) + " iterations";
  }
  return o;
}

Outcome Checker::run_job(const Job& j, const Encoded& e, int from) {
  if (auto t = trivial(j, e)) return *t;
  switch (j.q) {
    // Past the unroll bound the encoded state is not the program's, and neither is any UB computed
    // from it: only where the source's loops finished is its encoded UB its real UB. So "always UB"
    // needs every loop finished (query 2), and a source loop past the bound is UNKNOWN whatever the
    // encoded UB says (query 5).
    case Q::Precondition: return solve_plain(!e.src.ub || e.src.unfinished, j.q);
    case Q::Loops: return solve_plain(e.src.unfinished || (!e.src.ub && e.tgt.unfinished), j.q);
    case Q::TargetUB:
    case Q::Values: return solve_refuting(j, refuting_stages(j, e), e, from);
  }
  return {};
}

void Checker::group(const Encoded& e) {
  smt::CanonicalMap<size_t> by_formula;  // the first stage up to renaming -> its group
  for (size_t k = 0; k < jobs_.size() && !stop_; ++k) {
    if (auto t = trivial(jobs_[k], e)) {
      out_[k] = std::move(*t);
      out_[k].done = true;
      continue;
    }
    const Q q = jobs_[k].q;
    if (q != Q::Values) {
      groups_.push_back({k});
      continue;
    }
    // Grouped by the first stage: only a proof at that stage carries over to the group.
    auto [g, fresh] = by_formula.emplace(refuting_stages(jobs_[k], e).front().canonical(), groups_.size());
    if (fresh) groups_.push_back({k});
    else groups_[*g].push_back(k);
  }
}

void Checker::retry(size_t k, int from) {
  std::lock_guard<std::mutex> g(retry_m_);
  retry_.emplace_back(k, from);
}

bool Checker::run_one(size_t k, int from, const Encoded& e, Outcome* out) {
  const auto t0 = clock::now();
  Outcome o = run_job(jobs_[k], e, from);
  o.ms = ms_since(t0);
  if (o.retry_from >= 0) {
    retry(k, o.retry_from);
    return false;
  }
  o.done = true;
  if (out) *out = o;
  out_[k] = std::move(o);
  return !smt::current_context()->dead();
}

void Checker::run_group(size_t g, const Encoded& e) {
  const std::vector<size_t>& members = groups_[g];
  for (size_t m = 0; m < members.size() && !stop_; ++m) {
    Outcome o;
    if (!run_one(members[m], 0, e, &o)) {
      // The context died: the rest of the group runs again in a new one.
      for (size_t f = m + 1; f < members.size(); ++f) retry(members[f], 0);
      return;
    }
    if (!(m == 0 && o.proves && o.stage == 0)) continue;
    // The representative is unsat, so is every query that is the same formula up to renaming.
    for (size_t f = 1; f < members.size(); ++f) {
      out_[members[f]].done = out_[members[f]].proves = true;
      out_[members[f]].text = "unsat (same formula as another element)";
    }
    return;
  }
}

void Checker::worker(bool main) {
  // A check that overran its budget takes the worker's Z3 context with it (smt::Context::dead): the
  // worker then encodes again in a new context, asks again the queries the dead context left (only
  // the worker whose context died queues them), and goes on with the remaining groups.
  for (bool first = true;; first = false) {
    std::unique_ptr<smt::Context> made;
    try {
      made = std::make_unique<smt::Context>();
    } catch (const std::exception& ex) {  // out of memory (Z3's cap or the process's)
      {
        std::lock_guard<std::mutex> g(m_);
        if (error_.empty()) error_ = std::string(ex.what()).find("out of memory") != std::string::npos ||
                                             dynamic_cast<const std::bad_alloc*>(&ex)
                                         ? "out of memory making a Z3 context"
                                         : ex.what();
      }
      stop_all();
      return;
    }
    smt::Context& ctx = *made;
    {
      std::lock_guard<std::mutex> g(m_);
      live_.push_back(&ctx);
    }
    try {
      const Encoded e = encode();
      if (main && first) {
        group(e);
        // Helpers only start when there is solver work to share.
        if (opts_.threads > 1 && groups_.size() > 1)
          for (unsigned t = 1; t < opts_.threads; ++t)
            helpers_.emplace_back([this] {
              // A helper's wall-clock events decide this check's outcome too: passed on to the caller.
              const uint64_t before = smt::nondeterministic_events_here();
              worker(false);
              helper_events_ += smt::nondeterministic_events_here() - before;
            });
      }
      while (!stop_ && !ctx.dead()) {
        std::pair<size_t, int> again{0, -1};
        {
          std::lock_guard<std::mutex> g(retry_m_);
          if (!retry_.empty()) again = retry_.front(), retry_.erase(retry_.begin());
        }
        if (again.second < 0) break;
        run_one(again.first, again.second, e);
      }
      while (!stop_ && !ctx.dead()) {
        const size_t g = next_++;
        if (g >= groups_.size()) break;
        run_group(g, e);
      }
    } catch (const std::bad_alloc&) {
      if (!stop_) {
        {
          std::lock_guard<std::mutex> g(m_);
          if (error_.empty()) error_ = "out of memory";
        }
        stop_all();
      }
    } catch (const smt::ContextAbandoned&) {
      // a safety net (jobs stop at a dead context): the queries left are undecided, so no proof
    } catch (const std::exception& ex) {
      // Encoding stopped by the deadline (or by another worker's verdict) is no encoding error.
      if (!stop_ && !ctx.dead()) {
        {
          std::lock_guard<std::mutex> g(m_);
          if (error_.empty()) error_ = ex.what();
        }
        stop_all();
      }
    }
    {
      std::lock_guard<std::mutex> g(m_);
      live_.erase(std::find(live_.begin(), live_.end(), &ctx));
    }
    if (!ctx.dead() || stop_) return;
    {
      std::lock_guard<std::mutex> g(retry_m_);
      if (retry_.empty() && next_.load() >= groups_.size()) return;
    }
  }
}

Verdict Checker::run() {
  try {
    plan();
  } catch (const std::bad_alloc&) {
    jobs_.clear();
    out_.clear();
    smt::note_nondeterministic_event();  // memory: other threads' allocations count too
    Verdict v;
    v.v = Unknown{"memory budget: out of memory planning " + std::to_string(opts_.memory_mb) + " MB (--memory-mb)"};
    return v;
  }
  std::thread dog([this] { watchdog(); });
  worker(true);  // the main thread is worker 0 and starts the helpers
  for (std::thread& t : helpers_) t.join();
  smt::pass_nondeterministic_events(helper_events_.load());
  {
    std::lock_guard<std::mutex> g(dog_m_);
    finished_ = true;
  }
  dog_cv_.notify_all();
  dog.join();
  // Past the wall-clock deadline (the safety net of a deterministic budget): planning, folding or a
  // query may have been cut by the clock, so the outcome may depend on the load.
  if (out_of_time_ || clock::now() > deadline_) smt::note_nondeterministic_event();
  return verdict();
}

Verdict Checker::verdict() {
  Verdict v;
  auto subject = [&](int r, int64_t e) {
    return element_subject(src_.type(src_.body(sb_).result_types[r]), r, e);
  };
  // Consecutive elements never run are one entry (a check of 16M elements stopped by its deadline would
  // otherwise spend longer writing their log than checking).
  auto not_run = [&](int r, int64_t first, int64_t last) {
    QueryLog q{4, query_name(Q::Values), subject(r, first), "not run", 0, last - first + 1};
    if (last > first) {
      const std::string to = subject(r, last);
      q.subject.replace(q.subject.find(" element "), 9, " elements ");
      q.subject += " to " + to.substr(to.find('['));
    }
    v.log.push_back(std::move(q));
  };
  for (size_t k = 0; k < jobs_.size(); ++k) {
    const Job& j = jobs_[k];
    const Outcome& o = out_[k];
    if (j.q == Q::Loops)  // after the planned elements, those plan() did not reach
      for (const Unplanned& r : unplanned_) not_run(r.result, r.first, r.last);
    if (j.q == Q::Values && !o.done && j.element >= 0) {
      size_t e = k;
      while (e + 1 < jobs_.size() && jobs_[e + 1].q == Q::Values && jobs_[e + 1].result == j.result &&
             jobs_[e + 1].element >= 0 && !out_[e + 1].done)
        ++e;
      not_run(j.result, j.element, jobs_[e].element);
      k = e;
      continue;
    }
    const std::string subj = j.q == Q::Values ? subject(j.result, j.element) : "";
    v.log.push_back({static_cast<int>(j.q), query_name(j.q), subj, o.text, o.ms});
    if (opts_.emit_smt2 && !o.smt2.empty())
      v.smt2 += "; query " + std::to_string(static_cast<int>(j.q)) + " " + query_name(j.q) + " " + subj + "\n" +
                o.smt2 + "(reset)\n";
  }
  v.solver_calls = solver_calls_;
  if (refuted_) {
    v.v = std::move(*refuted_);
    return v;
  }
  if (!error_.empty()) {
    if (error_.find("out of memory") != std::string::npos) smt::note_nondeterministic_event();
    if (error_.find("out of memory") != std::string::npos)
      v.v = Unknown{opts_.memory_mb ? "memory budget of " + std::to_string(opts_.memory_mb) +
                                          " MB exhausted (--memory-mb): " + error_
                                    : "out of memory (no --memory-mb budget): " + error_};
    else
      v.v = Unknown{"cannot encode: " + error_};
    return v;
  }
  if (!fm_unknown_.empty()) {
    v.v = Unknown{fm_unknown_};
    return v;
  }
  const Outcome& pre = out_[0];
  if (pre.done && pre.unknown.empty() && !pre.sat) {
    v.v = Proved{"the source has undefined behaviour on every input (refinement holds vacuously)"};
    return v;
  }
  const std::string out_of_time = "time budget of " + std::to_string(opts_.timeout_ms) + " ms exhausted";
  for (size_t k = 1; k < jobs_.size(); ++k) {
    const Outcome& o = out_[k];
    if (o.done && o.proves) continue;
    std::string what = "query " + std::to_string(static_cast<int>(jobs_[k].q)) + " \"" + query_name(jobs_[k].q) + "\"";
    if (jobs_[k].q == Q::Values) what += " " + subject(jobs_[k].result, jobs_[k].element);
    const std::string why = !o.unknown.empty() ? o.unknown : out_of_time_ ? out_of_time : std::string("not decided");
    v.v = Unknown{what + ": " + why};
    return v;
  }
  if (!unplanned_.empty()) {
    int64_t n = 0;
    for (const Unplanned& r : unplanned_) n += r.last - r.first + 1;
    v.v = Unknown{"query 4 \"" + std::string(query_name(Q::Values)) + "\" " + subject(unplanned_[0].result, unplanned_[0].first) +
                  ": " + out_of_time + " (" + std::to_string(n) + " element queries not even planned)"};
    return v;
  }
  if (!fm_.no_proof.empty()) {
    v.v = Unknown{"every query holds, but " + fm_.no_proof};
    return v;
  }
  v.v = Proved{pre.unknown.empty() ? "" : "query 2 was not decided; refinement does not depend on it"};
  return v;
}

std::string signature_mismatch(const Program& src, BodyId sb, const Program& tgt, BodyId tb) {
  const Body& a = src.body(sb);
  const Body& b = tgt.body(tb);
  if (a.params.size() != b.params.size())
    return "the source takes " + std::to_string(a.params.size()) + " inputs, the target " +
           std::to_string(b.params.size());
  for (size_t k = 0; k < a.params.size(); ++k)
    if (src.type_of(a.params[k]) != tgt.type_of(b.params[k]))
      return "input " + std::to_string(k) + " is " + to_string(src.type_of(a.params[k])) + " in the source, " +
             to_string(tgt.type_of(b.params[k])) + " in the target";
  if (a.result_types.size() != b.result_types.size())
    return "the source returns " + std::to_string(a.result_types.size()) + " results, the target " +
           std::to_string(b.result_types.size());
  for (size_t k = 0; k < a.result_types.size(); ++k)
    if (src.type(a.result_types[k]) != tgt.type(b.result_types[k]))
      return "result " + std::to_string(k) + " is " + to_string(src.type(a.result_types[k])) + " in the source, " +
             to_string(tgt.type(b.result_types[k])) + " in the target";
  return "";
}

/// Why the pair is too large to encode within the memory budget (nullopt: it fits).
std::optional<std::string> over_budget(const Program& src, BodyId sb, const Program& tgt, BodyId tb,
                                       const CheckOptions& opts) {
  if (opts.memory_mb == 0) return std::nullopt;
  const EncodingEstimate e = estimate_encoding(src, sb, tgt, tb, opts.threads, opts.while_unroll);
  if (e.bytes <= (opts.memory_mb << 20)) return std::nullopt;
  return "budget: the encoding would need about " + megabytes(e.bytes) + " (" + std::to_string(e.terms) +
         " terms, " + std::to_string(e.queries) + " element queries; largest: " + e.largest +
         "), over the memory budget of " + std::to_string(opts.memory_mb) +
         " MB (--memory-mb); not checked symbolically, only by the interpreter fast pass";
}

}  // namespace

const char* verdict_word(const Verdict& v) {
  switch (v.v.index()) {
    case 0: return "PROVED";
    case 1: return "REFUTED";
    case 2: return "UNKNOWN";
    default: return "ERROR";
  }
}

Verdict check_refinement(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const CheckOptions& opts) {
  const auto start = clock::now();
  Verdict v;
  if (sb == kNone || tb == kNone || sb >= src.num_bodies() || tb >= tgt.num_bodies()) {
    v.v = Invalid{"no entry function"};
    return v;
  }
  const std::string mismatch = signature_mismatch(src, sb, tgt, tb);
  v.log.push_back({1, "types and shapes agree", "", mismatch.empty() ? "ok" : "no: " + mismatch, 0});
  if (!mismatch.empty()) {
    v.v = Invalid{"signature mismatch: " + mismatch};
    v.ms = ms_since(start);
    return v;
  }
  bool source_defined = false;
  // A fast-pass difference that another allowed choice of the source answers (or may answer): the check
  // can no longer be PROVED, but Z3 may still find a refutation.
  std::string unconfirmed;
  if (opts.fast_pass_runs > 0) {
    const auto t0 = clock::now();
    FastPass fp = fast_pass(src, sb, tgt, tb, opts, std::min(250.0, opts.timeout_ms / 10.0));
    v.log.push_back({0, "fast pass", "",
                     (fp.refuted ? "counterexample in " : "no counterexample in ") + std::to_string(fp.runs) + " runs" +
                         (fp.repeats ? " (" + std::to_string(fp.repeats) + " repeated inputs skipped)" : "") +
                         (fp.refuted || fp.unconfirmed.empty() ? "" : " (differences the source's fast-math choices answer or may answer)"),
                     ms_since(t0)});
    if (auto& r = fp.refuted) {
      r->query = r->result < 0 ? 3 : 4;
      r->query_name = query_name(r->result < 0 ? Q::TargetUB : Q::Values);
      v.v = std::move(*r);
      v.ms = ms_since(start);
      return v;
    }
    source_defined = fp.source_defined;
    unconfirmed = fp.unconfirmed;
  }
  // The exhaustive backend: elementwise functions of narrow inputs are decided by running every input.
  // Up to 2^24 cases (a fraction of a second) the sweep runs first; a larger one (2^32 cases: a minute)
  // runs only when Z3, given half of the budget but at most 5 s, did not decide (Z3 proves most rewrites
  // at once, and
  // the encoder's double-rounding lemma decides the f16/bf16-through-f32 forms).
  // With emit_smt2 the caller wants the solver's queries: no sweep answers in their place.
  const bool sweepable = !opts.emit_smt2 && exhaustive_scope(src, sb, tgt, tb).empty();
  int in_bits = 0;
  for (ValueId pv : src.body(sb).params) in_bits += dtype_bits(src.type_of(pv).dtype);
  const uint64_t budget_ms = opts.deterministic ? uint64_t{smt::kWallFactor} * opts.timeout_ms + smt::kWallSlackMs
                                                : opts.timeout_ms;
  // Runs the sweep until `until` ms of the budget: a verdict when it decided, else nullopt (logged).
  auto sweep = [&](std::vector<QueryLog>& log, uint64_t until) -> std::optional<Verdict> {
    const auto t0 = clock::now();
    ExhaustiveOptions xo;
    xo.threads = std::max(1u, opts.threads);
    xo.deadline = start + std::chrono::milliseconds(until);
    ExhaustiveResult x = check_exhaustive(src, sb, tgt, tb, xo);
    const std::string cases = exhaustive_cases_text(x.bits);
    Verdict out;
    switch (x.kind) {
      case ExhaustiveResult::Kind::Proved:
        log.push_back({0, "exhaustive", "", "no difference in " + cases + " (every input)", ms_since(t0)});
        out.v = Proved{"exhaustive, " + cases};
        break;
      case ExhaustiveResult::Kind::Refuted: {
        // Replay in the reference interpreter: every element of each input is the differing case.
        Refuted r;
        r.found_by = "exhaustive (" + cases + ")";
        const std::vector<ValueId>& ps = src.body(sb).params;
        for (size_t k = 0; k < ps.size(); ++k) r.inputs.push_back(Tensor::filled(src.type_of(ps[k]), x.input_bits[k]));
        InterpOptions io;
        io.kernels = opts.kernels;
        r.src = run_body(src, sb, r.inputs, io);
        r.tgt = run_body(tgt, tb, r.inputs, io);
        bool replayed = r.src.status == RunStatus::Ok;
        if (replayed && r.tgt.status == RunStatus::Ok) {
          replayed = false;
          for (size_t k = 0; k < r.src.results.size() && !replayed; ++k)
            if (int64_t e = first_difference(r.src.results[k], r.tgt.results[k]); e >= 0) {
              r.result = static_cast<int>(k);
              r.element = e;
              replayed = true;
            }
        }
        log.push_back({0, "exhaustive", "", replayed ? "counterexample, replayed" : "counterexample, not replayed",
                       ms_since(t0)});
        if (!replayed) {
          out.v = Unknown{"internal disagreement: the exhaustive sweep's difference does not replay in the interpreter"};
          break;
        }
        r.query = r.result < 0 ? 3 : 4;
        r.query_name = query_name(r.result < 0 ? Q::TargetUB : Q::Values);
        out.v = std::move(r);
        break;
      }
      case ExhaustiveResult::Kind::Inconclusive:
        log.push_back({0, "exhaustive", "", x.reason, ms_since(t0)});
        return std::nullopt;
      case ExhaustiveResult::Kind::NotApplicable:
        return std::nullopt;
    }
    out.log = log;
    out.ms = ms_since(start);
    return out;
  };
  // The sweep first, with half of the budget: 2^24 cases can take seconds, and a pair Z3 proves at
  // once ended UNKNOWN when the sweep took the whole budget (found by an audit, 2026-12-07).
  if (sweepable && in_bits <= 24)
    if (std::optional<Verdict> x = sweep(v.log, budget_ms / 2)) return *x;
  if (std::optional<std::string> why = over_budget(src, sb, tgt, tb, opts)) {
    v.v = Unknown{*why};
    v.log.push_back({0, "memory budget", "", "estimate over the budget: no encoding", 0});
    v.ms = ms_since(start);
    return v;
  }
  smt::set_memory_limit_mb(opts.memory_mb);
  // Not in deterministic mode (`ptir prove`): whether a minute-long sweep finishes depends on the machine.
  const bool sweep_after = sweepable && in_bits > 24 && !opts.deterministic;
  CheckOptions zo = opts;
  if (sweep_after) zo.timeout_ms = std::max(1u, std::min(opts.timeout_ms / 2, 5000u));
  Checker c(src, sb, tgt, tb, zo, source_defined, start);
  Verdict rest = c.run();
  if (rest.proved() && !unconfirmed.empty()) rest.v = Unknown{unconfirmed};
  rest.log.insert(rest.log.begin(), v.log.begin(), v.log.end());
  if (sweep_after && rest.unknown()) {
    std::vector<QueryLog> log = rest.log;
    if (std::optional<Verdict> x = sweep(log, budget_ms)) {
      x->solver_calls = rest.solver_calls;
      return *x;
    }
    rest.log = log;
  }
  rest.ms = ms_since(start);
  return rest;
}

int abandoned_checks_running() { return smt::abandoned_checks_running(); }

Verdict check_refinement(const Program& src, const Program& tgt, const CheckOptions& opts) {
  return check_refinement(src, src.entry(), tgt, tgt.entry(), opts);
}

}  // namespace ptir::verify
