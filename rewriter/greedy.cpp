// The greedy driver: worklist rounds, fold hooks, patterns, dead-code removal, failure cache.
#include "rewriter/greedy.h"

#include <algorithm>
#include <bit>
#include <exception>
#include <memory>
#include <optional>
#include <unordered_map>

#include "ir/interp.h"
#include "rewriter/checks.h"
#include "rewriter/worklist.h"

namespace ptir {

void FailureCache::bind(const FrozenPatternSet& patterns, const ProgramRewriter& rw) {
  auto same = [](const std::weak_ptr<const void>& a, const std::weak_ptr<const void>& b) {
    return !a.expired() && !a.owner_before(b) && !b.owner_before(a);
  };
  if (same(patterns_, patterns.identity()) && same(rw_, rw.identity())) return;
  patterns_ = patterns.identity();
  rw_ = rw.identity();
  entries_.clear();
}

namespace {

constexpr std::string_view kFoldName = "fold";
constexpr std::string_view kDceName = "dce";

class GreedyDriver {
 public:
  GreedyDriver(ProgramRewriter& rw, const FrozenPatternSet& patterns, const GreedyConfig& cfg, FailureCache& cache)
      : rw_(rw), p_(rw.program()), patterns_(patterns), cfg_(cfg), cache_(cache), wl_(cfg.random_order_seed) {}

  GreedyResult run() {
    seed();
    rw_.set_track_changes(true);
    rw_.change_log().clear();
    res_.stats.rounds = 1;
    bool stop = false;
    // -1 is not "forever": a pattern that keeps growing the program (neg => neg(neg(neg))) would never end
    // a round. The default stops after 64 rewrites per instruction the program had, plus 100,000.
    const int64_t limit = cfg_.max_num_rewrites >= 0
                              ? cfg_.max_num_rewrites
                              : GreedyConfig::kDefaultRewritesPerInst * static_cast<int64_t>(p_.num_live_insts()) +
                                    GreedyConfig::kDefaultRewrites;
    while (!stop) {
      while (!wl_.current_empty()) {
        if (res_.stats.rewrites + res_.stats.folds >= limit) {
          stop_unconverged(cfg_.max_num_rewrites >= 0
                               ? "reached max_num_rewrites = " + std::to_string(cfg_.max_num_rewrites)
                               : "reached the default limit of " + std::to_string(limit) +
                                     " rewrites (64 per instruction + 100,000): a pattern may be growing the "
                                     "program without end");
          // The default limit is an error, not non-convergence: a pipeline that went on (cse, then
          // canonicalize again with a limit scaled to the grown program) would run out of memory.
          if (cfg_.max_num_rewrites < 0) rw_.report_error(res_.diagnostic);
          stop = true;
          break;
        }
        InstId i = wl_.pop();
        if (rw_.is_erased(i)) continue;
        process(i);
        if (rw_.has_error() || !res_.diagnostic.empty()) {
          if (res_.diagnostic.empty()) res_.diagnostic = rw_.error();
          res_.converged = false;
          stop = true;
          break;
        }
      }
      if (stop || !wl_.advance_round()) break;
      if (res_.stats.rounds >= cfg_.max_iterations) {
        stop_unconverged("did not converge within max_iterations = " + std::to_string(cfg_.max_iterations) +
                         " rounds");
        break;
      }
      ++res_.stats.rounds;
      fired_prev_.swap(fired_);
      fired_.clear();  // sized again by the round's first rewrite (its capacity kept)
    }
    rw_.set_track_changes(false);
    rw_.change_log().clear();
    const GreedyStats& s = res_.stats;
    res_.changed = s.rewrites + s.folds + s.erased_dead > 0;
    return std::move(res_);
  }

 private:
  void seed() {
    wl_.reserve(p_.num_inst_slots());
    for (BodyId b = 0; b < p_.num_bodies(); ++b)
      p_.for_each_inst(b, [&](InstId i) {
        if (p_.op(i) != OpCode::Return) wl_.push_current(i);
      });
    // Popping from the back: program order pushed gives bottom-up; reversed gives top-down.
    if (cfg_.order == TraversalOrder::TopDown) wl_.reverse_current();
  }

