// Alpha-equivalence of two function bodies: the same program up to the names of its values. Two such
// bodies have the same meaning by construction (PTIR's semantics reads ops, attributes, types, literals
// and the operand graph, never a value's name), so a caller may take it as a proof of refinement both
// ways without asking Z3 (MlirRoundTrip.* does, for import(export(p)) against p; docs/mlir.md).
#pragma once
#include <string>

#include "ir/program.h"

namespace ptir::verify {

/// Whether body `ab` of `a` and body `bb` of `b` are identical up to value names: the same fast-math
/// flags, parameter and result types, and the same instructions in the same order (op, attributes
/// compared exactly and in order, literals bit for bit, result types), each operand the same
/// parameter, the corresponding earlier result, or an equal literal. Bodies whose instructions carry
/// regions are never equivalent here (their bodies are not compared). `why` (optional) gets the first
/// difference.
bool alpha_equivalent(const Program& a, BodyId ab, const Program& b, BodyId bb, std::string* why = nullptr);

}  // namespace ptir::verify
