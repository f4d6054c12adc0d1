// Fast-math flags of a function (docs/semantics.md "Fast-math flags"): nnan, ninf, nsz, reassoc,
// contract, afn as a small bitmask, the text form `fastmath[nnan, nsz]` (printed in the fixed order
// nnan, ninf, nsz, reassoc, contract, afn), and which ops the flags govern.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"

namespace ptir {

class Program;
using InstId = uint32_t;

/// One fast-math flag. The enumerator order is the canonical print order.
enum class FastMathFlag : uint8_t { NNaN = 0, NInf = 1, NSZ = 2, Reassoc = 3, Contract = 4, AFn = 5 };
inline constexpr int kNumFastMathFlags = 6;
/// Every flag.
inline constexpr uint8_t kAllFastMathBits = (1u << kNumFastMathFlags) - 1;

/// A set of fast-math flags.
struct FastMath {
  uint8_t bits = 0;

  /// Whether `f` is in the set.
  bool has(FastMathFlag f) const { return (bits >> static_cast<int>(f)) & 1; }
  /// Adds `f` to the set.
  void set(FastMathFlag f) { bits = static_cast<uint8_t>(bits | (1u << static_cast<int>(f))); }
  /// No flag at all.
  bool none() const { return bits == 0; }
  /// Every flag of this set is in `o`.
  bool subset_of(FastMath o) const { return (bits & ~o.bits) == 0; }
  /// The flags of both sets.
  FastMath operator&(FastMath o) const { return FastMath{static_cast<uint8_t>(bits & o.bits)}; }
  /// The flags of either set.
  FastMath operator|(FastMath o) const { return FastMath{static_cast<uint8_t>(bits | o.bits)}; }
  /// Flags of this set that `o` lacks.
  FastMath minus(FastMath o) const { return FastMath{static_cast<uint8_t>(bits & ~o.bits)}; }
  bool operator==(const FastMath&) const = default;
};

/// The text name of a flag ("nnan", "ninf", "nsz", "reassoc", "contract", "afn").
const char* fastmath_flag_name(FastMathFlag f);
/// The flag named `s`, nullopt for an unknown name.
std::optional<FastMathFlag> parse_fastmath_flag(std::string_view s);
/// "nnan, nsz": the set's flags in canonical order, comma separated ("" for none).
std::string fastmath_list(FastMath fm);

/// Whether op `op` is a floating-point arithmetic op that the flags govern when its operands or results
/// are floats (the list of docs/semantics.md "Fast-math flags").
bool fastmath_governs(OpCode op);

/// Under `contract` (docs/semantics.md "Fast-math flags"): the operand positions k (0 or 1) of
/// instruction i, an `add` or `sub` with a float result, whose operand value is the result of a `mul`
/// of the same type in the same body: each such k is one fused alternative (a*b+c rounded once). Empty
/// when i is no such site. The flags themselves are not looked at.
std::vector<uint32_t> contract_operands(const Program& p, InstId i);

/// The value of one fused alternative of a contract site, on the raw bits of its elements: `x`, `y`
/// the operands of the mul, `z` the other operand of the add/sub, `sub` whether the site is a `sub`
/// and `k` the position of the mul in it: add = fma(x, y, z); sub with k = 0: fma(x, y, -z); sub with
/// k = 1: fma(-x, y, z). Rounded once (RNE) to the float dtype `t`; a NaN result is the canonical NaN.
uint64_t contract_fused(DType t, uint64_t x, uint64_t y, uint64_t z, bool sub, uint32_t k);

}  // namespace ptir
