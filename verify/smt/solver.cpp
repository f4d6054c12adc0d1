// Solver and Model over Z3's C API, and the solver hosts that run the checks.
//
// Why hosts: Z3's timeout and Z3_interrupt only set a flag that Z3 polls, and several phases of a
// check poll it rarely (measured with Z3 4.8.12 on a bit-blasted float formula: bit-blasting ~0.6-2.5
// s, the simplifier after it 0.7-1.6 s, the SAT solver's SCC/equivalence elimination ~2 s, its
// asymmetric branching up to 5 s). A thread inside Z3_solver_check can therefore be stuck seconds
// past its budget, and a caller waiting for it with it. So the check runs on the context's host thread
// while the owning thread waits with a deadline; when the host does not answer in time, the owning
// thread interrupts it and abandons it together with the Z3 context (which the host is using): the
// host finishes its check on its own (Z3 stops at its next poll), deletes the context and is joined
// by the reaper, when the next host is abandoned or at the latest when the process exits (before Z3's
// own static state goes: a host returning from Z3 then touches Z3's timer pool, so it must not
// outlive it). An interrupted context is abandoned too, since Z3 keeps it cancelled. The check runs in the same context the formula was made in: translating it
// into another context renumbers its terms, and Z3's run time on a hard query depends on the
// numbering (it orders operands and iterates hash tables by term id; +-25% on a corpus query).
#include "verify/smt/solver.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include <z3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <stdexcept>
#include <thread>

namespace ptir::smt {
namespace {
Z3_context C() {
  Context* cx = current_context();
  if (!cx) throw std::logic_error("smt: no Z3 context on this thread");
  if (cx->dead()) throw ContextAbandoned();
  return cx->raw();
}

/// How long past its timeout a check is waited for before it is abandoned (Z3 usually answers a
/// timeout within milliseconds, sometimes tens of them); well inside the 10% + 100 ms a budget may be
/// exceeded by.
std::chrono::milliseconds grace(unsigned timeout_ms) { return std::chrono::milliseconds(40 + timeout_ms / 50); }

/// Set when the process exits: abandoned hosts then leave their contexts to the operating system.
std::atomic<bool> g_exiting{false};
}  // namespace

// ---- solver hosts ----

struct Context::Host {
  enum class State : uint8_t { Idle, Busy, Done, Quit };

  Z3_context ctx;  ///< the owning Context's; the host's own once abandoned
  std::thread thread;
  std::mutex m;
  std::condition_variable cv;
  State state = State::Idle;
  bool abandoned = false;  ///< the host owns ctx: delete it after the running check
  bool ctx_gone = false;   ///< ctx is being (or was) deleted: no more Z3_interrupt on it
  bool finished = false;   ///< the thread has left its loop (joinable at once)
  Z3_solver solver = nullptr;  ///< the job (made and referenced by the owning thread)
  Z3_lbool result = Z3_L_UNDEF;

  explicit Host(Z3_context c) : ctx(c) { thread = std::thread([this] { loop(); }); }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  /// Ends the thread of an idle host (its context stays: the caller deletes or keeps it).
  void quit_and_join() {
    {
      std::lock_guard<std::mutex> hg(m);
      state = State::Quit;
      cv.notify_all();
    }
    thread.join();
  }

