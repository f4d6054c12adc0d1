// Small matchers shared by patterns: splat literals compared by bits.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/tensor.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// The element bits of a non-empty splat literal, else nullopt.
inline std::optional<uint64_t> splat_bits(const Tensor* t) {
  if (!t || t->size() == 0 || !t->is_splat()) return std::nullopt;
  return t->bits(0);
}

/// Bits of 1 in dtype `d` (1.0 for floats).
inline uint64_t one_bits(DType d) { return is_float(d) ? double_to_float(d, 1.0) : 1; }

/// True when `v` is a constant (inline literal or `constant` op) whose every element has bits `bits`.
inline bool is_splat_constant(const ProgramRewriter& rw, ValueId v, uint64_t bits) {
  const Tensor* t = rw.constant_of(v);
  // Compare the first element before scanning for splat-ness: most literals fail right there.
  return t && t->size() > 0 && t->bits(0) == bits && t->is_splat();
}

}  // namespace ptir
