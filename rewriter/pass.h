// Passes and the pass manager: a tree of passes and fixed-point groups run over one ProgramRewriter.
//
// Every pass edits only through the rewriter it is given, so the listeners the manager attaches
// (expensive checks, --debug-rewrites, later a Z3 validator) see the whole pipeline. Instrumentations
// (timing, --print-ir-after-all) observe pass boundaries.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/checks.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// A named counter of a pass, accumulated over its runs (`ptir opt --stats`).
struct Statistic {
  std::string name;
  std::string description;
  int64_t value = 0;
};

/// What one run of a pass did.
struct PassResult {
  bool changed = false;
  /// The pass would not change the program this run left (it reaches its fixpoint in one run: cse, dce).
  /// A fixpoint group then skips the pass until another step changes the program (PassManager::run_group).
  bool fixpoint = false;
  std::string warning{};  ///< reported, not fatal (e.g. canonicalize did not converge)
  std::string error{};    ///< fatal: the pipeline stops
};

/// A transformation of a whole program.
class Pass {
 public:
  virtual ~Pass() = default;
  /// The pipeline name (`canonicalize`, `cse`, `dce`).
  virtual std::string_view name() const = 0;
  /// Runs once. Every edit goes through `rw`; never edits the Program directly.
  virtual PassResult run(ProgramRewriter& rw) = 0;
  std::span<const Statistic> statistics() const { return stats_; }
  int64_t statistic(std::string_view name) const;

 protected:
  /// Adds `delta` to the statistic `name` (created on first use).
  void add_statistic(std::string_view name, int64_t delta, std::string_view description);

 private:
  std::vector<Statistic> stats_;
};

/// Observer of pass boundaries.
class PassInstrumentation {
 public:
  virtual ~PassInstrumentation() = default;
  virtual void before_pass(const Pass& pass, const Program& p) {}
  /// `seconds` is the wall time of this run of the pass.
  virtual void after_pass(const Pass& pass, const Program& p, const PassResult& r, double seconds) {}
};

class PassGroup;

/// One step of a pipeline: a pass or a nested group.
struct PipelineNode {
  std::unique_ptr<Pass> pass;
  std::unique_ptr<PassGroup> group;
};

/// A sequence of steps run up to `max_iterations` times, stopping after an iteration that changes nothing.
/// The top-level group runs once.
class PassGroup {
 public:
  explicit PassGroup(int max_iterations = 1) : max_iterations_(max_iterations) {}
  Pass& add(std::unique_ptr<Pass> p);
  template <typename P, typename... Args>
  P& add(Args&&... args) {
    return static_cast<P&>(add(std::make_unique<P>(std::forward<Args>(args)...)));
  }
  /// Appends `fixpoint(n){...}` and returns it to fill.
  PassGroup& add_fixpoint(int max_iterations);
  int max_iterations() const { return max_iterations_; }
  const std::vector<PipelineNode>& nodes() const { return nodes_; }
  std::vector<PipelineNode>& nodes() { return nodes_; }
  /// The pipeline string of this group's contents, e.g. `fixpoint(4){canonicalize,cse,dce}`.
  std::string to_string() const;

 private:
  int max_iterations_;
  std::vector<PipelineNode> nodes_;
};

/// Options of a pass manager. Build with designated initializers.
struct PassManagerOptions {
  bool expensive_checks = false;   ///< attach ExpensiveChecks for the whole pipeline
  CheckOptions check_options{};
};

/// Outcome of a pipeline run.
struct PipelineResult {
  bool ok = true;  ///< false: a pass (or an expensive check) reported an error
  bool changed = false;
  std::string error;
  std::vector<std::string> warnings;
  int64_t replayed_rewrites = 0;  ///< rewrites replayed by expensive checks
  int64_t replay_runs = 0;        ///< one-side evaluations those replays took
  int64_t replay_windowed = 0;    ///< rewrites replayed on a window of their elements
  int64_t replay_unreplayable = 0;  ///< rewrites part of which could not be replayed
  int64_t replay_structural = 0;    ///< replayed rewrites decided structurally (identical twins, no run)
  int64_t replay_memoized = 0;      ///< replayed rewrites identical to one that passed earlier (no run)
};

/// Runs a pipeline of passes over a program.
class PassManager {
 public:
  explicit PassManager(PassManagerOptions opts = {}) : opts_(std::move(opts)) {}
  PassGroup& top() { return top_; }
  const PassGroup& top() const { return top_; }
  void add_instrumentation(PassInstrumentation* i) { instrumentations_.push_back(i); }
  /// Runs the pipeline with a fresh rewriter over `p`.
  PipelineResult run(Program& p);
  /// Runs the pipeline with the caller's rewriter: observers the caller attached to it (--debug-rewrites,
  /// a validator) see every pass.
  PipelineResult run(ProgramRewriter& rw);
  /// Calls f(const Pass&) for every pass of the tree, in pipeline order.
  template <typename F>
  void for_each_pass(F&& f) const {
    walk(top_, f);
  }

 private:
  template <typename F>
  static void walk(const PassGroup& g, F& f) {
    for (const PipelineNode& n : g.nodes()) {
      if (n.pass) f(static_cast<const Pass&>(*n.pass));
      else walk(*n.group, f);
    }
  }
  bool run_group(PassGroup& g, ProgramRewriter& rw, PipelineResult& r);

  PassManagerOptions opts_;
  PassGroup top_;
  std::vector<PassInstrumentation*> instrumentations_;
};

}  // namespace ptir