  bool trivially_dead(InstId i) const {
    OpCode op = p_.op(i);
    return op != OpCode::Return && !has_trait(op, Effect) && rw_.results_unused(i);
  }

  void process(InstId i) {
    ++res_.stats.processed;
    bool log = rw_.has_listeners();
    if (log) rw_.notify_operation_begin(i);
    std::string_view outcome = "no pattern matched";
    bool changed = try_process(i, outcome);
    if (log) rw_.notify_operation_end(i, changed, outcome);
  }

  bool try_process(InstId i, std::string_view& outcome) {
    bool log = rw_.has_listeners();
    if (cfg_.dce && trivially_dead(i)) {
      const uint64_t bracket1 = log ? rw_.notify_pattern_begin(RewriteSource::dce(), i) : 0;
      rw_.erase_inst(i);
      if (log) rw_.notify_pattern_end(RewriteSource::dce(), i, true, bracket1);
      ++res_.stats.erased_dead;
      fire(patterns_.size() + 1);
      drain();
      outcome = "erased as dead";
      return true;
    }
    FailureCache::Entry& e0 = cache_.at(i);
    uint32_t key = rw_.match_key(i);
    if (e0.key != key) e0 = {key, 0};
    if (cfg_.fold && !(e0.failed & FailureCache::kFoldBit)) {
      if (try_fold(i)) {
        outcome = "folded";
        return true;
      }
      cache_.at(i).failed |= FailureCache::kFoldBit;
    }
    auto list = patterns_.patterns_for(p_.op(i));
    if (list.empty()) return false;
    // The index drops the patterns whose root shape the instruction's operands rule out.
    const uint64_t cand = patterns_.candidates(p_, i);
    if (cfg_.cost_model && list.size() > 1) return try_patterns_costed(i, list, cand, outcome);
    const size_t indexed = std::min(list.size(), FrozenPatternSet::kIndexedPatterns);
    const uint64_t in_list = indexed == 64 ? ~uint64_t{0} : (uint64_t{1} << indexed) - 1;
    for (uint64_t m = cand & in_list; m; m &= m - 1)
      if (try_pattern(i, list, static_cast<size_t>(std::countr_zero(m)))) {
        outcome = "pattern matched";
        return true;
      } else if (rw_.has_error()) {
        return false;
      }
    for (size_t j = indexed; j < list.size(); ++j)
      if (try_pattern(i, list, j)) {
        outcome = "pattern matched";
        return true;
      } else if (rw_.has_error()) {
        return false;
      }
    return false;
  }

  bool try_patterns_costed(InstId i, std::span<const Pattern* const> list, uint64_t cand,
                           std::string_view& outcome) {
    std::vector<std::pair<int, size_t>> order;
    order.reserve(list.size());
    for (size_t j = 0; j < list.size(); ++j)
      if (j >= FrozenPatternSet::kIndexedPatterns || (cand >> j & 1u))
        order.emplace_back(cfg_.cost_model(*list[j], i, rw_), j);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [benefit, j] : order)
      if (try_pattern(i, list, j)) {
        outcome = "pattern matched";
        return true;
      } else if (rw_.has_error()) {
        return false;
      }
    return false;
  }

  bool try_pattern(InstId i, std::span<const Pattern* const> list, size_t j) {
    bool cacheable = j < FailureCache::kMaxCachedPatterns;
    if (cacheable && (cache_.at(i).failed >> j & 1u)) {
      ++res_.stats.cache_hits;
      return false;
    }
    const Pattern& pat = *list[j];
    const uint32_t idx = patterns_.position(p_.op(i), j);  // before the rewrite changes i
    ++res_.stats.attempts;
    bool log = rw_.has_listeners();
    size_t first_new = p_.num_inst_slots();
    const uint64_t bracket2 = log ? rw_.notify_pattern_begin(RewriteSource::of(pat), i) : 0;
    bool ok = false;
    bool threw = true;
    // A pattern that throws (a plugin's, say) stops the run with an error naming it, never a crash; the
    // program may be partly rewritten, and the error says so.
    try {
      ok = pat.match_and_rewrite(i, rw_);
      threw = false;
    } catch (const std::exception& e) {
      rw_.report_error("pattern '" + std::string(pat.debug_name()) + "' threw an exception on instruction " +
                       std::to_string(i) + ": " + e.what() + " (the program may be partly rewritten)");
    } catch (...) {
      rw_.report_error("pattern '" + std::string(pat.debug_name()) + "' threw an exception on instruction " +
                       std::to_string(i) + " that is not a std::exception (the program may be partly rewritten)");
    }
    rw_.check_unseen_edits();  // an edit the pattern made through the Program itself (one compare)
    if (rw_.has_error()) {  // the run stops here (the loop reads the error)
      if (!threw) rw_.add_error_context("pattern '" + std::string(pat.debug_name()) + "' on instruction " + std::to_string(i) + ": ");
      return false;
    }
    if (log) rw_.notify_pattern_end(RewriteSource::of(pat), i, ok, bracket2);
    if (!ok) {
      if (cacheable) cache_.at(i).failed |= 1u << j;
      if (!rw_.change_log().empty()) drain();  // a misbehaving pattern: keep the worklist honest
      return false;
    }
    ++res_.stats.rewrites;
    fire(idx);
    check_recursion(pat, idx, i, first_new);
    drain();
    return true;
  }

