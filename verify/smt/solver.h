// One satisfiability query: a Z3 solver with a timeout, its result, and the model of a `sat` answer.
// The timeout is a promise to the caller: check() returns within it (plus a few tens of milliseconds)
// even when Z3 itself does not stop in time (see smt::Context: the check runs on a solver host, and
// the context is abandoned to it when it overruns).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "verify/smt/expr.h"

typedef struct _Z3_solver* Z3_solver;
typedef struct _Z3_model* Z3_model;

namespace ptir::smt {

/// A model of a satisfiable query. Evaluation completes unconstrained variables with a default.
class Model {
 public:
  explicit Model(Z3_model m);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();
  /// The value of `e` in this model, as a numeral term.
  Expr eval(const Expr& e) const;

 private:
  Z3_model m_;
};

enum class Result : uint8_t { Sat, Unsat, Unknown };

/// Budgets are deterministic: a budget of B ms is Z3's resource limit (`rlimit`) of
/// B * kRlimitPerMs units, counted by Z3 in its own steps, so the same query gives the same answer on a
/// loaded CI machine and an idle workstation. kRlimitPerMs is calibrated on this project's queries
/// (docs/verification.md "Budgets": a typical bit-vector/float query spends 3,000-5,000 units per ms on
/// the 2-core reference machine). Wall time is only an outer safety net, B * kWallFactor + kWallSlackMs:
/// Z3 phases that count few units (bit-blasting a huge term) still end. The factor is 10, not 3: at a
/// load of 5 on 2 cores a query gets under half a core, and 3x let the net fire before the units ran out
/// (select_le_to_minimum went from PROVED to "Z3 overran its budget" under load).
inline constexpr uint64_t kRlimitPerMs = 5000;
inline constexpr unsigned kWallFactor = 10;
inline constexpr unsigned kWallSlackMs = 2000;

/// The quick first try of a check without float terms (Solver::check): up to this many units (4 ms' worth).
inline constexpr uint64_t kQuickUnits = 4 * kRlimitPerMs;

/// A solver for one query. `budget_ms` bounds each check (see kRlimitPerMs); running out is
/// Result::Unknown. Needs a current smt::Context; the assertions are terms of that context.
/// Each check whose assertions have no float term first asks Z3's plain SMT core (Z3_mk_simple_solver)
/// with at most kQuickUnits of the budget: it answers the many easy queries of the provers in well under a millisecond, where Z3's
/// default solver spends about 20 ms choosing and building a strategy before every first check. Only
/// when the core runs out does the default solver (its tactics: bit-blasting, ...) get the rest of the
/// budget. Both are complete decision procedures, so the answer is the same; the units spent are the
/// sum, so budgets stay deterministic.
class Solver {
 public:
  explicit Solver(unsigned budget_ms);
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;
  ~Solver();

  void add(const Expr& e);
  /// Runs the check on the context's solver host and waits at most the timeout plus a small slack
  /// (then Unknown, reason "timeout"), or until Context::interrupt (then Unknown, "canceled"). When
  /// Z3 has not stopped by then, the context is abandoned to the check (Context::dead()).
  Result check();
  /// The model of the last `Sat` check.
  std::unique_ptr<Model> model() const;
  /// Why the last check returned Unknown: "timeout" (its budget of units, or the wall-clock safety
  /// net), "canceled", or Z3's own reason.
  std::string reason_unknown() const;
  /// Z3 resource units the last check spent (deterministic, unlike its wall time).
  uint64_t units() const { return units_; }
  /// The assertions in SMT-LIB 2, followed by (check-sat).
  std::string to_smt2() const;

 private:
  /// One check of `s` with at most `units` units, on the context's solver host.
  Result run(Z3_solver s, uint64_t units);
  /// The default solver holding every assertion (made on first use).
  Z3_solver full();

  Z3_solver s_ = nullptr;         ///< the default solver (strategies by logic), made by full()
  size_t in_full_ = 0;            ///< assertions_ given to s_ so far
  Z3_solver quick_ = nullptr;     ///< the plain SMT core of the last check's first try
  Z3_solver answered_ = nullptr;  ///< the solver whose answer the last check returned (its model)
  std::vector<Expr> assertions_;  ///< what was added (the quick try gets the same)
  unsigned budget_ms_;
  unsigned timeout_ms_;  ///< the wall-clock safety net
  std::string reason_;
  uint64_t units_ = 0;
};

/// The conjunction of `fs` after Z3's simplify, propagate-values, solve-eqs and simplify tactics: an
/// equisatisfiable formula where the variables fixed by equations are substituted away.
Expr eliminate(std::span<const Expr> fs);

/// Caps the memory Z3 allocates in this process (all contexts) at `mb` megabytes (Z3's global
/// parameter memory_max_size; 0: no cap). Past it, making a term throws (an std::runtime_error whose
/// message says "out of memory") and a running check answers Unknown.
void set_memory_limit_mb(uint64_t mb);

/// Abandoned checks (see Context) still running. The process joins them when it exits (Z3 stops at
/// its next poll of the cancel flag, which can take seconds) and deletes their contexts; a tool that has printed its answer may
/// std::_Exit instead, which runs no static destructors and so cannot race with them.
int abandoned_checks_running();

/// Waits until every abandoned check has stopped and deleted its Z3 context, and joins its thread;
/// returns how many there were. The fuzz targets call it at the end of each input, so that no Z3
/// context outlives the input: one still being checked or deleted while LeakSanitizer looks (libFuzzer
/// runs it after an input that allocated more than it freed), or left to the operating system at exit,
/// is memory LeakSanitizer may report as leaked.
int reap_abandoned_checks();

/// Joins the abandoned checks that have stopped (each deleted its own context) without waiting for the
/// others, unless more than `keep_running` are still running: then it waits for the oldest until at
/// most that many are. Returns how many it joined. fuzz_equiv calls it with 1 at the end of each input,
/// so that a check Z3 takes seconds to stop runs on beside the next inputs instead of stalling the
/// campaign; that target runs with libFuzzer's -detect_leaks=0 (its leak checks between inputs could
/// look at a context half deleted; they never ran there anyway: docs/fuzzing.md, "Long campaigns: abandoned Z3 contexts"),
/// and the process exits only after every abandoned check has stopped and its context is deleted.
int reap_finished_checks(int keep_running);

/// Outcomes that something other than a deterministic budget may have decided: a wall-clock safety net
/// that fired (a check abandoned or stopped by Z3's own wall timeout, a UnitBudget past its net, a
/// refinement check past its deadline, a fast pass cut short by its time) or a memory cap that was hit.
/// Counted per thread and for the process: `ptir prove` caches a pattern's verdict only when no such
/// event happened on the thread that proved it (verify/prove/cache.h), since a load-dependent outcome must
/// not be replayed as if it were reproducible. Every place that notes one runs on the thread whose
/// result it decides; a thread that waits for helpers passes their events on (the refinement checker's
/// solver threads: pass_nondeterministic_events).
void note_nondeterministic_event();
uint64_t nondeterministic_events();       ///< the process's
uint64_t nondeterministic_events_here();  ///< this thread's, including what was passed to it
void pass_nondeterministic_events(uint64_t n);  ///< counts n events of a helper on this thread

}  // namespace ptir::smt
