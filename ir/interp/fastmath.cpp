// Fast-math flags in the interpreter (docs/semantics.md "Fast-math flags"): nnan/ninf turn a NaN/inf
// operand or result of a governed op into UB; nsz zero signs are the IEEE default unless chosen.
#include "ir/interp/kernels.h"

namespace ptir::interp {
namespace {

/// UB when an element of `t` breaks nnan/ninf; `what` names the tensor in the message.
Status check_tensor(const Call& c, FastMath fm, const Tensor& t, const std::string& what) {
  if (!is_float(t.dtype())) return Status::success();
  const bool nnan = fm.has(FastMathFlag::NNaN), ninf = fm.has(FastMathFlag::NInf);
  if (!nnan && !ninf) return Status::success();
  for (int64_t i = 0, n = t.size(); i < n; ++i) {
    const uint64_t b = t.bits(i);
    if (nnan && float_is_nan(t.dtype(), b))
      return Status::ub(c.msg(what + " element " + std::to_string(i) + " is NaN under fastmath nnan"));
    if (ninf && float_is_inf(t.dtype(), b))
      return Status::ub(c.msg(what + " element " + std::to_string(i) + " is infinite under fastmath ninf"));
  }
  return Status::success();
}

}  // namespace

Status fastmath_operands(const Call& c, FastMath fm) {
  for (size_t k = 0; k < c.args.size(); ++k)
    if (Status st = check_tensor(c, fm, c.args[k], "operand " + std::to_string(k)); !st.ok()) return st;
  return Status::success();
}

Status fastmath_results(const Call& c, FastMath fm, const ZeroSigns* signs, Out& out) {
  for (size_t k = 0; k < out.size(); ++k)
    if (Status st = check_tensor(c, fm, out[k], "result " + std::to_string(k)); !st.ok()) return st;
  if (!signs || !fm.has(FastMathFlag::NSZ) || c.p.body(c.p.inst(c.inst).body).is_region || out.size() != 1)
    return Status::success();
  Tensor& r = out[0];
  if (!is_float(r.dtype())) return Status::success();
  for (int64_t i = 0, n = r.size(); i < n; ++i) {
    const uint64_t b = r.bits(i);
    if (!float_is_zero(r.dtype(), b)) continue;
    auto it = signs->find({c.inst, i});
    if (it == signs->end()) continue;
    r.set_bits(i, it->second ? sign_mask(r.dtype()) : 0);
  }
  return Status::success();
}

}  // namespace ptir::interp