  void loop() {
    std::unique_lock<std::mutex> lk(m);
    for (;;) {
      cv.wait(lk, [&] { return state == State::Busy || state == State::Quit; });
      if (state == State::Quit) break;
      lk.unlock();
      const Z3_lbool r = Z3_solver_check(ctx, solver);
      lk.lock();
      result = r;
      if (abandoned) break;
      state = State::Done;
      cv.notify_all();
    }
    if (abandoned && !g_exiting) {  // delete ctx, with the abandoned Context's terms, unlocked:
      ctx_gone = true;  // freeing a large context takes a while, and the reaper looks at `finished`
      lk.unlock();
      Z3_del_context(ctx);
      lk.lock();
    }
    finished = true;
    cv.notify_all();  // reap_abandoned_checks may be waiting
  }
};

namespace {

/// Abandoned hosts, joined once they finish (and all of them when the process exits: a function-local
/// static made after Z3's own static state, so destroyed before it).
class Reaper {
 public:
  void add(std::shared_ptr<Context::Host> h) {
    std::vector<std::shared_ptr<Context::Host>> done;
    {
      std::lock_guard<std::mutex> g(m_);
      for (size_t k = 0; k < zombies_.size();) {
        bool fin;
        {
          std::lock_guard<std::mutex> hg(zombies_[k]->m);
          fin = zombies_[k]->finished;
        }
        if (fin) {  // removed in place: the rest stay in the order they were abandoned
          done.push_back(std::move(zombies_[k]));
          zombies_.erase(zombies_.begin() + static_cast<std::ptrdiff_t>(k));
        } else {
          ++k;
        }
      }
      zombies_.push_back(std::move(h));
    }
    for (auto& z : done) z->thread.join();
  }
  /// Waits for every abandoned host to finish its check and delete its context, and joins it.
  int reap_all() {
    std::vector<std::shared_ptr<Context::Host>> all;
    {
      std::lock_guard<std::mutex> g(m_);
      all.swap(zombies_);
    }
    return join(all, true);
  }
  /// Joins the finished hosts, and the oldest running ones while more than `keep_running` run.
  int reap_finished(int keep_running) {
    std::vector<std::shared_ptr<Context::Host>> done, running;
    {
      std::lock_guard<std::mutex> g(m_);
      for (auto& z : zombies_) {  // in the order they were abandoned (add() keeps it)
        std::lock_guard<std::mutex> hg(z->m);
        (z->finished ? done : running).push_back(std::move(z));
      }
      const size_t keep = std::min(running.size(), static_cast<size_t>(std::max(keep_running, 0)));
      const auto first_kept = running.end() - static_cast<std::ptrdiff_t>(keep);
      done.insert(done.end(), std::make_move_iterator(running.begin()), std::make_move_iterator(first_kept));
      zombies_.assign(std::make_move_iterator(first_kept), std::make_move_iterator(running.end()));
    }
    return join(done, false);
  }
  int running() {
    std::lock_guard<std::mutex> g(m_);
    int n = 0;
    for (auto& z : zombies_) {
      std::lock_guard<std::mutex> hg(z->m);
      n += !z->finished;
    }
    return n;
  }
  ~Reaper() {
    // Hosts still running when the process exits: interrupted, joined, and their contexts deleted here
    // (a host that sees g_exiting leaves its context to this destructor), so that LeakSanitizer's check
    // at exit finds none of them (fuzz_equiv leaves up to one running from input to input).
    g_exiting = true;
    for (auto& z : zombies_) {
      {
        std::lock_guard<std::mutex> hg(z->m);
        if (!z->ctx_gone) Z3_interrupt(z->ctx);
      }
      z->thread.join();
      if (!z->ctx_gone) {
        z->ctx_gone = true;
        Z3_del_context(z->ctx);
      }
    }
  }

 private:
  /// Waits until each host has finished (deleted its context) and joins it; `interrupt`: interrupts
  /// the running ones first (they were interrupted when abandoned; again is harmless).
  static int join(std::vector<std::shared_ptr<Context::Host>>& hosts, bool interrupt) {
    for (auto& z : hosts) {
      {
        std::unique_lock<std::mutex> hg(z->m);
        if (interrupt && !z->ctx_gone && !z->finished) Z3_interrupt(z->ctx);
        z->cv.wait(hg, [&] { return z->finished; });
      }
      z->thread.join();
    }
    return static_cast<int>(hosts.size());
  }

