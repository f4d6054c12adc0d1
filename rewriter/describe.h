// Text for people and hashes for checks: one instruction as a line of PTIR, a program fingerprint.
#pragma once
#include <cstdint>
#include <string>

#include "ir/program.h"

namespace ptir {

/// One instruction in the text format, e.g. `%y = transpose %x perm[1, 0] -> tensor<f32, 3x2>`.
/// Unnamed values print as `%vN` (N = ValueId). Works on erased instructions too.
std::string describe_inst(const Program& p, InstId i);
/// `'mnemonic'(inst N)`, the short form used in debug logs.
std::string short_inst(const Program& p, InstId i);
/// A structural hash of every body: ops, attribute sets, operands, result types, parameters and order.
/// Equal programs hash equal; any edit through ProgramRewriter changes it (up to hash collisions).
uint64_t program_fingerprint(const Program& p);

}  // namespace ptir
