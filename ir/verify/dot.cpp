// Verifier rule of dot_general: batch and contracting lists (in range, distinct, disjoint, paired with
// equal sizes) and the result dims of docs/semantics.md: batch dims in batch_lhs order, then lhs's free
// dims, then rhs's free dims.
#include "ir/verify/check.h"

namespace ptir::verify_detail {
namespace {

/// lhs and rhs have the result's dtype (accum only changes where the products are rounded).
std::string check_operand_dtype_is_result(const Ctx& c, uint32_t k) {
  if (c.operand(k).dtype == c.result().dtype) return {};
  return c.fail("operand ", k, " has dtype ", c.operand(k).dtype, ", expected ", c.result().dtype, " (the result dtype)");
}

/// Sizes of paired lhs/rhs dims agree (batch or contracting).
std::string check_pairs(const Ctx& c, const char* what, std::span<const int64_t> l, std::span<const int64_t> r) {
  const TensorType& lhs = c.operand(0);
  const TensorType& rhs = c.operand(1);
  for (size_t i = 0; i < l.size(); ++i) {
    if (lhs.dims[l[i]] != rhs.dims[r[i]])
      return c.fail(what, " dims lhs[", l[i], "]=", lhs.dims[l[i]], " and rhs[", r[i], "]=", rhs.dims[r[i]], " differ");
  }
  return {};
}

/// The batch and contracting lists of one side: in range, distinct, disjoint.
std::string check_dot_side(const Ctx& c, bool lhs_side, std::span<const int64_t> batch,
                           std::span<const int64_t> contract, uint32_t* used) {
  const char* side = lhs_side ? "lhs" : "rhs";
  int rank = c.operand(lhs_side ? 0 : 1).rank();
  uint32_t mb = 0, mc = 0;
  if (auto e = check_axes(c, lhs_side ? "batch_lhs" : "batch_rhs", batch, rank, &mb); !e.empty()) return e;
  if (auto e = check_axes(c, lhs_side ? "contract_lhs" : "contract_rhs", contract, rank, &mc); !e.empty()) return e;
  if (uint32_t both = mb & mc; both != 0)
    return c.fail(side, " dim ", __builtin_ctz(both), " is both a batch and a contracting dim");
  *used = mb | mc;
  return {};
}

}  // namespace

std::string verify_dot_general(const Ctx& c) {
  const TensorType& lhs = c.operand(0);
  const TensorType& rhs = c.operand(1);
  for (uint32_t k = 0; k < 2; ++k)
    if (auto e = check_operand_dtype_is_result(c, k); !e.empty()) return e;
  if (auto e = check_dtype(c, "operand 0", lhs.dtype, DTypeRule::Number); !e.empty()) return e;
  const std::vector<int64_t>& bl = c.attrs.ints("batch_lhs");
  const std::vector<int64_t>& br = c.attrs.ints("batch_rhs");
  const std::vector<int64_t>& cl = c.attrs.ints("contract_lhs");
  const std::vector<int64_t>& cr = c.attrs.ints("contract_rhs");
  if (bl.size() != br.size())
    return c.fail("batch_lhs", List{bl}, " and batch_rhs", List{br}, " have different lengths");
  if (cl.size() != cr.size())
    return c.fail("contract_lhs", List{cl}, " and contract_rhs", List{cr}, " have different lengths");
  uint32_t used_l = 0, used_r = 0;
  if (auto e = check_dot_side(c, true, bl, cl, &used_l); !e.empty()) return e;
  if (auto e = check_dot_side(c, false, br, cr, &used_r); !e.empty()) return e;
  if (auto e = check_pairs(c, "batch", bl, br); !e.empty()) return e;
  if (auto e = check_pairs(c, "contracting", cl, cr); !e.empty()) return e;
  if (auto e = check_accum(c, lhs.dtype); !e.empty()) return e;
  Dims want;
  for (int64_t d : bl) want.push(lhs.dims[d]);
  for (int d = 0; d < lhs.rank(); ++d)
    if (!(used_l & (1u << d))) want.push(lhs.dims[d]);
  for (int d = 0; d < rhs.rank(); ++d)
    if (!(used_r & (1u << d))) want.push(rhs.dims[d]);
  return check_result(c, 0, lhs.dtype, want);
}

}  // namespace ptir::verify_detail
