// Verifier rules of the control family: cond, while, scan (region signatures against the op's operands
// and results, docs/semantics.md "Control flow") and return (against its body's declared result types).
// Region references were already checked to name region bodies before these rules run.
#include "ir/verify/check.h"

namespace ptir::verify_detail {
namespace {

/// The types a region must take and return, and where they come from (for count messages).
struct Signature {
  std::vector<TensorType> params;
  const char* params_from;
  std::vector<TensorType> results;
  const char* results_from;
};

std::string check_signature(const Ctx& c, std::string_view attr, const Signature& want) {
  const AttrValue* a = c.attrs.find(attr);
  const Body& r = c.p.body(static_cast<BodyId>(a->ints[0]));
  std::string ref = cat(attr, "[^", a->text, "]");
  if (r.params.size() != want.params.size())
    return c.fail(ref, " takes ", r.params.size(), r.params.size() == 1 ? " parameter" : " parameters", ", expected ",
                  want.params.size(), " (",
                  want.params_from, ")");
  for (size_t k = 0; k < r.params.size(); ++k)
    if (c.p.type_of(r.params[k]) != want.params[k])
      return c.fail(ref, " parameter ", k, " has type ", c.p.type_of(r.params[k]), ", expected ", want.params[k]);
  if (r.result_types.size() != want.results.size())
    return c.fail(ref, " returns ", r.result_types.size(), r.result_types.size() == 1 ? " value" : " values",
                  ", expected ", want.results.size(), " (",
                  want.results_from, ")");
  for (size_t k = 0; k < r.result_types.size(); ++k)
    if (c.p.type(r.result_types[k]) != want.results[k])
      return c.fail(ref, " result ", k, " has type ", c.p.type(r.result_types[k]), ", expected ", want.results[k]);
  return {};
}

std::vector<TensorType> operand_types(const Ctx& c, uint32_t from, uint32_t to) {
  std::vector<TensorType> out;
  for (uint32_t k = from; k < to; ++k) out.push_back(c.operand(k));
  return out;
}

std::vector<TensorType> result_types(const Ctx& c) {
  std::vector<TensorType> out;
  for (uint32_t k = 0; k < c.num_results(); ++k) out.push_back(c.result(k));
  return out;
}

TensorType drop_leading(const TensorType& t) { return TensorType{t.dtype, {t.dims.begin() + 1, t.dims.end()}}; }

}  // namespace

std::string verify_cond(const Ctx& c) {
  const TensorType& pred = c.operand(0);
  if (pred.dtype != DType::I1 || pred.rank() != 0)
    return c.fail("operand 0 (pred) has type ", pred, ", expected tensor<i1>");
  Signature sig{operand_types(c, 1, c.num_operands()), "the args of cond", result_types(c), "the results of cond"};
  if (auto e = check_signature(c, "then", sig); !e.empty()) return e;
  return check_signature(c, "else", sig);
}

std::string verify_while(const Ctx& c) {
  if (c.num_results() != c.num_operands())
    return c.fail("has ", c.num_results(), c.num_results() == 1 ? " result" : " results", ", expected ",
                  c.num_operands(), " (one per init operand)");
  for (uint32_t k = 0; k < c.num_results(); ++k)
    if (c.result_type_id(k) != c.operand_type_id(k))
      return c.fail("result ", k, " has type ", c.result(k), ", expected ", c.operand(k), " (the type of init operand ",
                    k, ")");
  std::vector<TensorType> state = operand_types(c, 0, c.num_operands());
  Signature cond{state, "the loop state", {TensorType{DType::I1, {}}}, "one tensor<i1>"};
  if (auto e = check_signature(c, "cond", cond); !e.empty()) return e;
  return check_signature(c, "body", Signature{state, "the loop state", state, "the loop state"});
}

namespace {

/// xs: at least one, each of rank >= 1, all with the leading dim of the first.
std::string check_scan_xs(const Ctx& c, uint32_t n) {
  if (n >= c.num_operands())
    return c.fail("needs at least one xs operand after the ", n, n == 1 ? " carry" : " carries",
                  " (the xs give the length)");
  for (uint32_t k = n; k < c.num_operands(); ++k) {
    const TensorType& x = c.operand(k);
    if (x.rank() == 0) return c.fail("operand ", k, " (xs ", k - n, ") has type ", x, ", expected rank >= 1");
    if (x.dims[0] != c.operand(n).dims[0])
      return c.fail("operand ", k, " (xs ", k - n, ") has leading dim ", x.dims[0], ", expected ",
                    c.operand(n).dims[0], " (the leading dim of operand ", n, ")");
  }
  return {};
}

/// Results: the carries' types, then each y stacked to [L, ...].
std::string check_scan_results(const Ctx& c, uint32_t n, int64_t len) {
  if (c.num_results() < n)
    return c.fail("has ", c.num_results(), c.num_results() == 1 ? " result" : " results", ", expected at least ", n,
                  " (the carries)");
  for (uint32_t k = 0; k < n; ++k)
    if (c.result_type_id(k) != c.operand_type_id(k))
      return c.fail("result ", k, " has type ", c.result(k), ", expected ", c.operand(k), " (the type of carry ", k, ")");
  for (uint32_t k = n; k < c.num_results(); ++k) {
    const TensorType& y = c.result(k);
    if (y.rank() == 0 || y.dims[0] != len)
      return c.fail("result ", k, " has type ", y, ", expected a leading dim of ", len, " (a stacked y)");
  }
  return {};
}

}  // namespace

std::string verify_scan(const Ctx& c) {
  int64_t carries = c.attrs.int_or("carries", 0);
  if (carries < 0 || carries > c.num_operands())
    return c.fail("carries[", carries, "] is out of range for ", c.num_operands(), " operands");
  uint32_t n = static_cast<uint32_t>(carries);
  if (auto e = check_scan_xs(c, n); !e.empty()) return e;
  int64_t len = c.operand(n).dims[0];
  if (auto e = check_scan_results(c, n, len); !e.empty()) return e;
  Signature sig{operand_types(c, 0, n), "the carries, then one slice of each xs", operand_types(c, 0, n),
                "the carries, then the ys"};
  for (uint32_t k = n; k < c.num_operands(); ++k) sig.params.push_back(drop_leading(c.operand(k)));
  for (uint32_t k = n; k < c.num_results(); ++k) sig.results.push_back(drop_leading(c.result(k)));
  return check_signature(c, "body", sig);
}

std::string verify_return(const Ctx& c) {
  BodyId b = c.p.inst(c.id).body;
  const Body& body = c.p.body(b);
  const char* sigil = body.is_region ? "^" : "@";
  if (body.result_types.size() != c.num_operands())
    return c.fail("returns ", c.num_operands(), " value", c.num_operands() == 1 ? "" : "s", ", ", sigil, body.name,
                  " declares ", body.result_types.size(), " result", body.result_types.size() == 1 ? "" : "s");
  for (uint32_t k = 0; k < c.num_operands(); ++k)
    if (c.operand_type_id(k) != body.result_types[k])
      return c.fail("value ", k, " has type ", c.operand(k), ", expected ", c.p.type(body.result_types[k]),
                    " (result ", k, " of ", sigil, body.name, ")");
  return {};
}

}  // namespace ptir::verify_detail