  std::mutex m_;
  std::vector<std::shared_ptr<Context::Host>> zombies_;
};

Reaper& reaper() {
  static Reaper r;
  return r;
}

}  // namespace

int abandoned_checks_running() { return reaper().running(); }
int reap_abandoned_checks() { return reaper().reap_all(); }
int reap_finished_checks(int keep_running) { return reaper().reap_finished(keep_running); }

namespace {
std::atomic<uint64_t> g_nondeterministic{0};
thread_local uint64_t t_nondeterministic = 0;
}
void note_nondeterministic_event() {
  g_nondeterministic.fetch_add(1, std::memory_order_relaxed);
  ++t_nondeterministic;
}
uint64_t nondeterministic_events() { return g_nondeterministic.load(std::memory_order_relaxed); }
uint64_t nondeterministic_events_here() { return t_nondeterministic; }
void pass_nondeterministic_events(uint64_t n) { t_nondeterministic += n; }

// ---- reused contexts (ContextReuse) ----

namespace {
thread_local bool t_reuse = false;

/// Idle Z3 contexts with their solver hosts (nullptr: none started yet) and resource counters. A
/// function-local static made after Z3's own static state, so destroyed (and its contexts deleted)
/// before it, like the Reaper.
class Pool {
 public:
  struct Entry {
    Z3_context ctx;
    std::shared_ptr<Context::Host> host;
    uint64_t rlimit_seen;
  };
  static constexpr size_t kMax = 4;
  std::optional<Entry> take() {
    std::lock_guard<std::mutex> g(m_);
    if (idle_.empty()) return std::nullopt;
    Entry e = std::move(idle_.back());
    idle_.pop_back();
    return e;
  }
  bool give(Entry e) {
    std::lock_guard<std::mutex> g(m_);
    if (idle_.size() >= kMax) return false;
    idle_.push_back(std::move(e));
    return true;
  }
  int size() {
    std::lock_guard<std::mutex> g(m_);
    return static_cast<int>(idle_.size());
  }
  ~Pool() {
    for (Entry& e : idle_) {
      if (e.host) e.host->quit_and_join();
      Z3_del_context(e.ctx);
    }
  }

