// Mutants for checking the refinement checker: a program and a small change of it (operand swap,
// constant nudged by one ulp, op swap, dropped negation). Most mutants change the meaning, some do not
// (swapping the operands of a commutative op, nudging a constant whose use ignores it); the checker
// must get each right either way, and the properties confirm its verdicts in the interpreter.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "fuzz/gen/choices.h"
#include "ir/program.h"

namespace ptir::fuzz {

/// Kinds of mutation.
enum class MutationKind : uint8_t { OperandSwap, ConstantNudge, OpSwap, DropNegation };

/// A mutated copy of a program.
struct Mutant {
  std::unique_ptr<Program> program;
  MutationKind kind;
  std::string description;  ///< e.g. "swap operands 0 and 1 of sub (%v3)"
};

/// Applies one mutation chosen by `c` to a copy of `p`; nullopt when `p` has no site for any kind.
/// The mutant verifies whenever `p` does.
std::optional<Mutant> mutate(const Program& p, Choices& c);

}  // namespace ptir::fuzz
