// The op enum and its static facts, generated from ops.def; the attribute schema of every op.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ptir {

enum class OpCode : uint8_t {
#define PTIR_OP(E, M, MIN, MAX, NRES, TR) E,
#include "ir/ops.def"
#undef PTIR_OP
};

inline constexpr int kNumOps = 0
#define PTIR_OP(E, M, MIN, MAX, NRES, TR) +1
#include "ir/ops.def"
#undef PTIR_OP
    ;

/// Op traits (a bitmask).
enum OpTrait : uint32_t {
  Pure = 1u << 0,            ///< no effects: may be CSE'd, removed when dead
  Effect = 1u << 1,          ///< effectful (rng): never CSE'd, hoisted or removed
  Elementwise = 1u << 2,
  Commutative = 1u << 3,
  Transcendental = 1u << 4,  ///< interpreter uses libm; SMT uses an uninterpreted function
  Opaque = 1u << 5,          ///< custom_call/quantize family: uninterpreted in SMT, registered kernel in the interpreter
  Regions = 1u << 6,         ///< references regions through attributes
  Terminator = 1u << 7,
};

/// Static facts of one op, from the op table.
struct OpInfo {
  std::string_view mnemonic;
  int min_operands;
  int max_operands;  ///< -1: variadic
  int num_results;   ///< -1: given by the result type list
  uint32_t traits;
};

const OpInfo& op_info(OpCode op);
inline std::string_view mnemonic(OpCode op) { return op_info(op).mnemonic; }
inline bool has_trait(OpCode op, OpTrait t) { return (op_info(op).traits & t) != 0; }
/// Looks up an op by mnemonic (`return` is not a statement op and is not found).
std::optional<OpCode> op_by_mnemonic(std::string_view m);

/// Kind of an attribute value as the schema expects it.
enum class AttrKind : uint8_t {
  Ints,     ///< [1, 0, 2]
  Int,      ///< [3]  (one integer)
  Bool,     ///< [true]
  Word,     ///< [lt]  one of the schema's words
  DType,    ///< [f32]
  Region,   ///< [^body]
  String,   ///< ["ns.name.v1"]
  Literal,  ///< [dense<...> : tensor<...>]
  Scalar,   ///< [0.0] a number of the operand's dtype, stored as a rank-0 literal
};

/// What an integer attribute's numbers mean. A rule capture binds one role: the same `$p` cannot be
/// a permutation in one place and reduction axes or per-axis starts in another (rewriter/rules checks
/// it at load time), so every encoder may rely on a capture's values having one meaning.
enum class AttrRole : uint8_t {
  Other,        ///< words, dtypes, booleans, literals, regions, strings
  Permutation,  ///< a permutation of the operand's axes (transpose perm)
  AxisList,     ///< a set or list of axis numbers (reduce axes, dot_general batch/contract axes, ...)
  Axis,         ///< one axis number (concat axis, argmax axis, ...)
  PerAxis,      ///< one integer per axis (slice starts, pad low/high/interior, tile repeats, shapes, windows)
  Count,        ///< a plain integer (top_k k, num_segments, scan carries, rng seed)
};

/// What an optional attribute means when it is not written (docs/semantics.md states each). The
/// prover's coverage (verify/prove/coverage.cpp) reads it: an instance with the attribute written to
/// another value than this is a class of its own, so a rule that drops or changes an attribute it does
/// not mention is run where that matters. A property (tests/verify/attr_default_test.cpp) checks it
/// against the interpreter: writing the default changes no result.
enum class AttrDefault : uint8_t {
  None,    ///< required, or no class of its own (a shape that must equal the result type's dims)
  Zeros,   ///< per-axis list of 0 (window pads)
  Ones,    ///< per-axis list of 1 (strides, dilations)
  Zero,    ///< scalar 0 of the operand's dtype, +0.0 for floats (pad and patch fill value)
  False,   ///< keepdims
  True,    ///< top_k largest
  Last,    ///< the operand's last axis (top_k axis)
  Absent,  ///< not written means a behaviour no written value has (the quantize family's axis: per-tensor)
  Own,     ///< has coverage classes of its own (accum, keepdims of reductions, dot_general batch lists, pad interior)
};

/// One attribute an op accepts.
struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  bool required;
  std::span<const std::string_view> words;  ///< allowed words for AttrKind::Word
  AttrRole role = AttrRole::Other;
  AttrDefault dflt = AttrDefault::None;
};

const char* attr_role_name(AttrRole r);

/// The attributes an op accepts. custom_call additionally accepts free attributes of any kind.
std::span<const AttrSpec> op_attr_schema(OpCode op);
const AttrSpec* find_attr_spec(OpCode op, std::string_view name);

}  // namespace ptir
