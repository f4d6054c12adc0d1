// A checked rule in executable form: capture slots, a matcher tree, resolved constraints and a result
// tree with its type sources. Built once at load time (rewriter/rules/compile.cpp); the matcher
// (rewriter/rules/pattern.cpp) only walks it.
#pragma once
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/rules/ast.h"
#include "rewriter/rules/natives.h"

namespace ptir::rules {

/// A source node with its capture slots resolved.
struct MNode {
  Node::Kind kind = Node::Kind::Value;
  OpCode op = OpCode::Constant;
  int slot = -1;        ///< Value: value slot; Const: literal slot
  int type_slot = -1;   ///< `: $T` type slot, -1 if none
  int as_slot = -1;     ///< `as %r` value slot
  Number number;        ///< Splat
  /// Splat: the number's bits per dtype (number_bits), computed once at load time; nullopt where the
  /// number is not exactly representable (a NaN number matches any NaN and is handled apart).
  std::array<std::optional<uint64_t>, kNumDTypes> splat_bits{};
  bool commutative = false;
  int swap_bit = -1;    ///< bit of the swap mask for this commutative op
  struct MAttr {
    std::string name;
    AttrExpr::Kind kind;
    int slot = -1;      ///< Capture: attribute slot
    std::vector<int64_t> ints;
    std::string word;
  };
  std::vector<MAttr> attrs;
  std::vector<MNode> operands;
};

/// A constraint with its predicate and arguments resolved.
struct MConstraint {
  const PredicateSpec* pred = nullptr;  ///< null for an integer constraint (`cond`)
  std::vector<Arg> args;
  bool negated = false;
  std::shared_ptr<const CIntCond> cond;  ///< an integer constraint
};

/// How a result node's type is found at match time.
enum class TypeSource : uint8_t {
  Root,         ///< the matched root's result type
  TypeSlot,     ///< a `$T` capture
  ValueSlot,    ///< the type of a `%x` capture
  Elementwise,  ///< the type of operand `from` (compare: i1 of its shape)
  Transpose,    ///< operand 0's dims permuted by the node's perm attribute
  Context,      ///< a literal operand: given by its parent
  Dims,         ///< `dims(%x|$T, [i < E: F])`: the capture's dtype (type_slot, dims_cap), computed dims
};

/// A result node with everything resolved.
struct RNode {
  Node::Kind kind = Node::Kind::Value;
  OpCode op = OpCode::Constant;
  int slot = -1;                    ///< Value: value slot
  Number number;                    ///< Splat
  const LitHelperSpec* lit_helper = nullptr;  ///< Const
  std::vector<Arg> helper_args;
  /// Const: per helper argument, the integer expression to evaluate into Arg::i (int_lit), or none.
  std::vector<std::optional<CIntExpr>> helper_exprs;
  TypeSource type_source = TypeSource::Context;
  int type_slot = -1;               ///< TypeSlot / ValueSlot
  int from = -1;                    ///< Elementwise: the operand giving the type
  CapKind dims_cap = CapKind::Value;  ///< Dims: whose dtype (type_slot is a value or a type slot)
  CIntExpr dims_count, dims_elem;     ///< Dims: [i < dims_count: dims_elem]
  struct RAttr {
    std::string name;
    AttrExpr::Kind kind;
    AttrKind attr_kind = AttrKind::Ints;  ///< how the op's schema stores it
    int slot = -1;
    std::vector<int64_t> ints;
    std::string word;
    const AttrHelperSpec* helper = nullptr;
    std::vector<Arg> args;
    CIntExpr count, elem;  ///< List: `[i < count: elem]`; WithAt: `with_at($slot, count, elem)`
  };
  std::vector<RAttr> attrs;
  std::vector<RNode> operands;
  int id = 0;                       ///< pre-order index, for per-match scratch
};

/// One rule ready to run.
class CompiledRule {
 public:
  std::shared_ptr<const RuleFile> file;  ///< keeps `rule` alive
  const Rule* rule = nullptr;
  MNode source;
  std::vector<MConstraint> where;
  RNode result;
  int num_result_nodes = 0;
  int num_swaps = 0;                     ///< commutative ops in the source (2^n operand orders tried)
  int num_source_ops = 0;
  /// The source is one op over at most kFlatMaxOperands leaves (`%x`, `splat(N)`, `const($c)`, each
  /// with any `: $T` or `as %r`; the root with any attribute tests). Such a rule (most of the library) is
  /// matched by one loop over the root's operands (match_flat in pattern.cpp) instead of the recursive
  /// matcher; both bind the same captures (FuzzProperty.FlatMatcherAgreesWithTheTreeMatcher).
  bool flat = false;
  static constexpr size_t kFlatMaxOperands = 4;
};

/// Checks and compiles rule `index` of `file`; on error fills `err` and returns nullptr.
std::shared_ptr<const CompiledRule> compile_rule(std::shared_ptr<const RuleFile> file, size_t index, RuleError* err);

}  // namespace ptir::rules
