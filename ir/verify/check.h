// Internal to the verifier: the view of one instruction that every op rule reads, message building and
// the small shared checks (axes, lists, dtypes, expected result types). One rule per op family file.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "ir/program.h"

namespace ptir::verify_detail {

/// The largest rank the verifier accepts (docs/semantics.md: rank <= 16).
inline constexpr int kMaxRank = kMaxTypeRank;

/// An integer list printed as `[1, 0, 2]`.
struct List {
  std::span<const int64_t> v;
};

inline void append(std::string& s, std::string_view v) { s += v; }
inline void append(std::string& s, const char* v) { s += v; }
inline void append(std::string& s, const std::string& v) { s += v; }
void append(std::string& s, const TensorType& t);
void append(std::string& s, DType d);
void append(std::string& s, List l);
template <typename T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>)
void append(std::string& s, T v) {
  s += std::to_string(v);
}

/// Concatenates strings, integers, types, dtypes and lists into one message.
template <typename... A>
std::string cat(const A&... a) {
  std::string s;
  (append(s, a), ...);
  return s;
}

/// A small fixed-capacity dims buffer, so computing an expected result shape never allocates.
struct Dims {
  static constexpr int kCap = 2 * kMaxRank + 2;
  int64_t v[kCap];
  int n = 0;
  void push(int64_t d) {
    if (n < kCap) v[n++] = d;
  }
  std::span<const int64_t> span() const { return {v, static_cast<size_t>(n)}; }
};

/// Saturates a wide intermediate to int64 so overflowing attribute arithmetic yields a dim that cannot
/// match any real type (and is reported as a mismatch) instead of wrapping.
int64_t sat(__int128 x);

/// Everything one op rule needs about the instruction it checks.
struct Ctx {
  const Program& p;
  InstId id;
  OpCode op;
  const AttrSet& attrs;
  std::string_view name;  ///< the op's mnemonic, the first word of every message

  uint32_t num_operands() const { return p.num_operands(id); }
  uint32_t num_results() const { return p.num_results(id); }
  TypeId operand_type_id(uint32_t k) const { return p.type_id(p.operand(id, k)); }
  const TensorType& operand(uint32_t k) const { return p.type_of(p.operand(id, k)); }
  TypeId result_type_id(uint32_t k = 0) const { return p.type_id(p.result(id, k)); }
  const TensorType& result(uint32_t k = 0) const { return p.type_of(p.result(id, k)); }

  /// `NAME: ` followed by the parts.
  template <typename... A>
  std::string fail(const A&... a) const {
    return cat(name, ": ", a...);
  }
};

/// The largest magnitude of a position-geometry quantity (a pad, stride, dilation or window attribute,
/// and a dilated, padded or window-extent size computed from them): 2^61. The index maps
/// (ir/index_map.cpp), which the interpreter and both encoders read, compute positions such as
/// `o * stride + w * window_dilation - pad_low` in 64 bits; with every such quantity within 2^61 no sum
/// of them overflows. Beyond it the verifier refuses the program (docs/semantics.md, "Geometry limit"):
/// positions wrapped around, and the checker proved a wrong result (an adversarial review).
inline constexpr int64_t kMaxGeometry = int64_t{1} << 61;
/// "" when |v| <= kMaxGeometry, else the error naming `what` (an attribute entry or a computed size).
std::string check_geometry(const Ctx& c, int dim, std::string_view what, __int128 v);

/// Which dtypes an operand may have.
enum class DTypeRule : uint8_t {
  Any,      ///< every dtype, i1 included
  Number,   ///< integers and floats, not i1 (arithmetic)
  Float,    ///< floats only (transcendental and sqrt-like ops)
  Integer,  ///< integers only, not i1 (indices)
};