 private:
  std::mutex m_;
  std::vector<Entry> idle_;
};

Pool& pool() {
  static Pool p;
  return p;
}
}  // namespace

ContextReuse::ContextReuse() : prev_(t_reuse) { t_reuse = true; }
ContextReuse::~ContextReuse() { t_reuse = prev_; }
int pooled_contexts() { return pool().size(); }

bool Context::take_pooled() {
  if (!t_reuse) return false;
  std::optional<Pool::Entry> e = pool().take();
  if (!e) return false;
  ctx_ = e->ctx;
  host_ = std::move(e->host);
  rlimit_seen_ = e->rlimit_seen;
  return true;
}

bool Context::give_to_pool() {
  if (!t_reuse || dead_ || interrupts_.load() != 0 || !pow2_divisors.empty()) return false;
  std::shared_ptr<Host> h;
  {
    std::lock_guard<std::mutex> g(host_m_);
    if (host_) {
      std::lock_guard<std::mutex> hg(host_->m);
      if (host_->state != Host::State::Idle) return false;  // a check in flight: never reuse
    }
    h = host_;
  }
  // The memo tables' references go (the terms they kept die with the last reference, as in a
  // deleted context); anything else still referenced only costs memory.
  for (const auto& [k, v] : simplify_memo) {
    Z3_dec_ref(ctx_, k);
    Z3_dec_ref(ctx_, v);
  }
  simplify_memo.clear();
  for (const auto& [k, v] : origins) {
    Z3_dec_ref(ctx_, k);
    Z3_dec_ref(ctx_, v.first);
  }
  origins.clear();
  for (const auto& [k, v] : fold_leaves) {
    Z3_dec_ref(ctx_, k);
    for (Z3_ast l : v.second) Z3_dec_ref(ctx_, l);
  }
  fold_leaves.clear();
  fold_leaves_total = 0;
  if (pool().give({ctx_, h, rlimit_seen_})) {
    std::lock_guard<std::mutex> g(host_m_);
    host_.reset();
    return true;
  }
  return false;
}

std::shared_ptr<Context::Host> Context::host() {
  std::lock_guard<std::mutex> g(host_m_);
  if (!host_) host_ = std::make_shared<Host>(ctx_);
  return host_;
}

void Context::abandon() {
  std::shared_ptr<Host> h;
  {
    std::lock_guard<std::mutex> g(host_m_);
    h.swap(host_);
    std::lock_guard<std::mutex> hg(h->m);
    h->abandoned = true;
    dead_ = true;
    if (h->state == Host::State::Done) {  // it answered after all; nothing runs: end it now
      h->state = Host::State::Quit;
      h->cv.notify_all();
    }
  }
  reaper().add(std::move(h));
}

void Context::interrupt() {
  std::lock_guard<std::mutex> g(host_m_);
  if (dead_) return;  // the context may be gone
  ++interrupts_;
  Z3_interrupt(ctx_);
  if (host_) {
    std::lock_guard<std::mutex> hg(host_->m);  // wakes a waiting check()
    host_->cv.notify_all();
  }
}

void Context::stop_host() {
  std::shared_ptr<Host> h;
  {
    std::lock_guard<std::mutex> g(host_m_);
    h.swap(host_);
  }
  if (h) h->quit_and_join();
}

// ---- Model ----

Model::Model(Z3_model m) : m_(m) { Z3_model_inc_ref(C(), m_); }
Model::~Model() {
  if (Z3_context c = live_context()) Z3_model_dec_ref(c, m_);
}
Expr Model::eval(const Expr& e) const {
  Z3_ast out = nullptr;
  if (!Z3_model_eval(C(), m_, e.raw(), true, &out) || !out) throw std::runtime_error("z3: model evaluation failed");
  return Expr::wrap(out).simplify();
}

// ---- Solver ----

Solver::Solver(unsigned budget_ms) {
  C();  // a live context
  budget_ms_ = budget_ms ? budget_ms : 1;
  const uint64_t wall = static_cast<uint64_t>(budget_ms_) * kWallFactor + kWallSlackMs;
  timeout_ms_ = static_cast<unsigned>(std::min<uint64_t>(wall, std::numeric_limits<unsigned>::max()));
}

namespace {
/// The budget parameters of one check: `units` of rlimit, the wall-clock net, no SIGINT handler.
void set_budget(Z3_solver s, uint64_t units, unsigned timeout_ms) {
  Z3_params p = Z3_mk_params(C());
  Z3_params_inc_ref(C(), p);
  Z3_params_set_uint(C(), p, Z3_mk_string_symbol(C(), "rlimit"),
                     static_cast<unsigned>(std::clamp<uint64_t>(units, 1, std::numeric_limits<unsigned>::max())));
  Z3_params_set_uint(C(), p, Z3_mk_string_symbol(C(), "timeout"), timeout_ms);
  // No SIGINT handler of Z3's during a check (its default, ctrl_c=true): it would turn a Ctrl-C into an
  // UNKNOWN ("canceled") check and let the command go on, and checks on several threads install and
  // restore it out of order. SIGINT keeps ptir's disposition (the default, or `ptir prove`'s partial report).
  Z3_params_set_bool(C(), p, Z3_mk_string_symbol(C(), "ctrl_c"), false);
  Z3_solver_set_params(C(), s, p);
  Z3_params_dec_ref(C(), p);
}
}  // namespace

namespace {
/// Z3's resource counter of the solver's context (cumulative over its checks).
uint64_t rlimit_count(Z3_solver s) {
  Z3_stats st = Z3_solver_get_statistics(C(), s);
  Z3_stats_inc_ref(C(), st);
  uint64_t n = 0;
  for (unsigned i = 0; i < Z3_stats_size(C(), st); ++i)
    if (std::strcmp(Z3_stats_get_key(C(), st, i), "rlimit count") == 0)
      n = Z3_stats_is_uint(C(), st, i) ? Z3_stats_get_uint_value(C(), st, i)
                                       : static_cast<uint64_t>(Z3_stats_get_double_value(C(), st, i));
  Z3_stats_dec_ref(C(), st);
  return n;
}
}  // namespace
Expr eliminate(std::span<const Expr> fs) {
  auto tac = [](const char* n) {
    Z3_tactic t = Z3_mk_tactic(C(), n);
    Z3_tactic_inc_ref(C(), t);
    return t;
  };
  auto then = [](Z3_tactic a, Z3_tactic b) {
    Z3_tactic t = Z3_tactic_and_then(C(), a, b);
    Z3_tactic_inc_ref(C(), t);
    Z3_tactic_dec_ref(C(), a);
    Z3_tactic_dec_ref(C(), b);
    return t;
  };
  Z3_tactic t = then(then(then(tac("simplify"), tac("propagate-values")), tac("solve-eqs")), tac("simplify"));
  Z3_goal g = Z3_mk_goal(C(), false, false, false);
  Z3_goal_inc_ref(C(), g);
  for (const Expr& f : fs) Z3_goal_assert(C(), g, f.raw());
  Z3_apply_result r = Z3_tactic_apply(C(), t, g);
  Z3_apply_result_inc_ref(C(), r);
  std::vector<Expr> out;
  const unsigned n = Z3_apply_result_get_num_subgoals(C(), r);
  std::vector<Expr> alts;
  for (unsigned k = 0; k < n; ++k) {
    Z3_goal sg = Z3_apply_result_get_subgoal(C(), r, k);
    std::vector<Expr> conj;
    for (unsigned i = 0; i < Z3_goal_size(C(), sg); ++i) conj.push_back(Expr::wrap(Z3_goal_formula(C(), sg, i)));
    alts.push_back(Expr::all(conj));
  }
  Z3_apply_result_dec_ref(C(), r);
  Z3_goal_dec_ref(C(), g);
  Z3_tactic_dec_ref(C(), t);
  // Several subgoals are a disjunction (none of these tactics splits, but the contract allows it).
  return Expr::any(alts);
}

Solver::~Solver() {
  if (Z3_context c = live_context()) {
    if (s_) Z3_solver_dec_ref(c, s_);
    if (quick_) Z3_solver_dec_ref(c, quick_);
  }
}
// Assertions are kept and given to a Z3 solver only when it runs: the first assertion into Z3's
// default solver builds its strategy (about 20 ms, mostly parameter lookups), which most queries
// never need (the quick try answers them).
void Solver::add(const Expr& e) { assertions_.push_back(e); }

Z3_solver Solver::full() {
  if (!s_) {
    s_ = Z3_mk_solver(C());
    Z3_solver_inc_ref(C(), s_);
    for (const Expr& a : assertions_) Z3_solver_assert(C(), s_, a.raw());
    in_full_ = assertions_.size();
  }
  for (; in_full_ < assertions_.size(); ++in_full_) Z3_solver_assert(C(), s_, assertions_[in_full_].raw());
  return s_;
}

Result Solver::check() {
  const uint64_t total = static_cast<uint64_t>(budget_ms_) * kRlimitPerMs;
  answered_ = nullptr;
  // 1. The plain SMT core with a small part of the budget (see the class comment), unless a float term
  // occurs: the core decides floats by lazy bit-blasting, far slower than the default solver's
  // bit-blasting tactics (a cast-chain rule took 4x as long with the try).
  uint64_t spent = 0;
  if (std::none_of(assertions_.begin(), assertions_.end(), [](const Expr& a) { return a.mentionsFloats(); })) {
    if (quick_) Z3_solver_dec_ref(C(), quick_);
    quick_ = Z3_mk_simple_solver(C());
    Z3_solver_inc_ref(C(), quick_);
    for (const Expr& a : assertions_) Z3_solver_assert(C(), quick_, a.raw());
    const Result q = run(quick_, std::min(total, kQuickUnits));
    spent = units_;
    if (q != Result::Unknown) {
      answered_ = quick_;
      return q;
    }
    // Interrupted, abandoned to the wall-clock net, or the whole budget spent: that is the answer.
    if (reason_ == "canceled" || current_context()->dead() || spent >= total) return q;
  }
  // 2. The default solver with the rest.
  const Result r = run(full(), total - spent);
  units_ += spent;
  if (r != Result::Unknown) answered_ = s_;
  return r;
}

Result Solver::run(Z3_solver solver, uint64_t units) {
  using clock = std::chrono::steady_clock;
  C();  // a live context
  set_budget(solver, units, timeout_ms_);
  Context* cx = current_context();
  reason_.clear();
  const uint64_t interrupts = cx->interrupts_.load();
  const auto start = clock::now();
  std::shared_ptr<Context::Host> h = cx->host();
  std::unique_lock<std::mutex> lk(h->m);
  h->solver = solver;
  h->state = Context::Host::State::Busy;
  h->cv.notify_all();
  auto done = [&] { return h->state == Context::Host::State::Done; };
  const auto limit = start + std::chrono::milliseconds(timeout_ms_) + grace(timeout_ms_);
  h->cv.wait_until(lk, limit, [&] { return done() || cx->interrupts_.load() != interrupts; });
  const bool interrupted = cx->interrupts_.load() != interrupts;
  if (interrupted || !done()) {
    // Interrupted, or past the budget and Z3 has not stopped: Z3 keeps an interrupted context
    // cancelled, so whether or not the check is still running, the context is finished. The host
    // takes it (and deletes it when its check returns).
    if (!done()) Z3_interrupt(h->ctx);
    lk.unlock();
    cx->abandon();
    reason_ = interrupted ? "canceled" : "timeout";  // the wall-clock safety net
    if (!interrupted) note_nondeterministic_event();
    units_ = 0;
    return Result::Unknown;
  }
  h->state = Context::Host::State::Idle;
  const Z3_lbool r = h->result;
  lk.unlock();
  const uint64_t seen = rlimit_count(solver);
  units_ = seen >= cx->rlimit_seen_ ? seen - cx->rlimit_seen_ : seen;
  cx->rlimit_seen_ = seen;
  switch (r) {
    case Z3_L_TRUE: return Result::Sat;
    case Z3_L_FALSE: return Result::Unsat;
    case Z3_L_UNDEF: break;
  }
  reason_ = Z3_solver_get_reason_unknown(C(), solver);
  // Z3's own wall timeout (the safety net, set with the rlimit) reports like the rlimit: tell them
  // apart by the clock.
  if (clock::now() - start >= std::chrono::milliseconds(timeout_ms_)) note_nondeterministic_event();
  // The deterministic budget ran out: the same word as the wall-clock net, callers treat both alike.
  // Z3 4.8 reports an exhausted rlimit as "canceled" (or "max. resource limit exceeded"); nobody
  // interrupted this check (that case returned above), so it is the budget or Z3's own wall timeout.
  if (reason_.find("resource") != std::string::npos || reason_ == "canceled" || reason_ == "timeout") reason_ = "timeout";
  return Result::Unknown;
}

std::unique_ptr<Model> Solver::model() const {
  if (!answered_) throw std::runtime_error("z3: no model (the last check was not sat)");
  return std::make_unique<Model>(Z3_solver_get_model(C(), answered_));
}
std::string Solver::reason_unknown() const { return reason_; }
std::string Solver::to_smt2() const {
  // A plain solver holding the assertions prints them (building the default one costs ~20 ms).
  Z3_solver t = Z3_mk_simple_solver(C());
  Z3_solver_inc_ref(C(), t);
  for (const Expr& a : assertions_) Z3_solver_assert(C(), t, a.raw());
  std::string s = Z3_solver_to_string(C(), t);
  Z3_solver_dec_ref(C(), t);
  return s + "(check-sat)\n";
}

void set_memory_limit_mb(uint64_t mb) {
  Z3_global_param_set("memory_max_size", std::to_string(mb).c_str());
}

}  // namespace ptir::smt
