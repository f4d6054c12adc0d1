// DType facts and exact IEEE conversions (no host-FPU double rounding anywhere).
#include "ir/dtype.h"

#include <cfenv>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptir {
namespace {
/// A literal as a message shows it: at most 40 characters, then "... (N characters)".
std::string shown_literal(std::string_view s) {
  if (s.size() <= 40) return std::string(s);
  return std::string(s.substr(0, 40)) + "... (" + std::to_string(s.size()) + " characters)";
}
constexpr const DTypeInfo (&kInfo)[kNumDTypes] = detail::kDTypeInfo;

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
}  // namespace


std::optional<DType> parse_dtype(std::string_view s) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (iequal(s, kInfo[i].name)) return static_cast<DType>(i);
  return std::nullopt;
}


uint64_t round_to_float(DType t, bool neg, uint64_t mant, int exp2, bool sticky) {
  const DTypeInfo& fi = dtype_info(t);
  const int M = fi.frac_bits, E = fi.exp_bits;
  const int bias = (1 << (E - 1)) - 1;
  const uint64_t sign = neg ? sign_mask(t) : 0;
  if (mant == 0) return sign;  // a sticky tail alone is below every subnormal: rounds to zero
  const int msb = 63 - __builtin_clzll(mant);
  const int e = msb + exp2;      // unbiased exponent of the leading bit
  const int emin = 1 - bias;
  const int ulp_exp0 = (e > emin ? e : emin) - M;
  int drop = ulp_exp0 - exp2;    // low bits of mant below the target ulp
  unsigned __int128 q;
  int ulp_exp = ulp_exp0;
  if (drop <= 0) {
    q = static_cast<unsigned __int128>(mant) << (-drop);
  } else if (drop > 64) {
    q = 0;  // mant < 2^64 <= half an ulp: rounds down (sticky can't reach half)
  } else {
    unsigned __int128 m = mant;
    unsigned __int128 half = static_cast<unsigned __int128>(1) << (drop - 1);
    unsigned __int128 rem = m & ((half << 1) - 1);
    q = m >> drop;
    bool up = rem > half || (rem == half && (sticky || (q & 1)));
    if (up) ++q;
  }
  const unsigned __int128 hidden = static_cast<unsigned __int128>(1) << M;
  if (q >= (hidden << 1)) { q >>= 1; ++ulp_exp; }
  if (q < hidden) return sign | static_cast<uint64_t>(q);  // subnormal or zero
  int biased = ulp_exp + M + bias;
  if (biased >= (1 << E) - 1) return sign | float_inf(t, false);
  return sign | (static_cast<uint64_t>(biased) << M) | static_cast<uint64_t>(q - hidden);
}

double float_to_double(DType t, uint64_t bits) {
  const DTypeInfo& fi = dtype_info(t);
  if (t == DType::F64) { double d; std::memcpy(&d, &bits, 8); return d; }
  const int M = fi.frac_bits, E = fi.exp_bits, bias = (1 << (E - 1)) - 1;
  bool neg = bits & sign_mask(t);
  uint64_t frac = bits & ((uint64_t{1} << M) - 1);
  uint64_t ex = (bits >> M) & ((uint64_t{1} << E) - 1);
  double mag;
  if (ex == (uint64_t{1} << E) - 1) mag = frac ? std::nan("") : INFINITY;
  else if (ex == 0) mag = std::ldexp(static_cast<double>(frac), 1 - bias - M);
  else mag = std::ldexp(static_cast<double>(frac | (uint64_t{1} << M)), int(ex) - bias - M);
  return neg ? -mag : mag;
}

uint64_t double_to_float(DType t, double v) {
  uint64_t b; std::memcpy(&b, &v, 8);
  if (t == DType::F64) return std::isnan(v) ? canonical_nan(t) : b;
  if (std::isnan(v)) return canonical_nan(t);
  bool neg = b >> 63;
  if (std::isinf(v)) return float_inf(t, neg);
  uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  int ex = int((b >> 52) & 0x7FF);
  const uint64_t mant = ex == 0 ? frac : frac | (uint64_t{1} << 52);
  const int exp2 = ex == 0 ? -1074 : ex - 1075;
  switch (t) {
    case DType::F16: return detail::round_double_narrow<10, 5>(t, neg, mant, exp2);
    case DType::BF16: return detail::round_double_narrow<7, 8>(t, neg, mant, exp2);
    case DType::F32: return detail::round_double_narrow<23, 8>(t, neg, mant, exp2);
    default: return round_to_float(t, neg, mant, exp2);
  }
}

