// Fast-math flags of a function (docs/semantics.md "Fast-math flags"): nnan, ninf, nsz, reassoc as a
// small bitmask, the text form `fastmath[nnan, nsz]` (printed in the fixed order nnan, ninf, nsz,
// reassoc), and which ops the flags govern.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/ops.h"

namespace ptir {

/// One fast-math flag. The enumerator order is the canonical print order.
enum class FastMathFlag : uint8_t { NNaN = 0, NInf = 1, NSZ = 2, Reassoc = 3 };
inline constexpr int kNumFastMathFlags = 4;

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
  /// Flags of this set that `o` lacks.
  FastMath minus(FastMath o) const { return FastMath{static_cast<uint8_t>(bits & ~o.bits)}; }
  bool operator==(const FastMath&) const = default;
};

/// The text name of a flag ("nnan", "ninf", "nsz", "reassoc").
const char* fastmath_flag_name(FastMathFlag f);
/// The flag named `s`, nullopt for an unknown name.
std::optional<FastMathFlag> parse_fastmath_flag(std::string_view s);
/// "nnan, nsz": the set's flags in canonical order, comma separated ("" for none).
std::string fastmath_list(FastMath fm);

/// Whether op `op` is a floating-point arithmetic op that the flags govern when its operands or results
/// are floats (the list of docs/semantics.md "Fast-math flags").
bool fastmath_governs(OpCode op);

}  // namespace ptir
