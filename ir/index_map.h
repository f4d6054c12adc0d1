// One statement of each op's indexing (docs/semantics.md "Index maps"): for every data-movement op, an
// index map from a position of the op's iteration space to the operand positions it reads, written in a
// small expression language over index variables, attributes and operand dims, in the spirit of MLIR's
// linalg indexing maps. The interpreter (ir/interp/index_exec.cpp) and the bounded SMT encoder
// (verify/encode/index_exec.cpp) both run these maps; neither spells the geometry of an op again.
//
// An expression is evaluated generically (`eval<D>`) over a number domain D, so the same map gives int64
// values in the interpreter and SMT index terms (verify/smt/index_terms.h) in the encoder.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "ir/attrs.h"
#include "ir/ops.h"
#include "ir/tensor.h"

namespace ptir::imap {

/// What an op is, as far as its indexing goes. Every op of ir/ops.def has one (op_kind; a switch
/// without default, so a new op without a kind does not build); Move, Fold and Scatter ops have an
/// index map (index_map), the others a declared kind instead.
enum class Kind : uint8_t {
  Elementwise,  ///< result[i] = f(operand_0[i], operand_1[i], ...): same shapes, scalar semantics f
  Constant,     ///< the `value` literal
  Move,         ///< result[i] = one operand element, a padding value, or an integer of i (iota): `cases`
  Fold,         ///< result[i] = left fold over the reduction variables of the elements `cases` reads
  Scatter,      ///< result = init, then each point of `space` combined into result[target] (row-major order)
  Control,      ///< cond / while / scan: runs regions
  Random,       ///< rng_*: an effect, elements from the seed and the flat position
  Opaque,       ///< custom_call and the quantize family: uninterpreted
  Terminator,   ///< return
};
Kind op_kind(OpCode op);
const char* kind_name(Kind k);

/// Expression nodes. Integers are mathematical (the int64 domain saturates Read values above INT64_MAX,
/// which only a ui64 index can hold; every map compares such a value with bounds below INT64_MAX).
/// Booleans are 0/1 values of the same domain.
enum class Op : uint8_t {
  Const,     ///< v
  Var,       ///< iteration variable a (Check: the check's own variable a)
  Dim,       ///< size of axis b of operand a (a < 0: of result -1-a)
  Attr,      ///< element b of the integer attribute names[a]; v when the attribute is absent
  Read,      ///< the integer element of operand a at the multi-index `args` (a data-dependent index)
  Add, Sub, Mul,
  FloorDiv,  ///< floor(x / y), y > 0
  Mod,       ///< x - y * floor(x / y), y > 0 (0 <= r < y)
  Min, Max,
  Clamp,     ///< min(max(x, lo), hi) for lo <= hi, spelled as the encoder spells it: x < lo ? lo : (hi < x ? hi : x)
  Lt, Le, Eq, Ne, And, Or, Not,
  Select,    ///< c ? t : e
};

using ExprId = int32_t;
inline constexpr ExprId kNoExpr = -1;

struct Node {
  Op op = Op::Const;
  int32_t a = 0, b = 0, c = 0;  ///< children (ExprId), or Var/Dim/Attr/Read operands as documented on Op
  int64_t v = 0;                ///< Const value; Attr default
  std::vector<ExprId> args;     ///< Read: the index
};

/// Where an element is read: operand `operand` at the multi-index `index` (one expression per axis),
/// or, when `flat`, at the row-major flat position index[0] (reshape).
struct Access {
  int operand = 0;
  bool flat = false;
  std::vector<ExprId> index;
};

/// One case of a map. Move: the first case whose conjuncts `when` all hold gives the element
/// (`reads[0]`). Fold: a reduction point whose `when` fails is skipped (not a real element); `reads`
/// are the elements combined (dot_general: lhs and rhs). Scatter: a point whose `when` fails is
/// skipped; `reads[0]` is the element combined in.
struct Case {
  std::vector<ExprId> when;  ///< conjuncts; empty: always
  std::vector<Access> reads;
};

/// Undefined behaviour: every element of the integer operand `operand` must lie in [0, bound) (take,
/// gather, scatter_reduce indices; segment ids). `space` and `bad` state the same as an expression over
/// the check's own variables (Var 0.. run over the operand's dims): UB when `bad` holds at some point.
/// The interpreter reports the first offending element in row-major order.
struct Check {
  enum class What : uint8_t { Index, SegmentId } what = What::Index;  ///< which message
  int operand = 0;
  ExprId bound = kNoExpr;
  std::vector<ExprId> space;  ///< the operand's dims
  ExprId bad = kNoExpr;       ///< !(0 <= read(operand, vars) < bound)
};

/// What a Move result element is when no case holds.
enum class Otherwise : uint8_t {
  Nothing,  ///< some case always holds
  Value,    ///< the scalar attribute `value` (absent: all-zero bits): pad, extract_patches
  Index,    ///< the integer `index_value` cast from si64 to the result dtype: iota
};

/// What a Scatter result starts from.
enum class Init : uint8_t { Operand0, Identity /* the fold's identity, with "started" per element */ };

/// An op's index map, instantiated for concrete ranks and structural attributes (axes, permutations).
/// Sizes and per-axis values are `Dim`/`Attr` nodes, or numerals when built with Sizes::Concrete.
struct IndexMap {
  OpCode op{};
  Kind kind = Kind::Move;
  std::vector<ExprId> space;  ///< extents of the iteration variables, row-major (the fold order for Fold)
  int out_vars = 0;           ///< Move/Fold: the leading variables index the result (Fold: the rest reduce)
  std::vector<Case> cases;
  Otherwise otherwise = Otherwise::Nothing;
  ExprId index_value = kNoExpr;      ///< Otherwise::Index
  std::vector<ExprId> target;        ///< Scatter: the result index of each point
  Init init = Init::Operand0;        ///< Scatter
  std::vector<Check> checks;
  std::vector<Node> nodes;
  std::vector<std::string> names;    ///< attribute names of Attr nodes