bool dtype_ok(DType d, DTypeRule r);
/// "" when `d` satisfies `r`, else `NAME: WHAT has dtype D, expected ...`.
std::string check_dtype(const Ctx& c, std::string_view what, DType d, DTypeRule r);
/// "" when operand k's type is the result type (compared by interned id: no allocation).
std::string check_operand_is_result_type(const Ctx& c, uint32_t k, uint32_t result = 0);
/// "" when result k is exactly (dtype, dims).
std::string check_result(const Ctx& c, uint32_t k, DType dtype, std::span<const int64_t> dims);
inline std::string check_result(const Ctx& c, uint32_t k, DType dtype, const Dims& dims) {
  return check_result(c, k, dtype, dims.span());
}
/// "" when `a` is in [0, rank): `NAME: ATTR[a] is out of range for rank R`.
std::string check_axis(const Ctx& c, std::string_view attr, int64_t a, int rank);
/// "" when the list has `rank` entries: `NAME: ATTR has N entries, expected R (the rank of WHAT)`.
std::string check_list_len(const Ctx& c, std::string_view attr, std::span<const int64_t> l, int rank,
                           std::string_view what = "operand 0");
/// "" when every entry is in [0, rank) and none repeats. Fills `mask` with the axes seen.
std::string check_axes(const Ctx& c, std::string_view attr, std::span<const int64_t> l, int rank, uint32_t* mask);
/// "" when every entry is >= `min`: `NAME: ATTR[i] = v must be >= min`.
std::string check_at_least(const Ctx& c, std::string_view attr, std::span<const int64_t> l, int64_t min);
/// "" when the largest index below `count` fits exactly in `d` (iota values, argmax/top_k indices).
std::string check_index_fits(const Ctx& c, std::string_view what, DType d, int64_t count);
/// "" when a Scalar attribute (if present) is a rank-0 literal of dtype `d`.
std::string check_scalar_attr(const Ctx& c, std::string_view attr, DType d);
/// "" when the optional accum[D] attribute is of the element's kind (float or integer, never i1).
std::string check_accum(const Ctx& c, DType elem);
/// "" when the instruction's type has rank >= `min_rank`.
std::string check_min_rank(const Ctx& c, std::string_view what, const TensorType& t, int min_rank);

// ---- op rules, one file per op family under ir/verify/ (dispatched from ir/verifier.cpp) ----
// elementwise.cpp
std::string verify_unary(const Ctx& c, DTypeRule r);
std::string verify_binary(const Ctx& c, DTypeRule r);
std::string verify_compare(const Ctx& c);
std::string verify_select(const Ctx& c);
// cast.cpp
std::string verify_cast(const Ctx& c);
// shape.cpp
std::string verify_constant(const Ctx& c);
std::string verify_reshape(const Ctx& c);
std::string verify_transpose(const Ctx& c);
std::string verify_broadcast_to(const Ctx& c);
std::string verify_slice(const Ctx& c);
std::string verify_concat(const Ctx& c);
std::string verify_pad(const Ctx& c);
std::string verify_tile(const Ctx& c);
std::string verify_iota(const Ctx& c);
// reduce.cpp
std::string verify_reduce(const Ctx& c);
std::string verify_argmax(const Ctx& c);
std::string verify_segment_reduce(const Ctx& c);
// dot.cpp
std::string verify_dot_general(const Ctx& c);
// topk.cpp
std::string verify_top_k(const Ctx& c);
// index.cpp
std::string verify_take(const Ctx& c);
std::string verify_gather(const Ctx& c);
std::string verify_scatter_reduce(const Ctx& c);
std::string verify_scatter_add(const Ctx& c);
std::string verify_dynamic_slice(const Ctx& c);
std::string verify_dynamic_update_slice(const Ctx& c);
// window.cpp
std::string verify_extract_patches(const Ctx& c);
std::string verify_reduce_window(const Ctx& c);
// control.cpp
std::string verify_cond(const Ctx& c);
std::string verify_while(const Ctx& c);
std::string verify_scan(const Ctx& c);
std::string verify_return(const Ctx& c);
// rng.cpp
std::string verify_rng(const Ctx& c);
// opaque.cpp
std::string verify_quantize(const Ctx& c);
std::string verify_custom_call(const Ctx& c);

}  // namespace ptir::verify_detail
