// Element types of PTIR tensors and the exact IEEE encode/decode helpers every layer shares.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace ptir {

/// The dtypes of the text format. Integers are two's complement; i1 is a boolean stored in one byte.
enum class DType : uint8_t { I1, SI8, UI8, SI16, UI16, SI32, UI32, SI64, UI64, BF16, F16, F32, F64 };
inline constexpr int kNumDTypes = 13;

/// Static facts about a dtype.
struct DTypeInfo {
  const char* name;
  uint8_t bytes;     ///< storage size of one element
  uint8_t bits;      ///< value width (1 for i1)
  bool is_float;
  bool is_signed;    ///< signed integer (floats report true too)
  uint8_t exp_bits;  ///< floats only
  uint8_t frac_bits; ///< explicit fraction bits, floats only
};

namespace detail {
inline constexpr DTypeInfo kDTypeInfo[kNumDTypes] = {
    {"i1", 1, 1, false, false, 0, 0},    {"si8", 1, 8, false, true, 0, 0},
    {"ui8", 1, 8, false, false, 0, 0},   {"si16", 2, 16, false, true, 0, 0},
    {"ui16", 2, 16, false, false, 0, 0}, {"si32", 4, 32, false, true, 0, 0},
    {"ui32", 4, 32, false, false, 0, 0}, {"si64", 8, 64, false, true, 0, 0},
    {"ui64", 8, 64, false, false, 0, 0}, {"bf16", 2, 16, true, true, 8, 7},
    {"f16", 2, 16, true, true, 5, 10},   {"f32", 4, 32, true, true, 8, 23},
    {"f64", 8, 64, true, true, 11, 52},
};
}  // namespace detail

/// Inline (with the bit helpers below): the interpreter's element loops call them per element.
inline const DTypeInfo& dtype_info(DType t) { return detail::kDTypeInfo[static_cast<int>(t)]; }
inline const char* dtype_name(DType t) { return dtype_info(t).name; }
inline bool is_float(DType t) { return dtype_info(t).is_float; }
inline bool is_integer(DType t) { return !dtype_info(t).is_float && t != DType::I1; }
inline bool is_signed_int(DType t) { return is_integer(t) && dtype_info(t).is_signed; }
inline int dtype_bytes(DType t) { return dtype_info(t).bytes; }
inline int dtype_bits(DType t) { return dtype_info(t).bits; }
/// The accumulation dtype of a sum without `accum[D]` (docs/semantics.md, reduce_sum): f32 for f16 and
/// bf16, else the element dtype. The interpreter, the encoders and the conversion driver all read it here.
inline DType default_accum(DType elem) { return elem == DType::F16 || elem == DType::BF16 ? DType::F32 : elem; }
/// Parses a dtype name, case-insensitively.
std::optional<DType> parse_dtype(std::string_view s);

// ---- IEEE helpers, all exact, all on raw bit patterns held in the low bits of a uint64_t. ----