int64_t int_value(DType t, uint64_t bits) {
  int b = dtype_bits(t);
  bits &= bits_mask(t);
  if (is_signed_int(t) && b < 64 && (bits >> (b - 1)) & 1) return static_cast<int64_t>(bits | ~bits_mask(t));
  return static_cast<int64_t>(bits);
}
int64_t int_min(DType t) {
  if (!is_signed_int(t)) return 0;
  return dtype_bits(t) == 64 ? INT64_MIN : -(int64_t{1} << (dtype_bits(t) - 1));
}
uint64_t int_max_bits(DType t) {
  if (t == DType::I1) return 1;
  return is_signed_int(t) ? (bits_mask(t) >> 1) : bits_mask(t);
}

namespace {
std::optional<uint64_t> parse_hex_bits(std::string_view s, DType t, std::string* err) {
  uint64_t v = 0;
  auto r = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.size() == 2) {
    if (err) *err = "bad hex bit pattern '" + shown_literal(s) + "'";
    return std::nullopt;
  }
  if (v & ~bits_mask(t)) {
    if (err) *err = "bit pattern '" + shown_literal(s) + "' is wider than " + dtype_name(t);
    return std::nullopt;
  }
  return v;
}

double strtod_mode(const std::string& s, int mode, char** end) {
  std::fesetround(mode);
  double d = std::strtod(s.c_str(), end);
  std::fesetround(FE_TONEAREST);
  return d;
}
}  // namespace

std::optional<uint64_t> parse_float_elem(std::string_view s, DType t, std::string* err) {
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) { neg = body[0] == '-'; body.remove_prefix(1); }
  if (body == "inf") return float_inf(t, neg);
  if (body == "nan") return canonical_nan(t) | (neg ? sign_mask(t) : 0);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_hex_bits(s, t, err);
  // Only plain decimal syntax: digits, one '.', an optional exponent.
  bool digit = false;
  int dots = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c >= '0' && c <= '9') { digit = true; continue; }
    // A second '.' is malformed (`1.0.5` was read as 1.0: strtod stopped at it).
    if (c == '.' && ++dots == 1) continue;
    if ((c == 'e' || c == 'E') && digit) {
      size_t j = i + 1;
      if (j < body.size() && (body[j] == '+' || body[j] == '-')) ++j;
      bool ed = j < body.size();
      for (; j < body.size(); ++j) ed = ed && body[j] >= '0' && body[j] <= '9';
      if (!ed) digit = false;
      break;
    }
    digit = false;
    break;
  }
  if (!digit) {
    if (err) *err = "bad float literal '" + shown_literal(s) + "'";
    return std::nullopt;
  }
  // Fast path: the nearest double by from_chars, with no rounding-mode switch (the exact path below
  // switches modes four times, a tenth of a small program's parse). Rounding that double to the target
  // rounds the decimal itself the same way unless the double is a rounding boundary of the target (a
  // midpoint between two of its values, or its overflow threshold): every boundary is a double, and no
  // double but the nearest one lies within half a double ulp of the decimal, so the decimal and its
  // double are on the same side of every other boundary. When the double's two neighbours at a quarter
  // ulp round alike it is no boundary; otherwise (and for anything from_chars does not take whole) the
  // exact path decides.
  {
    double d = 0;
    const auto r = std::from_chars(body.data(), body.data() + body.size(), d);
    if (r.ec == std::errc() && r.ptr == body.data() + body.size() && std::isfinite(d)) {
      uint64_t b;
      if (t == DType::F64) {
        const double v = neg ? -d : d;
        std::memcpy(&b, &v, 8);
        return b;
      }
      std::memcpy(&b, &d, 8);
      const uint64_t frac = b & ((uint64_t{1} << 52) - 1);
      const int ex = int((b >> 52) & 0x7FF);
      const uint64_t mant = ex == 0 ? frac : (frac | (uint64_t{1} << 52));
      const int e2 = ex == 0 ? -1074 : ex - 1075;
      if (mant == 0) return neg ? sign_mask(t) : 0;
      const uint64_t above = round_to_float(t, neg, (mant << 2) + 1, e2 - 2, false);
      const uint64_t below = round_to_float(t, neg, (mant << 2) - 1, e2 - 2, false);
      if (above == below) return above;
    }
  }
  std::string str(s);
  char* end = nullptr;
  if (t == DType::F64) {
    double d = strtod_mode(str, FE_TONEAREST, &end);
    uint64_t b; std::memcpy(&b, &d, 8); return b;
  }
  // Round to odd in double, then once to the target: exact because double has >= 2p+2 bits for every target.
  double lo = strtod_mode(str, FE_TOWARDZERO, &end);
  // Away from zero: upward for a positive decimal, downward for a negative one (upward would truncate
  // a negative one too, so a negative decimal just past a tie was taken for the tie).
  double hi = strtod_mode(str, neg ? FE_DOWNWARD : FE_UPWARD, &end);
  bool inexact = lo != hi;
  uint64_t b; std::memcpy(&b, &lo, 8);
  if (std::isinf(lo)) return float_inf(t, neg);
  bool dneg = b >> 63;
  uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  int ex = int((b >> 52) & 0x7FF);
  uint64_t mant = ex == 0 ? frac : (frac | (uint64_t{1} << 52));
  int e2 = ex == 0 ? -1074 : ex - 1075;
  if (mant == 0 && inexact) { mant = 1; e2 = -1074 - 8; inexact = false; }  // below every double: a tiny odd value
  if (inexact) { mant = (mant << 2) | 1; e2 -= 2; }  // sticky below the double's last bit
  if (mant == 0) return dneg || neg ? sign_mask(t) : 0;
  return round_to_float(t, dneg, mant, e2, false);
}

