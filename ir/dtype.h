// Element types of PTIR tensors and the exact IEEE encode/decode helpers every layer shares.
#pragma once
#include <cstdint>
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

const DTypeInfo& dtype_info(DType t);
inline const char* dtype_name(DType t) { return dtype_info(t).name; }
inline bool is_float(DType t) { return dtype_info(t).is_float; }
inline bool is_integer(DType t) { return !dtype_info(t).is_float && t != DType::I1; }
inline bool is_signed_int(DType t) { return is_integer(t) && dtype_info(t).is_signed; }
inline int dtype_bytes(DType t) { return dtype_info(t).bytes; }
inline int dtype_bits(DType t) { return dtype_info(t).bits; }
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
bool float_is_nan(DType t, uint64_t bits);
bool float_is_inf(DType t, uint64_t bits);
bool float_is_zero(DType t, uint64_t bits);
bool float_sign(DType t, uint64_t bits);
/// The positive quiet NaN with only the top fraction bit set (what `nan` parses to).
uint64_t canonical_nan(DType t);
uint64_t float_inf(DType t, bool neg);
uint64_t sign_mask(DType t);
/// Mask of the low `dtype_bits` bits.
uint64_t bits_mask(DType t);

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
