// Expensive checks: a listener that holds every rewrite to the pattern contract.
//
// Around each named rewrite (pattern, fold, cse, dce) it checks: success => the IR changed and failure =>
// it did not (program fingerprints); every inserted or modified instruction verifies, and the whole program
// verifies after each successful rewrite; and the rewrite preserves results: each body it touched is run
// on the reference interpreter before and after, on random inputs and on edge values (+-0, +-inf, NaN,
// subnormals, +-1, extremes). The first violation is reported through ProgramRewriter::report_error with
// the rewrite's name, the root instruction and the input, which stops the driver.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "rewriter/listener.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// What the checks do; all on by default.
struct CheckOptions {
  bool fingerprints = true;  ///< success => changed, failure => unchanged
  bool verify = true;        ///< verify_inst on each mutation, verify_program after each rewrite
  bool replay = true;        ///< interpreter replay of every successful rewrite
  int random_trials = 4;     ///< random inputs (a quarter of the elements are edge values)
  int edge_trials = 11;      ///< inputs made only of edge values, rotated so each element sees each one
  uint64_t seed = 1;
  InterpOptions interp = {.kernels = nullptr, .max_while_iterations = 1 << 12};
};

/// Edge-value tensor of type `t`: element k is the ((k + rotation) mod n)-th edge value of its dtype.
Tensor edge_tensor(const TensorType& t, uint64_t rotation);

/// The checking listener. Attach it to a ProgramRewriter (the greedy driver does so when
/// GreedyConfig::expensive_checks is set; `ptir opt --expensive-checks` for the whole pipeline).
class ExpensiveChecks final : public RewriteListener {
 public:
  ExpensiveChecks(ProgramRewriter& rw, CheckOptions opts = {});
  ~ExpensiveChecks() override;

  void notify_inserted(InstId i) override;
  void notify_modified(InstId i) override;
  void notify_replaced(InstId i, std::span<const ValueId> with) override;
  void notify_erased(InstId i) override;
  void notify_pattern_begin(std::string_view name, InstId root) override;
  void notify_pattern_end(std::string_view name, InstId root, bool success) override;

  bool failed() const { return !report_.empty(); }
  /// The first violation, or empty.
  const std::string& report() const { return report_; }
  /// How many successful rewrites were replayed on the interpreter (and how many runs that took).
  int64_t num_replayed() const { return replayed_; }
  int64_t num_runs() const { return runs_; }

 private:
  void fail(std::string message);
  void verify_one(InstId i, const char* what);
  void touch(InstId i);
  void replay_body(BodyId b);
  std::vector<std::vector<Tensor>> inputs_for(const Program& p, BodyId b) const;

  ProgramRewriter& rw_;
  CheckOptions opts_;
  std::unique_ptr<Program> shadow_;  ///< the program as it was before the current rewrite
  uint64_t shadow_fp_ = 0;
  uint64_t fp_before_ = 0;
  std::string pattern_;
  InstId root_ = kNone;
  bool in_rewrite_ = false;
  std::vector<BodyId> touched_;
  std::string report_;
  int64_t replayed_ = 0;
  int64_t runs_ = 0;
};

}  // namespace ptir
