// Param-only hoisting (gpt.rs's ParamOnlyFoldToParamPass): computations that depend only on selected
// parameters (weights) move into a prologue function; its results become new parameters of the
// function they came from, so a runtime runs the prologue once per set of weights and the function
// once per call. PTIR text carries no parameter roles, so which parameters count is an option
// (`ptir opt --hoist-params=NAMES`, docs/rewriter.md "Param-only hoisting").
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/pass.h"

namespace ptir {

/// Which parameters count as hoistable (weights). Build with designated initializers.
struct HoistOptions {
  /// Parameter selectors: a name (`w1` or `%w1`) or a prefix ending in `*` (`w*`; `*` alone selects
  /// every parameter). They apply to every function of the program (not regions, not prologues).
  std::vector<std::string> params{};
};

/// One hoisting: function `function` got the prologue `prologue`. The function had
/// `num_params_before` parameters; it now has one more per prologue result, appended in the
/// prologue's result order. `args[k]` is the index of the function parameter (as it was before
/// this hoisting) that the prologue's parameter k stands for.
struct HoistRecord {
  std::string function;
  std::string prologue;
  size_t num_params_before = 0;
  std::vector<uint32_t> args;
  size_t num_hoisted_insts = 0;  ///< instructions the function lost to the prologue
};

/// The hoistings of a pipeline, in the order they were made; shared by every hoist-params pass a
/// registry creates, so a later run never hoists out of a prologue and a validator can undo them all.
struct HoistLog {
  std::vector<HoistRecord> records;
  /// True when `name` is a prologue made by a recorded hoisting.
  bool is_prologue(std::string_view name) const;
};

/// What hoist_params did.
struct HoistResult {
  std::vector<HoistRecord> records;   ///< one per function that got a prologue
  std::vector<std::string> unmatched; ///< selectors that matched no parameter of any function
};

/// Hoists, in every function (except prologues listed in `log`), each pure instruction whose operands
/// are selected parameters, literals or results of such instructions, and which depends on at least one
/// selected parameter (a computation on constants alone is left in place: it is not a weight). Effectful
/// ops (rng) never move. The values such instructions give to the rest of the function become new
/// parameters; the instructions are copied, in order, into a new function `<name>_prologue` (a suffix
/// `_2`, `_3`... when taken) whose parameters are the selected parameters they read, and erased from
/// the function. Appends its records to `log` when given.
HoistResult hoist_params(ProgramRewriter& rw, const HoistOptions& opts, HoistLog* log = nullptr);

/// `hoist-params`.
class HoistParamsPass final : public Pass {
 public:
  HoistParamsPass(HoistOptions opts, std::shared_ptr<HoistLog> log)
      : opts_(std::move(opts)), log_(std::move(log)) {}
  std::string_view name() const override { return "hoist-params"; }
  PassResult run(ProgramRewriter& rw) override;

 private:
  HoistOptions opts_;
  std::shared_ptr<HoistLog> log_;
};

/// The program a hoisting claims to be equivalent to: every function of `hoisted` named in `records`
/// gets back its parameters from before the first hoisting and runs its prologues first (inlined, in
/// record order) to compute the parameters they made; the prologues themselves are dropped. Every other
/// function and every region is copied unchanged. Translation validation checks this program against
/// the original (the runtime contract: prologue then function). On a record that does not fit the
/// program, returns nullptr and sets `error`.
std::unique_ptr<Program> compose_prologues(const Program& hoisted, const std::vector<HoistRecord>& records,
                                           std::string* error);

}  // namespace ptir