/// Rounds the value (-1)^neg * mant * 2^exp2 (plus a nonzero tail below it when `sticky`) to the float
/// dtype `t` with round-to-nearest-even; overflow gives infinity. Never double-rounds.
uint64_t round_to_float(DType t, bool neg, uint64_t mant, int exp2, bool sticky = false);
/// Exact decode of a float bit pattern of dtype `t` to double (every PTIR float fits in a double).
double float_to_double(DType t, uint64_t bits);
/// Correctly rounded (RNE) encode of a double into float dtype `t`. NaN becomes the canonical NaN.
uint64_t double_to_float(DType t, double v);
namespace detail {
/// round_to_float(t, neg, mant, exp2, false) for a double's significand and a float format of M fraction
/// and E exponent bits narrower than double (f16, bf16, f32): the same algorithm with the format's
/// constants and 64-bit arithmetic. A double's significand has at most 53 bits, so every `drop` from 1 to
/// 63 fits a 64-bit shift and a larger one leaves less than half an ulp (rounds to zero); `drop <= 0`
/// cannot happen for a narrower format (it is handed to round_to_float anyway). The interpreter's
/// float stores and the checker's exhaustive sweeps go through here; tests/ir/dtype_round_test.cpp
/// compares it with round_to_float.
template <int M, int E>
inline uint64_t round_double_narrow(DType t, bool neg, uint64_t mant, int exp2) {
  constexpr int bias = (1 << (E - 1)) - 1;
  constexpr int emin = 1 - bias;
  constexpr uint64_t kSign = uint64_t{1} << (E + M);
  constexpr uint64_t kHidden = uint64_t{1} << M;
  const uint64_t sign = neg ? kSign : 0;
  if (mant == 0) return sign;
  const int msb = 63 - __builtin_clzll(mant);
  const int e = msb + exp2;
  const int ulp_exp0 = (e > emin ? e : emin) - M;
  const int drop = ulp_exp0 - exp2;
  if (drop <= 0) return round_to_float(t, neg, mant, exp2, false);
  uint64_t q = 0;
  int ulp_exp = ulp_exp0;
  if (drop <= 63) {
    const uint64_t half = uint64_t{1} << (drop - 1);
    const uint64_t rem = mant & ((half << 1) - 1);
    q = mant >> drop;
    q += static_cast<uint64_t>(rem > half) | (static_cast<uint64_t>(rem == half) & q & 1);  // RNE, branch-free
  }
  if (q >= (kHidden << 1)) { q >>= 1; ++ulp_exp; }
  if (q < kHidden) return sign | q;  // subnormal or zero
  const int biased = ulp_exp + M + bias;
  if (biased >= (1 << E) - 1) return sign | (((uint64_t{1} << E) - 1) << M);
  return sign | (static_cast<uint64_t>(biased) << M) | (q - kHidden);
}

/// double_to_float(t, v) for f16 (M = 10, E = 5) and bf16 (M = 7, E = 8), inline for the element loops.
template <int M, int E>
inline uint64_t double_to_narrow(DType t, double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  const int ex = int((b >> 52) & 0x7FF);
  const bool neg = b >> 63;
  if (ex == 0x7FF) {
    const uint64_t inf = ((uint64_t{1} << E) - 1) << M;
    if (b & ((uint64_t{1} << 52) - 1)) return inf | (uint64_t{1} << (M - 1));  // canonical NaN
    return inf | (neg ? uint64_t{1} << (E + M) : 0);
  }
  const uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  return round_double_narrow<M, E>(t, neg, ex == 0 ? frac : frac | (uint64_t{1} << 52), ex == 0 ? -1074 : ex - 1075);
}
}  // namespace detail

inline uint64_t sign_mask(DType t) { return uint64_t{1} << (dtype_bits(t) - 1); }
/// Mask of the low `dtype_bits` bits.
inline uint64_t bits_mask(DType t) {
  const int b = dtype_bits(t);
  return b >= 64 ? ~uint64_t{0} : ((uint64_t{1} << b) - 1);
}
inline uint64_t float_inf(DType t, bool neg) {
  const DTypeInfo& fi = dtype_info(t);
  return (((uint64_t{1} << fi.exp_bits) - 1) << fi.frac_bits) | (neg ? sign_mask(t) : 0);
}
/// The positive quiet NaN with only the top fraction bit set (what `nan` parses to).
inline uint64_t canonical_nan(DType t) {
  return float_inf(t, false) | (uint64_t{1} << (dtype_info(t).frac_bits - 1));
}
inline bool float_is_nan(DType t, uint64_t bits) {
  const DTypeInfo& fi = dtype_info(t);
  const uint64_t mag = bits & ~sign_mask(t) & bits_mask(t);
  return mag > (((uint64_t{1} << fi.exp_bits) - 1) << fi.frac_bits);
}
inline bool float_is_inf(DType t, uint64_t bits) {
  return (bits & ~sign_mask(t) & bits_mask(t)) == float_inf(t, false);
}
inline bool float_is_zero(DType t, uint64_t bits) { return (bits & ~sign_mask(t) & bits_mask(t)) == 0; }
inline bool float_sign(DType t, uint64_t bits) { return bits & sign_mask(t); }

/// Sign-extends (signed ints) or zero-extends the raw element bits to a 64-bit integer value.
int64_t int_value(DType t, uint64_t bits);
/// Smallest and largest value of an integer dtype (i1: 0..1). For ui64 the max is returned as its bits.
int64_t int_min(DType t);
uint64_t int_max_bits(DType t);

/// Parses one float element of the text format: decimal, inf/-inf, nan/-nan, or an exact 0x bit pattern.
/// Decimal input is rounded once, correctly, to `t`. Returns nullopt with `err` set on bad input.
std::optional<uint64_t> parse_float_elem(std::string_view s, DType t, std::string* err);
/// Parses a decimal integer element (or true/false for i1), range-checked for `t`.
std::optional<uint64_t> parse_int_elem(std::string_view s, DType t, std::string* err);
/// Prints one element the way the text format wants it: shortest round-tripping decimal for floats
/// (always with a '.' or exponent), hex for NaNs other than the canonical one, true/false for i1.
std::string format_elem(DType t, uint64_t bits);

}  // namespace ptir
