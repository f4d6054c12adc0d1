// Staged queries, shared by the refinement checker (verify/refine.cpp) and the all-shape prover
// (verify/allshape/allshape.cpp): both ask cheap abstracted stages first (each has more models than the
// exact query: a precondition sliced, uninterpreted applications abstracted, fixed integers eliminated,
// so unsat there is unsat here; sat there says nothing) and the exact query last. What they share:
// running the cheap stages in order up to the first unsat, counting every check's Z3 resource units
// against a budget (docs/verification.md "Budgets"), and recognising formulas that are equal up to a
// renaming of their free constants (Expr::canonical) so that one answer serves them all.
#pragma once
#include <chrono>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "verify/smt/expr.h"
#include "verify/smt/solver.h"

namespace ptir::smt {

/// A deterministic budget of B ms: B * kRlimitPerMs Z3 resource units, spent by the checks charged to
/// it, with the wall clock as a safety net, B * kWallFactor + kWallSlackMs after `start`. Thread-safe.
class UnitBudget {
 public:
  using clock = std::chrono::steady_clock;
  UnitBudget(unsigned budget_ms, clock::time_point start)
      : limit_(static_cast<uint64_t>(budget_ms) * kRlimitPerMs),
        net_(start + std::chrono::milliseconds(uint64_t{kWallFactor} * budget_ms + kWallSlackMs)) {}
  /// Adds what a check spent (Solver::units()).
  void charge(uint64_t units) { spent_ += units; }
  uint64_t spent() const { return spent_.load(); }
  /// Units left (0 once spent).
  uint64_t left() const {
    const uint64_t s = spent_.load();
    return s < limit_ ? limit_ - s : 0;
  }
  /// The units left as a Solver budget in ms (Solver turns it back into the same units).
  unsigned left_ms() const { return static_cast<unsigned>(left() / kRlimitPerMs); }
  /// More units spent than the budget, or past the wall-clock safety net.
  /// (The net firing first is noted: note_nondeterministic_event, the outcome depends on the load.)
  bool exhausted() const {
    if (spent_.load() > limit_) return true;
    if (clock::now() <= net_) return false;
    note_nondeterministic_event();
    return true;
  }
  /// The safety net: the budget's wall-clock end.
  clock::time_point wall_net() const { return net_; }

 private:
  uint64_t limit_;
  clock::time_point net_;
  std::atomic<uint64_t> spent_{0};
};

/// Values keyed by a formula's canonical form (Expr::canonical: free constants renamed in order of first
/// occurrence), so formulas equal up to renaming share one entry; the caller passes the canonical form
/// (`f.canonical()`, made once). Keeps the canonical terms alive (an id is only unique while its term
/// lives). One Z3 context: clear() before that context goes.
template <class V>
class CanonicalMap {
 public:
  /// The entry of `canonical`, or null.
  V* find(const Expr& canonical) {
    auto it = map_.find(canonical.id());
    return it == map_.end() ? nullptr : &it->second;
  }
  /// Adds `v` for `canonical` unless it has an entry: (the entry, whether it was added).
  std::pair<V*, bool> emplace(const Expr& canonical, V v) {
    keep_.push_back(canonical);
    auto [it, fresh] = map_.emplace(keep_.back().id(), std::move(v));
    if (!fresh) keep_.pop_back();
    return {&it->second, fresh};
  }
  void clear() {
    map_.clear();
    keep_.clear();
  }

 private:
  std::unordered_map<unsigned, V> map_;
  std::vector<Expr> keep_;
};

/// Unsat answers of cheap stages, by canonical form: each formula up to renaming is asked once.
class StageCache {
 public:
  /// Whether `f` is unsat: from the cache, or asked with a budget of `budget_ms` ms, its units charged
  /// to `budget` and `*asked` incremented. Unknown counts as "not unsat" (and is cached as such).
  bool unsat(const Expr& f, unsigned budget_ms, UnitBudget& budget, int* asked) {
    const Expr c = f.canonical();
    if (const bool* hit = map_.find(c)) return *hit;
    Solver s(budget_ms);
    s.add(c);
    ++*asked;
    const bool u = s.check() == Result::Unsat;
    budget.charge(s.units());
    map_.emplace(c, u);
    return u;
  }
  void clear() { map_.clear(); }

 private:
  CanonicalMap<bool> map_;
};

/// What a cheap stage's check says for the run.
enum class StageStep : uint8_t {
  Unsat,  ///< unsat: the query is unsat (the run ends with this stage)
  Open,   ///< sat or unknown: the next stage runs
  Stop,   ///< the caller stops the run (its answer is elsewhere: a refutation, a dead context)
};
struct StagesRun {
  std::optional<size_t> unsat_at;  ///< the cheap stage that was unsat
  bool stopped = false;            ///< a step said Stop
};

/// Runs the cheap stages `stages[from..]` in order, cheapest first: `ask(formula, k)` checks stage k.
/// A stage is produced only when it is reached (producing one can be work: Z3's solve-eqs), and one that
/// is the same term as the stage before it is not asked again. The exact query is the caller's, after a
/// run without unsat_at and without stopped.
template <class Ask>
StagesRun run_cheap_stages(std::span<const std::function<Expr()>> stages, size_t from, Ask&& ask) {
  StagesRun out;
  std::optional<Expr> last;
  for (size_t k = from; k < stages.size(); ++k) {
    const Expr f = stages[k]();
    if (last && last->same(f)) continue;
    last = f;
    const StageStep s = ask(f, k);
    if (s == StageStep::Unsat) {
      out.unsat_at = k;
      return out;
    }
    if (s == StageStep::Stop) {
      out.stopped = true;
      return out;
    }
  }
  return out;
}

}  // namespace ptir::smt
