// Common-subexpression elimination, as a function and as the `cse` pass.
#pragma once
#include <cstdint>

#include "rewriter/pass.h"

namespace ptir {

/// Merges each pure instruction into an earlier identical one of the same body: same op, attribute set,
/// operands (in either order for commutative ops) and result types. Literals compare by bits (interned),
/// so -0.0 and +0.0 stay apart. Effectful ops (rng) are never merged. Bodies do not capture outer values,
/// so a region's instructions can only merge within that region: the only place dominance allows.
/// Returns the number of instructions removed.
int64_t eliminate_common_subexpressions(ProgramRewriter& rw);

/// `cse`.
class CSEPass final : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  PassResult run(ProgramRewriter& rw) override;
};

}  // namespace ptir