std::optional<uint64_t> parse_int_elem(std::string_view s, DType t, std::string* err) {
  if (t == DType::I1) {
    if (s == "true" || s == "1") return 1;
    if (s == "false" || s == "0") return 0;
    if (err) *err = "i1 element must be true or false, got '" + shown_literal(s) + "'";
    return std::nullopt;
  }
  bool neg = !s.empty() && s[0] == '-';
  std::string_view digits = (neg || (!s.empty() && s[0] == '+')) ? s.substr(1) : s;
  uint64_t mag = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), mag, 10);
  if (digits.empty() || r.ec == std::errc::invalid_argument || r.ptr != digits.data() + digits.size()) {
    if (err) *err = "bad integer literal '" + shown_literal(s) + "'";
    return std::nullopt;
  }
  bool range_ok = r.ec == std::errc();
  if (range_ok) {
    if (neg) {
      uint64_t lim = is_signed_int(t) ? uint64_t(0) - static_cast<uint64_t>(int_min(t)) : 0;
      range_ok = mag <= lim;
    } else {
      range_ok = mag <= int_max_bits(t);
    }
  }
  if (!range_ok) {
    if (err) *err = "integer literal " + shown_literal(s) + " is out of range for " + dtype_name(t);
    return std::nullopt;
  }
  uint64_t v = neg ? (uint64_t(0) - mag) : mag;
  return v & bits_mask(t);
}

namespace {

/// The shortest round-trip digits (`sci`: std::to_chars's scientific form, "-1.2345e+10") written in
/// fixed notation when that is no longer than the scientific form (ties go to fixed), else `sci` itself.
/// std::to_chars's own choice writes the value's exact integer digits in fixed notation
/// (13653698560 for the f32 nearest 1.3653699e10), more significant digits than the value needs; here
/// the fixed form pads the shortest digits with zeros (13653699000), which reads back to the same bits.
std::string fixed_or_scientific(std::string_view sci) {
  const bool neg = !sci.empty() && sci[0] == '-';
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(neg ? 1 : 0, e - (neg ? 1 : 0)))
    if (c != '.') digits += c;
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
  const long point = static_cast<long>(exp) + 1;  // digits before the decimal point
  const long n = static_cast<long>(digits.size());
  std::string fixed = neg ? "-" : "";
  if (point <= 0) {
    fixed += "0.";
    fixed.append(static_cast<size_t>(-point), '0');
    fixed += digits;
  } else if (point >= n) {
    fixed += digits;
    fixed.append(static_cast<size_t>(point - n), '0');
  } else {
    fixed += digits.substr(0, static_cast<size_t>(point));
    fixed += '.';
    fixed += digits.substr(static_cast<size_t>(point));
  }
  return fixed.size() <= sci.size() ? fixed : std::string(sci);
}

}  // namespace

std::string format_elem(DType t, uint64_t bits) {
  if (t == DType::I1) return bits & 1 ? "true" : "false";
  if (!is_float(t))
    return is_signed_int(t) ? std::to_string(int_value(t, bits)) : std::to_string(bits & bits_mask(t));
  if (float_is_nan(t, bits)) {
    if (bits == canonical_nan(t)) return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llX", dtype_bits(t) / 4, static_cast<unsigned long long>(bits));
    return buf;
  }
  if (float_is_inf(t, bits)) return float_sign(t, bits) ? "-inf" : "inf";
  char buf[64];
  std::string out;
  if (t == DType::F64 || t == DType::F32) {
    std::to_chars_result r;
    if (t == DType::F64) {
      double d; std::memcpy(&d, &bits, 8);
      r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    } else {
      uint32_t b32 = static_cast<uint32_t>(bits);
      float f; std::memcpy(&f, &b32, 4);
      r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
    }
    out = fixed_or_scientific(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
  } else {
    // f16/bf16: the fewest significant digits that read back to the same bits, then fixed or
    // scientific as for f32 (with %g, 2050 printed as 2.05e+03 where f32 prints 2050.0).
    double d = float_to_double(t, bits);
    int p = 1;
    for (; p <= 17; ++p) {
      std::snprintf(buf, sizeof buf, "%.*e", p - 1, d);
      auto back = parse_float_elem(buf, t, nullptr);
      if (back && *back == bits) break;
    }
    out = fixed_or_scientific(buf);
  }
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

}  // namespace ptir
