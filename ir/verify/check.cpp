// Shared verifier checks: message pieces, dtype classes, axis and list rules, expected result types.
// Every check returns "" on success without allocating; only a failure builds a message.
#include "ir/verify/check.h"

#include <algorithm>
#include <limits>

namespace ptir::verify_detail {

void append(std::string& s, const TensorType& t) { s += to_string(t); }
void append(std::string& s, DType d) { s += dtype_name(d); }
void append(std::string& s, List l) {
  s += '[';
  for (size_t i = 0; i < l.v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(l.v[i]);
  }
  s += ']';
}

int64_t sat(__int128 x) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (x > kMax) return kMax;
  if (x < kMin) return kMin;
  return static_cast<int64_t>(x);
}

bool dtype_ok(DType d, DTypeRule r) {
  switch (r) {
    case DTypeRule::Any: return true;
    case DTypeRule::Number: return d != DType::I1;
    case DTypeRule::Float: return is_float(d);
    case DTypeRule::Integer: return is_integer(d);
  }
  return false;
}

std::string check_dtype(const Ctx& c, std::string_view what, DType d, DTypeRule r) {
  if (dtype_ok(d, r)) return {};
  const char* want = "";
  switch (r) {
    case DTypeRule::Any: break;
    case DTypeRule::Number: want = "a number dtype (i1 arithmetic is not allowed)"; break;
    case DTypeRule::Float: want = "a float dtype"; break;
    case DTypeRule::Integer: want = "an integer dtype"; break;
  }
  return c.fail(what, " has dtype ", d, ", expected ", want);
}

std::string check_operand_is_result_type(const Ctx& c, uint32_t k, uint32_t result) {
  if (c.operand_type_id(k) == c.result_type_id(result)) return {};
  if (result == 0 && c.num_results() == 1)
    return c.fail("operand ", k, " has type ", c.operand(k), ", expected ", c.result(), " (the result type)");
  return c.fail("operand ", k, " has type ", c.operand(k), ", expected ", c.result(result), " (the type of result ",
                result, ")");
}

std::string check_result(const Ctx& c, uint32_t k, DType dtype, std::span<const int64_t> dims) {
  const TensorType& r = c.result(k);
  if (r.dtype == dtype && std::equal(r.dims.begin(), r.dims.end(), dims.begin(), dims.end())) return {};
  TensorType want{dtype, std::vector<int64_t>(dims.begin(), dims.end())};
  if (c.num_results() == 1) return c.fail("result has type ", r, ", expected ", want);
  return c.fail("result ", k, " has type ", r, ", expected ", want);
}

std::string check_axis(const Ctx& c, std::string_view attr, int64_t a, int rank) {
  if (a >= 0 && a < rank) return {};
  return c.fail(attr, "[", a, "] is out of range for rank ", rank);
}

std::string check_list_len(const Ctx& c, std::string_view attr, std::span<const int64_t> l, int rank,
                           std::string_view what) {
  if (static_cast<int64_t>(l.size()) == rank) return {};
  return c.fail(attr, " has ", l.size(), " entr", l.size() == 1 ? "y" : "ies", ", expected ", rank, " (the rank of ",
                what, ")");
}

std::string check_axes(const Ctx& c, std::string_view attr, std::span<const int64_t> l, int rank, uint32_t* mask) {
  uint32_t seen = 0;
  for (int64_t a : l) {
    // rank <= kMaxRank is checked before any rule runs, so a 32-bit mask holds every axis.
    if (a < 0 || a >= rank) return c.fail(attr, List{l}, " has axis ", a, ", out of range for rank ", rank);
    if (seen & (1u << a)) return c.fail(attr, List{l}, " repeats axis ", a);
    seen |= 1u << a;
  }
  if (mask) *mask = seen;
  return {};
}

std::string check_at_least(const Ctx& c, std::string_view attr, std::span<const int64_t> l, int64_t min) {
  for (size_t i = 0; i < l.size(); ++i)
    if (l[i] < min) return c.fail(attr, " entry ", i, " is ", l[i], ", expected >= ", min);
  return {};
}

std::string check_geometry(const Ctx& c, int dim, std::string_view what, __int128 v) {
  if (v <= kMaxGeometry && v >= -__int128{kMaxGeometry}) return {};
  return c.fail("dim ", dim, ": ", what, " is ", sat(v), ", beyond the geometry limit 2^61 (docs/semantics.md)");
}

std::string check_index_fits(const Ctx& c, std::string_view what, DType d, int64_t count) {
  if (count <= 1) return {};
  uint64_t max_index = static_cast<uint64_t>(count - 1);
  uint64_t limit = is_float(d) ? (uint64_t{1} << (dtype_info(d).frac_bits + 1)) : int_max_bits(d);
  if (max_index <= limit) return {};
  return c.fail(what, " dtype ", d, " cannot hold index ", max_index, " exactly");
}

std::string check_scalar_attr(const Ctx& c, std::string_view attr, DType d) {
  const AttrValue* v = c.attrs.find(attr);
  if (!v) return {};
  const Tensor& t = v->lit;
  if (t.type.dtype == d && t.type.dims.empty() && t.data.size() == static_cast<size_t>(dtype_bytes(d))) return {};
  return c.fail(attr, "[...] has type ", t.type, ", expected ", TensorType{d, {}}, " (a scalar of operand 0's dtype)");
}

std::string check_min_rank(const Ctx& c, std::string_view what, const TensorType& t, int min_rank) {
  if (t.rank() >= min_rank) return {};
  return c.fail(what, " has type ", t, ", expected rank >= ", min_rank);
}

// accum[D] folds in D and casts back, so it must be of the element's kind (float or integer), never i1.
std::string check_accum(const Ctx& c, DType elem) {
  const AttrValue* a = c.attrs.find("accum");
  if (!a) return {};
  DType d = static_cast<DType>(a->ints[0]);
  if (d != DType::I1 && is_float(d) == is_float(elem)) return {};
  return c.fail("accum[", d, "] must be ", is_float(elem) ? "a float dtype" : "an integer dtype",
                " like the element dtype ", elem);
}

}  // namespace ptir::verify_detail