  bool try_fold(InstId i) {
    FoldOptions fo = cfg_.fold_options;
    fo.inline_literal_max_elements = cfg_.inline_literal_max_elements;
    if (!fo.index_maps) fo.index_maps = fold_maps_ ? &*fold_maps_ : &fold_maps_.emplace();
    FoldResult r = fold_inst(p_, i, fo);
    if (!r) return false;
    bool log = rw_.has_listeners();
    const uint64_t bracket3 = log ? rw_.notify_pattern_begin(RewriteSource::fold(), i) : 0;
    ValueId v = r.value;
    if (r.kind == FoldResult::Kind::Literal) {
      if (inline_folded(r.literal, p_.has_one_use(p_.result(i)), cfg_.inline_literal_max_elements)) {
        v = rw_.literal_value(r.literal);
      } else {
        v = rw_.materialize_constant(p_.body(p_.inst(i).body).first, r.literal);
        // The constant is the folded value itself: it keeps the value's name.
        if (std::string_view n = p_.name(p_.result(i)); !n.empty()) rw_.set_name(v, n);
      }
    }
    rw_.replace_op(i, v);
    if (log) rw_.notify_pattern_end(RewriteSource::fold(), i, true, bracket3);
    ++res_.stats.folds;
    fire(patterns_.size());
    drain();
    return true;
  }

  /// Queues what the last change touched: each inserted or modified instruction, its users and its
  /// operand producers; and each producer that lost a use (it may be dead now) with its remaining users
  /// (a single-use condition may hold now). The worklist pops the last pushed first, so users are pushed
  /// before the instruction and producers after it: an instruction a rewrite built is folded before its
  /// users are matched again (a rule that re-associates constants folds the new constant op before the
  /// rule could match its own result: without this order arith's constant re-associations cycled).
  void drain() {
    ChangeLog& log = rw_.change_log();
    for (InstId t : log.touched) {
      if (rw_.is_erased(t)) continue;
      queue_users(t);
      queue(t);
      for (ValueId v : rw_.operands(t)) queue(p_.def_inst(v));
    }
    for (InstId f : log.freed) {
      if (rw_.is_erased(f)) continue;
      // A producer the change left dead goes in this round, popped next: a dead chain is erased in
      // one sweep whatever the order (top-down reaches a chain's producers before its dead end).
      if (cfg_.dce && trivially_dead(f)) wl_.push_current(f);
      else queue(f);
      queue_users(f);
    }
    log.clear();
  }

  void queue_users(InstId t) {
    for (uint32_t k = 0, n = p_.num_results(t); k < n; ++k)
      for (InstId u : rw_.users_of(p_.result(t, k))) queue(u);
  }

  void queue(InstId i) {
    if (i != kNone && p_.op(i) != OpCode::Return) wl_.push_next(i);
  }

