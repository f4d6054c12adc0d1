// Generated benchmark programs: a DAG of elementwise ops over small tensors, sprinkled with what the
// seed patterns, CSE and DCE look for (transpose pairs, unary-of-broadcast, x*1, x+(-0.0), no-op casts,
// duplicate subexpressions, dead ops, literal operands).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/program.h"

namespace ptir::bench {

struct GenOptions {
  size_t num_ops = 10000;  ///< instructions in @main, return included (approximately: pairs may add one)
  uint64_t seed = 1;
};

/// Builds the program directly through the Program API.
std::unique_ptr<Program> generate_program(const GenOptions& opts);

}  // namespace ptir::bench
