// Per-op fold hooks: cheap, local simplifications the greedy driver tries before any pattern.
//
// A fold never edits the IR; it returns what the (single) result equals: an existing value, or a literal
// for the driver to materialize. Constant folding runs the reference interpreter on small all-constant
// instructions; identity folds (reshape/broadcast_to/slice to the same type, identity transpose, zero pad,
// unit tile, one-operand concat, select with a constant or repeated choice) need no evaluation.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/program.h"
#include "ir/tensor.h"

namespace ptir {

class IndexMapCache;

/// What a fold hook found.
struct FoldResult {
  enum class Kind : uint8_t { Nothing, Value, Literal };
  Kind kind = Kind::Nothing;
  ValueId value = kNone;  ///< Kind::Value: an existing value of the result's type
  Tensor literal;         ///< Kind::Literal: the result's value

  static FoldResult nothing() { return {}; }
  static FoldResult replaced_by(ValueId v) { return {Kind::Value, v, {}}; }
  static FoldResult materialize(Tensor t) { return {Kind::Literal, kNone, std::move(t)}; }
  explicit operator bool() const { return kind != Kind::Nothing; }
};

/// Limits that keep folding cheap.
struct FoldOptions {
  bool constant_fold = true;       ///< evaluate all-constant instructions with the interpreter
  int64_t max_elements = 4096;     ///< never evaluate when an operand or the result is larger
  int64_t inline_literal_max_elements = 16;  ///< where the driver will put the literal (see inline_folded)
  /// The evaluations' index maps (ir/interp.h; a fold evaluates one small instruction, and a run meets
  /// the same ops on the same types again and again); nullptr: each evaluation builds its own. The
  /// greedy driver and the canonicalize pass each keep one for their run when none is given.
  IndexMapCache* index_maps = nullptr;
};

/// Whether the driver writes a folded literal inline at its uses (else as a `constant` op): when it
/// stores at most `max` elements, and a non-splat one only when the value has one use (an inline
/// literal is written at every use).
inline bool inline_folded(const Tensor& lit, bool one_use, int64_t max) {
  return lit.stored_elements() <= max && (lit.stored_elements() <= 1 || one_use);
}

/// Bounds of print_literal(t).size() (`dense<...> : tensor<...>`) that format at most one element:
/// exact (lo == hi) for a literal printed as one element (rank 0, or a splat of >= 2 elements), else the
/// exact brackets, separators and type with each element between the fewest and the most characters
/// its dtype can print. The fold hook's size rule (docs/rewriter.md "Folding") decides with these first.
struct TextBounds {
  size_t lo = 0, hi = 0;
};
TextBounds literal_text_bounds(const Tensor& t);
/// The same for any literal of `type` printed as a list (not a splat, or a single element of rank >= 1).
TextBounds literal_list_text_bounds(const TensorType& type);

/// Tries the fold hook of `i`'s op. Effectful ops (rng), region ops and opaque ops never fold.
FoldResult fold_inst(const Program& p, InstId i, const FoldOptions& opts = {});

class ProgramRewriter;

/// Constant-cone folding, the policy of XLA's HloConstantFolding (fold through broadcasts of constants)
/// and StableHLO's aggressive folder (fold small iotas) under ptir's rule that folding never grows the
/// printed program. A value is constant-computable when its instruction is pure, single-result, one
/// the fold hook may evaluate (or `iota`), at most `opts.max_elements` elements, and every operand is
/// a literal, a `constant`, or constant-computable in the same body. A root is a constant-computable
/// instruction (not a `constant`) with a use that is not; its cone is the constant-computable
/// instructions it reads, transitively (at most `kMaxConeInsts`, else no fold). The cone is evaluated
/// with the interpreter (any UB: no fold). Every instruction of the cone is replaced, so one every use
/// of which is in the cone dies. The root is folded when the printed text this adds is at most
/// the text it removes, counted as `fold_inst` counts it: removed, the root's line and uses and each
/// dying line; added, the literal (inline at the root's uses, or a constant line), and for each cone
/// instruction that does not die, a named `constant` line in place of its line. The fold is applied as
/// one ordinary fold per cone instruction, producers first (each replaces an instruction whose operands
/// are all constants by its value, so expensive checks replay each step), then the dying constants are
/// erased. Roots go in program order, each judged on the program as the earlier ones left it. Returns
/// the number of roots folded; listeners see `fold` rewrites and `dce` erasures.
int64_t fold_constant_cones(ProgramRewriter& rw, const FoldOptions& opts = {});

inline constexpr int kMaxConeInsts = 64;

}  // namespace ptir
