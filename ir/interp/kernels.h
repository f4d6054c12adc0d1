// Internal interface of the reference interpreter: the call record every kernel receives, the status it
// returns, and the kernel entry points of each op family (one .cpp per family, same stems across layers).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/interp.h"
#include "ir/interp/numeric.h"

namespace ptir::interp {

/// Outcome of a kernel or a body run. `at` is the innermost instruction that failed (kNone: not yet known).
struct Status {
  RunStatus code = RunStatus::Ok;
  std::string message;
  InstId at = kNone;

  bool ok() const { return code == RunStatus::Ok; }
  static Status success() { return {}; }
  static Status ub(std::string m) { return {RunStatus::UB, std::move(m), kNone}; }
  static Status error(std::string m) { return {RunStatus::Error, std::move(m), kNone}; }
  static Status bound(std::string m) { return {RunStatus::Bound, std::move(m), kNone}; }
};

/// The operands of one instruction, as pointers into the running frame (no copies).
class Args {
 public:
  Args(const Tensor* const* p, size_t n) : p_(p), n_(n) {}
  size_t size() const { return n_; }
  const Tensor& operator[](size_t i) const { return *p_[i]; }

 private:
  const Tensor* const* p_;
  size_t n_;
};

struct Exec;  // per-run state: plans, region nesting (interp.cpp)

/// Everything a kernel may look at. Results are preallocated as zeroed tensors of the result types.
struct Call {
  const Program& p;
  InstId inst;
  OpCode op;
  const AttrSet& attrs;
  Args args;
  Exec& exec;

  std::string_view name() const { return mnemonic(op); }
  /// "OP: what" for messages.
  std::string msg(std::string_view what) const { return std::string(name()) + ": " + std::string(what); }
  Status fail(std::string_view what) const { return Status::error(msg(what)); }
};

using Out = std::vector<Tensor>;

/// The accumulation dtype: accum[D] when given, else default_accum(elem). False when the attribute is malformed.
inline bool accum_of(const AttrSet& attrs, DType elem, DType& d) {
  const AttrValue* v = attrs.find("accum");
  if (!v) {
    d = default_accum(elem);
    return true;
  }
  if (v->kind != AttrKind::DType || v->ints.empty() || v->ints[0] < 0 || v->ints[0] >= kNumDTypes) return false;
  d = static_cast<DType>(v->ints[0]);
  return true;
}

/// Runs body `b` on `inputs` (moved in); checks the input types; `results` receives the body's results.
Status run_region(Exec& ex, BodyId b, std::vector<Tensor> inputs, std::vector<Tensor>& results);
/// The same, with the body's parameters read in place from `lent` (when not empty; `inputs` is then
/// empty), which the caller keeps unchanged during the run: the run's top-level inputs, or a while's
/// state for its cond region. `inputs`' tensors are moved from, the vector itself is left to the caller.
Status run_region_lent(Exec& ex, BodyId b, std::vector<Tensor>&& inputs, std::span<const Tensor> lent,
                       std::vector<Tensor>& results);
/// The options of the running interpreter.
const InterpOptions& options(const Exec& ex);

/// Family-local op kinds: the dispatch switch maps each OpCode to its family kernel and kind.
enum class Unary : uint8_t { Neg, Abs, Exp, Log, Tanh, Erf, Rsqrt, Reciprocal, Sqrt, Identity };
enum class Binary : uint8_t { Add, Sub, Mul, Div, Max, Min };
enum class Rng : uint8_t { Uniform, Normal };

// ---- fast-math flags (ir/interp/fastmath.cpp) ----
/// nnan/ninf: UB when a float operand element of a governed op is a NaN / an infinity.
Status fastmath_operands(const Call& c, FastMath fm);
/// nnan/ninf: UB when a float result element is a NaN / an infinity; nsz: applies `signs` to zero
/// results of an instruction of a function body.
Status fastmath_results(const Call& c, FastMath fm, const ZeroSigns* signs, Out& out);

// ---- family kernels ----
Status eval_unary(const Call& c, Out& out, Unary kind);
Status eval_binary(const Call& c, Out& out, Binary kind);
Status eval_compare(const Call& c, Out& out);
Status eval_select(const Call& c, Out& out);
Status eval_cast(const Call& c, Out& out);
Status eval_constant(const Call& c, Out& out);
Status eval_reshape(const Call& c, Out& out);
Status eval_transpose(const Call& c, Out& out);
Status eval_broadcast(const Call& c, Out& out);
Status eval_slice(const Call& c, Out& out);
Status eval_concat(const Call& c, Out& out);
Status eval_pad(const Call& c, Out& out);
Status eval_tile(const Call& c, Out& out);
Status eval_iota(const Call& c, Out& out);
Status eval_reduce(const Call& c, Out& out, Fold kind);  // reduce_sum reduce_max reduce_min
Status eval_argmax(const Call& c, Out& out);
Status eval_segment_reduce(const Call& c, Out& out);
Status eval_dot_general(const Call& c, Out& out);
Status eval_take(const Call& c, Out& out);
Status eval_gather(const Call& c, Out& out);
Status eval_scatter_reduce(const Call& c, Out& out);
Status eval_scatter_add(const Call& c, Out& out);
Status eval_dynamic_slice(const Call& c, Out& out);
Status eval_dynamic_update_slice(const Call& c, Out& out);
Status eval_extract_patches(const Call& c, Out& out);
Status eval_reduce_window(const Call& c, Out& out);
Status eval_top_k(const Call& c, Out& out);
Status eval_cond(const Call& c, Out& out);
Status eval_while(const Call& c, Out& out);
Status eval_scan(const Call& c, Out& out);
Status eval_rng(const Call& c, Out& out, Rng kind);
Status eval_opaque(const Call& c, Out& out);       // custom_call quantize dequantize requantize

}  // namespace ptir::interp
