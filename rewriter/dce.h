// Dead-code elimination, as a function and as the `dce` pass.
#pragma once
#include <cstdint>

#include "rewriter/pass.h"

namespace ptir {

/// Erases pure instructions whose results are unused, in one backward sweep per body (a dead chain goes
/// at once). Effectful ops and returns stay. Returns the number erased.
int64_t eliminate_dead_code(ProgramRewriter& rw);

/// `dce`.
class DCEPass final : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  PassResult run(ProgramRewriter& rw) override;
};

}  // namespace ptir