  /// Tracks chains of a pattern applying to instructions it created itself.
  /// Only instructions created during this run have an origin: origin_ is indexed from base_.
  void check_recursion(const Pattern& pat, uint32_t idx, InstId root, size_t first_new) {
    if (pat.has_bounded_recursion() || p_.num_inst_slots() == first_new) return;
    if (origin_.size() < p_.num_inst_slots() - base_) origin_.resize(p_.num_inst_slots() - base_, {kNone, 0});
    uint32_t depth = root >= base_ && origin_[root - base_].pattern == idx ? origin_[root - base_].depth : 0;
    for (size_t n = first_new; n < p_.num_inst_slots(); ++n) origin_[n - base_] = {idx, depth + 1};
    if (static_cast<int>(depth + 1) > cfg_.max_recursion_depth)
      res_.diagnostic = "pattern '" + std::string(pat.debug_name()) + "' applied to its own result " +
                        std::to_string(depth + 1) +
                        " times in a row; mark it set_has_bounded_recursion() if that is intended";
  }

  void stop_unconverged(const std::string& why) {
    res_.converged = false;
    std::vector<int64_t> counts(patterns_.size() + 2);
    const auto at = [](const std::vector<int64_t>& v, size_t k) { return k < v.size() ? v[k] : 0; };
    for (size_t k = 0; k < counts.size(); ++k) counts[k] = at(fired_, k) ? at(fired_, k) : at(fired_prev_, k);
    auto all = patterns_.all();
    for (size_t k = 0; k < counts.size(); ++k) {
      if (!counts[k]) continue;
      std::string name = k < all.size() ? std::string(all[k]->debug_name())
                                        : std::string(k == all.size() ? kFoldName : kDceName);
      res_.still_firing.emplace_back(name, counts[k]);
    }
    std::stable_sort(res_.still_firing.begin(), res_.still_firing.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string msg = "greedy rewriter " + why + " (" + std::to_string(res_.stats.rewrites) + " rewrites, " +
                      std::to_string(res_.stats.folds) + " folds); still firing in the last round:";
    for (size_t k = 0; k < res_.still_firing.size(); ++k)
      msg += (k ? ", " : " ") + res_.still_firing[k].first + " (" + std::to_string(res_.still_firing[k].second) + ")";
    if (res_.still_firing.empty()) msg += " nothing";
    res_.diagnostic = msg;
  }

  struct Origin {
    uint32_t pattern;
    uint32_t depth;
  };

  ProgramRewriter& rw_;
  const Program& p_;
  const FrozenPatternSet& patterns_;
  const GreedyConfig& cfg_;
  FailureCache& cache_;
  Worklist wl_;
  std::optional<IndexMapCache> fold_maps_;  ///< the folds' index maps for this run (made on the first fold)
  GreedyResult res_;
  /// Per pattern, then fold, then dce: this round / last round. Empty until a round's first rewrite
  /// (most greedy runs rewrite nothing: a dense array per run was a 2 KB allocation each).
  std::vector<int64_t> fired_, fired_prev_;
  void fire(size_t k) {
    if (fired_.empty()) fired_.assign(patterns_.size() + 2, 0);
    ++fired_[k];
  }
  std::vector<Origin> origin_;
  size_t base_ = p_.num_inst_slots();  ///< first InstId created during this run
};

}  // namespace

GreedyResult apply_patterns_and_fold_greedily(ProgramRewriter& rw, const FrozenPatternSet& patterns,
                                              const GreedyConfig& config, FailureCache* cache) {
  FailureCache local;
  FailureCache& c = cache ? *cache : local;
  c.bind(patterns, rw);
  c.reserve(rw.program().num_inst_slots());
  std::unique_ptr<ExpensiveChecks> checks;
  if (config.expensive_checks) {
    checks = std::make_unique<ExpensiveChecks>(rw, CheckOptions{.seed = config.check_seed});
    rw.add_listener(checks.get());
  }
  GreedyResult r = GreedyDriver(rw, patterns, config, c).run();
  if (checks) {
    if (!checks->failed()) checks->finish();
    if (checks->failed() && r.diagnostic.empty()) {
      r.converged = false;
      r.diagnostic = checks->report();
    }
    rw.remove_listener(checks.get());
  }
  return r;
}

GreedyResult apply_patterns_and_fold_greedily(Program& p, const FrozenPatternSet& patterns,
                                              const GreedyConfig& config) {
  ProgramRewriter rw(p);
  return apply_patterns_and_fold_greedily(rw, patterns, config);
}

}  // namespace ptir
