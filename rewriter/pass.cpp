// Pass statistics, pass groups and the pass manager's run loop.
#include "rewriter/pass.h"

#include <chrono>

namespace ptir {

int64_t Pass::statistic(std::string_view name) const {
  for (const Statistic& s : stats_)
    if (s.name == name) return s.value;
  return 0;
}

void Pass::add_statistic(std::string_view name, int64_t delta, std::string_view description) {
  for (Statistic& s : stats_)
    if (s.name == name) {
      s.value += delta;
      return;
    }
  stats_.push_back(Statistic{std::string(name), std::string(description), delta});
}

Pass& PassGroup::add(std::unique_ptr<Pass> p) {
  nodes_.push_back(PipelineNode{std::move(p), nullptr});
  return *nodes_.back().pass;
}

PassGroup& PassGroup::add_fixpoint(int max_iterations) {
  nodes_.push_back(PipelineNode{nullptr, std::make_unique<PassGroup>(max_iterations)});
  return *nodes_.back().group;
}

std::string PassGroup::to_string() const {
  std::string s;
  for (const PipelineNode& n : nodes_) {
    if (!s.empty()) s += ',';
    if (n.pass) s += n.pass->name();
    else s += "fixpoint(" + std::to_string(n.group->max_iterations()) + "){" + n.group->to_string() + "}";
  }
  return s;
}

bool PassManager::run_group(PassGroup& g, ProgramRewriter& rw, PipelineResult& r) {
  bool changed_any = false;
  // Steps that changed the program so far in this group, and per pass the count at which its last run
  // left a program it would not change (no change, or PassResult::fixpoint): while no other step has
  // changed the program since, running it again would change nothing, so it is skipped.
  int64_t changes = 0;
  std::vector<int64_t> stable_at(g.nodes().size(), -1);
  for (int it = 0; it < g.max_iterations(); ++it) {
    bool changed = false;
    for (size_t k = 0; k < g.nodes().size(); ++k) {
      PipelineNode& n = g.nodes()[k];
      if (n.group) {
        if (run_group(*n.group, rw, r)) {
          changed = true;
          ++changes;
        }
      } else {
        if (stable_at[k] == changes) continue;
        Pass& pass = *n.pass;
        for (PassInstrumentation* i : instrumentations_) i->before_pass(pass, rw.program());
        auto t0 = std::chrono::steady_clock::now();
        PassResult pr = pass.run(rw);
        rw.check_unseen_edits();  // a pass (a plugin's) that edited the Program around the rewriter
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (pr.error.empty() && rw.has_error()) pr.error = rw.error();
        for (PassInstrumentation* i : instrumentations_) i->after_pass(pass, rw.program(), pr, secs);
        if (!pr.warning.empty()) r.warnings.push_back(pr.warning);
        changed |= pr.changed;
        if (pr.changed) ++changes;
        if (!pr.changed || pr.fixpoint) stable_at[k] = changes;
        if (!pr.error.empty()) {
          r.ok = false;
          r.error = pr.error;
        }
      }
      if (!r.ok) return changed_any || changed;
    }
    changed_any |= changed;
    if (!changed) break;
    if (&g != &top_ && it + 1 == g.max_iterations())
      r.warnings.push_back("fixpoint(" + std::to_string(g.max_iterations()) + "){" + g.to_string() +
                           "} still changed the program in its last iteration");
  }
  return changed_any;
}

PipelineResult PassManager::run(Program& p) {
  ProgramRewriter rw(p);
  return run(rw);
}

PipelineResult PassManager::run(ProgramRewriter& rw) {
  PipelineResult r;
  std::unique_ptr<ExpensiveChecks> checks;
  if (opts_.expensive_checks) {
    checks = std::make_unique<ExpensiveChecks>(rw, opts_.check_options);
    rw.add_listener(checks.get());
  }
  r.changed = run_group(top_, rw, r);
  if (checks) {
    if (r.ok) checks->finish();
    if (r.ok && checks->failed()) {
      r.ok = false;
      r.error = checks->report();
    }
    r.replayed_rewrites = checks->num_replayed();
    r.replay_runs = checks->num_runs();
    r.replay_windowed = checks->num_windowed();
    r.replay_unreplayable = checks->num_unreplayable();
    r.replay_structural = checks->num_structural();
    r.replay_memoized = checks->num_memoized();
    rw.remove_listener(checks.get());
  }
  return r;
}

}  // namespace ptir