  const Node& node(ExprId e) const { return nodes[static_cast<size_t>(e)]; }
  /// The map in the expression language's text form (docs, test messages).
  std::string str() const;
  std::string str(ExprId e) const;
};

enum class Sizes : uint8_t {
  Concrete,  ///< operand/result dims and attribute values become numerals (interpreter, bounded encoder)
  Symbolic,  ///< they stay Dim/Attr nodes (for an all-shape encoder); only ranks are read from the types
};

/// The index map of one instruction: op, attributes, operand and result types. nullopt with `error`
/// set when the op has no map (its kind is not Move/Fold/Scatter) or the instance is malformed (an
/// attribute of the wrong length, axes out of range): callers check the instance first and treat this
/// as a hard error naming the op.
std::optional<IndexMap> index_map(OpCode op, const AttrSet& attrs, std::span<const TensorType> operands,
                                  std::span<const TensorType> results, Sizes sizes, std::string* error);

// ---- evaluation ----

/// Evaluates expression `e` of map `m` in domain D. D provides `using Val`, and
///   Val konst(int64_t); Val var(int k); Val dim(int operand, int axis); Val attr(const std::string&, int k,
///   int64_t dflt); Val read(int operand, std::span<const Val> index); and add sub mul floordiv mod min max
///   clamp(x, lo, hi) lt le eq ne and_ or_ not_ select(c, t, e).
/// Every node is evaluated once per call (a memo over the DAG).
template <class D>
typename D::Val eval_memo(const IndexMap& m, ExprId e, D& d, std::vector<std::optional<typename D::Val>>& memo) {
  using V = typename D::Val;
  if (memo[static_cast<size_t>(e)]) return *memo[static_cast<size_t>(e)];
  const Node& n = m.node(e);
  auto x = [&](ExprId c) { return eval_memo(m, c, d, memo); };
  V r{};
  switch (n.op) {
    case Op::Const: r = d.konst(n.v); break;
    case Op::Var: r = d.var(n.a); break;
    case Op::Dim: r = d.dim(n.a, n.b); break;
    case Op::Attr: r = d.attr(m.names[static_cast<size_t>(n.a)], n.b, n.v); break;
    case Op::Read: {
      // Up to 4 axes inline: a heap vector per Read was a good part of a small run's allocations.
      boost::container::small_vector<V, 4> idx;
      idx.reserve(n.args.size());
      for (ExprId a : n.args) idx.push_back(x(a));
      r = d.read(n.a, std::span<const V>(idx.data(), idx.size()));
      break;
    }
    case Op::Add: r = d.add(x(n.a), x(n.b)); break;
    case Op::Sub: r = d.sub(x(n.a), x(n.b)); break;
    case Op::Mul: r = d.mul(x(n.a), x(n.b)); break;
    case Op::FloorDiv: r = d.floordiv(x(n.a), x(n.b)); break;
    case Op::Mod: r = d.mod(x(n.a), x(n.b)); break;
    case Op::Min: r = d.min(x(n.a), x(n.b)); break;
    case Op::Max: r = d.max(x(n.a), x(n.b)); break;
    case Op::Clamp: r = d.clamp(x(n.a), x(n.b), x(n.c)); break;
    case Op::Lt: r = d.lt(x(n.a), x(n.b)); break;
    case Op::Le: r = d.le(x(n.a), x(n.b)); break;
    case Op::Eq: r = d.eq(x(n.a), x(n.b)); break;
    case Op::Ne: r = d.ne(x(n.a), x(n.b)); break;
    case Op::And: r = d.and_(x(n.a), x(n.b)); break;
    case Op::Or: r = d.or_(x(n.a), x(n.b)); break;
    case Op::Not: r = d.not_(x(n.a)); break;
    case Op::Select: r = d.select(x(n.a), x(n.b), x(n.c)); break;
  }
  memo[static_cast<size_t>(e)] = r;
  return r;
}

template <class D>
typename D::Val eval(const IndexMap& m, ExprId e, D& d) {
  std::vector<std::optional<typename D::Val>> memo(m.nodes.size());
  return eval_memo(m, e, d, memo);
}

/// Two's-complement wrapping int64 arithmetic: a map may compute a position that no case uses (a scatter
/// window start near INT64_MAX plus an offset, under a `when` that fails); it must not be C++ UB.
inline int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

/// Floor division and modulo of int64 (b > 0; b <= 0 gives 0: maps divide by positive sizes only, and
/// an empty space never evaluates them).
inline int64_t floor_div(int64_t a, int64_t b) {
  if (b <= 0) return 0;
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
inline int64_t floor_mod(int64_t a, int64_t b) { return b <= 0 ? 0 : a - floor_div(a, b) * b; }

/// The int64 domain over a concrete instance: variables from `vars`, dims of `operands`/`results`, the
/// attributes, and Read from concrete integer tensors (a position outside the tensor reads 0: maps
/// only read inside, the guard keeps a malformed map from reading out of bounds).
struct IntDomain {
  using Val = int64_t;
  std::span<const int64_t> vars;
  std::span<const Tensor* const> operands;  ///< may be empty (then Read is 0) when no Read is evaluated
  std::span<const TensorType> operand_types;
  std::span<const TensorType> result_types;
  const AttrSet* attrs = nullptr;

  Val konst(int64_t v) const { return v; }
  Val var(int k) const { return k < static_cast<int>(vars.size()) ? vars[static_cast<size_t>(k)] : 0; }
  Val dim(int a, int axis) const;
  Val attr(const std::string& name, int k, int64_t dflt) const;
  Val read(int operand, std::span<const Val> idx) const;
  Val add(Val a, Val b) const { return wrap_add(a, b); }
  Val sub(Val a, Val b) const { return wrap_sub(a, b); }
  Val mul(Val a, Val b) const { return wrap_mul(a, b); }
  Val floordiv(Val a, Val b) const { return floor_div(a, b); }
  Val mod(Val a, Val b) const { return floor_mod(a, b); }
  Val min(Val a, Val b) const { return a < b ? a : b; }
  Val max(Val a, Val b) const { return a < b ? b : a; }
  Val clamp(Val x, Val lo, Val hi) const { return x < lo ? lo : (hi < x ? hi : x); }
  Val lt(Val a, Val b) const { return a < b; }
  Val le(Val a, Val b) const { return a <= b; }
  Val eq(Val a, Val b) const { return a == b; }
  Val ne(Val a, Val b) const { return a != b; }
  Val and_(Val a, Val b) const { return (a != 0) && (b != 0); }
  Val or_(Val a, Val b) const { return (a != 0) || (b != 0); }
  Val not_(Val a) const { return a == 0; }
  Val select(Val c, Val t, Val e) const { return c != 0 ? t : e; }
};

/// The value of an integer element as the index maps read it: its mathematical value, ui64 values above
/// INT64_MAX saturated to INT64_MAX.
int64_t index_element(const Tensor& t, int64_t flat);

/// The extents of `m.space` (or of a check's space) in the int64 domain.
std::vector<int64_t> extents(const IndexMap& m, const std::vector<ExprId>& space, IntDomain d);

/// Direct, slow evaluation of one point of a concrete map (d.vars is the point): for a Move map the
/// first case that holds, for Fold and Scatter case 0 if its conjuncts hold (-1: none), with the
/// row-major offsets of its reads into their operands (-1 for an index outside the operand: UB that a
/// check reports) and, for Scatter, the offset of the target in the result (-1 outside). The
/// interpreter and the encoder derive their loops from the same map; tests compare them with this.
struct Resolved {
  int case_index = -1;
  std::vector<int64_t> offsets;
  int64_t target = -1;
};
Resolved resolve(const IndexMap& m, const IntDomain& d);

/// The first point of `check`'s space, in row-major order, where its `bad` holds; nullopt if none.
std::optional<std::vector<int64_t>> first_bad(const IndexMap& m, const Check& check, IntDomain d);

/// The variables each node depends on (bit k: Var k), for every node of `m`.
std::vector<uint64_t> var_deps(const IndexMap& m);

}  // namespace ptir::imap
