// Verifier rules of the elementwise family: unary and binary arithmetic, compare, select, stop_gradient.
// These run on almost every instruction, so the success path compares interned type ids and never allocates.
#include "ir/verify/check.h"

namespace ptir::verify_detail {

std::string verify_unary(const Ctx& c, DTypeRule r) {
  if (auto e = check_operand_is_result_type(c, 0); !e.empty()) return e;
  return check_dtype(c, "operand 0", c.operand(0).dtype, r);
}

std::string verify_binary(const Ctx& c, DTypeRule r) {
  for (uint32_t k = 0; k < 2; ++k)
    if (auto e = check_operand_is_result_type(c, k); !e.empty()) return e;
  return check_dtype(c, "operand 0", c.operand(0).dtype, r);
}

std::string verify_compare(const Ctx& c) {
  if (c.operand_type_id(1) != c.operand_type_id(0))
    return c.fail("operand 1 has type ", c.operand(1), ", expected ", c.operand(0), " (the type of operand 0)");
  // Every dtype compares: i1 orders false < true (docs/semantics.md).
  return check_result(c, 0, DType::I1, c.operand(0).dims);
}

std::string verify_select(const Ctx& c) {
  const TensorType& pred = c.operand(0);
  const TensorType& r = c.result();
  if (pred.dtype != DType::I1 || pred.dims != r.dims)
    return c.fail("operand 0 (pred) has type ", pred, ", expected ", TensorType{DType::I1, r.dims},
                  " (i1 of the result shape)");
  for (uint32_t k = 1; k < 3; ++k)
    if (auto e = check_operand_is_result_type(c, k); !e.empty()) return e;
  return {};
}

}  // namespace ptir::verify_detail
