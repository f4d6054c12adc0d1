// Instances of a pattern's source DAG: small, well-typed programs `func @main(leaves) -> root` built
// top-down from the DAG (result type first, then each op's operand types from its shape rule), with
// random dtypes, ranks 0..R and dims 0..D (size 0 and 1 included), random attributes, splat constants
// with the value the rule names, and edge-biased literals for const($c). The prover runs the real
// pattern on each instance; a perturbation (a splat nudged to a neighbouring value, a repeated capture
// split into two inputs, an extra use of an inner value; from outside the source: one constraint
// failing, an op swapped for a sibling op, an attribute changed, operands swapped, a shared subterm
// copied) makes a near miss.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ir/program.h"
#include "rewriter/rules/ast.h"

namespace ptir::prove {

/// The one change that turns an instance into a near miss. make_instance applies the first three;
/// the prover (prove.cpp) makes the others, each built from outside the template: Constraint keeps an
/// instance on which exactly one of the template's constraints fails, OpSwap builds the source with one
/// op replaced by a sibling (op_siblings), AttrChange with one attribute expression of one op dropped
/// (drawn at random instead), OperandSwap with two operands of a non-commutative op exchanged, Unshare
/// with a later use of an `as` value replaced by a copy of its subterm. A pattern written in C++ can fire
/// outside the template it declares (on an integer when its template says is_float, on abs(x) where the
/// template has neg(x), on compare {dir = le} where it has lt); these near misses are where that shows.
enum class Perturb : uint8_t { None, Splat, SplitCapture, ExtraUse, Constraint, OpSwap, AttrChange, OperandSwap, Unshare };

/// The nodes of a source DAG in pre-order (a node before its operands, operands left to right): the
/// numbering that steering (below), Instance::node_values and the coverage classes (coverage.h) share.
std::vector<const rules::Node*> preorder(const rules::Node& root);

/// Choices the generator makes on purpose instead of at random (coverage.h aims it at a coverage
/// class this way). Every field is "any" (kAny) unless set; the instance is still checked by the
/// verifier and classified afterwards, so a steer the shapes cannot honour only costs a retry.
struct NodeSteer {
  static constexpr int kAny = -100;
  int dtype = kAny;     ///< the node's dtype where the generator draws one (root, cast and compare operands)
  int accum = kAny;     ///< reduce_* / dot_general: -1 no accum attribute, else a DType
  int keepdims = kAny;  ///< reduce_*: 0 absent, 1 keepdims[false], 2 keepdims[true]
  int perm = kAny;      ///< transpose: 0 identity, 1 not the identity, 2 not commuting with an earlier perm
  int pad_neg = kAny;   ///< pad: 0 no negative low/high, 1 some negative
  int interior = kAny;  ///< pad: 0 no interior padding, 1 some interior > 0
  int starts = kAny;    ///< slice: 0 all starts 0, 1 some start > 0
  int repeats = kAny;   ///< tile: 0 all repeats 1, 1 some repeat 0, 2 some repeat >= 2, 3 some repeat >= 2 of an operand axis >= 2, 4 some repeat >= 3 of one
  int bcast_rank = kAny;    ///< broadcast_to: 0 operand of the result's rank, 1 leading axes added, 2 leading axes added and every operand axis kept at its result size (its axes >= 2 move)
  int bcast_expand = kAny;  ///< broadcast_to: 0 no size-1 axis expanded, 1 some size-1 axis expanded
  int dir = kAny;       ///< compare: index into lt, le, eq, ge, gt, ne
  int dot = kAny;       ///< dot_general: a DotLayout
  /// reduce_*: 0 the axes list increasing, 1 not (legal: docs/semantics.md), 2 no axes, 3 three or more,
  /// 4 three or more in an order neither increasing nor decreasing, 5 exactly one
  int axes_order = kAny;
  /// Values beyond the generator's narrow ranges (a rule that clamps one at the narrow range's edge is
  /// wrong only there). reduce_window / extract_patches: k = 0..7, an attribute wide on some axis: 0
  /// window >= 4, 1 strides >= 4, 2 window dilation >= 3, 3 base dilation >= 3, 4 / 5 pad_low / pad_high
  /// <= -2, 6 / 7 pad_low / pad_high >= 3; pad: 0 some interior >= 3 on an operand axis >= 2;
  /// scatter_add: 0 an index vector of 3 entries, 1 a scatter dim of size >= 3; concat: 0 two operands
  /// of size >= 2 along the axis.
  int wide = kAny;
  /// Operand axes the result does not show (argmax's and reductions' reduced axes, take's and gather's
  /// indexed axis, segment_reduce's rows, dot_general's contracting dims): 1 one of them >= 4 (above
  /// the default --max-dim; a rule reading only the first 3 was PROVED).
  int hidden = kAny;
  /// Optional attributes (AttrSpec::dflt) and scatter_add's configuration: 0 every optional attribute at
  /// its default (most left out) and scatter_add's leading configuration, 1 other values wherever the
  /// op has them (pad value; reduce_window and extract_patches strides, pads, dilations, value; argmax
  /// keepdims; top_k axis and largest; the quantize family's axis; scatter_add's dims lists).
  int opt_attrs = kAny;
};

/// Layout classes of a dot_general's dimension numbers (docs/verification.md, "Coverage"). Leading:
/// lhs = batch ++ free ++ contracting and rhs = batch ++ contracting ++ free, each list increasing and
/// the two sides' batch lists equal. The others are ways to differ from it; an instance may be in several.
enum DotLayout : int {
  kDotLeading = 0,        ///< the leading layout
  kDotBatchApart = 1,     ///< batch_lhs != batch_rhs
  kDotContractApart = 2,  ///< contract_lhs != contract_rhs
  kDotContractOrder = 3,  ///< a contracting list not increasing
  kDotBatchOrder = 4,     ///< a batch list not increasing
  kDotInterleaved = 5,    ///< an operand's batch or contracting axes at other positions than the leading layout's
};
inline constexpr int kNumDotLayouts = 6;
/// Whether a dot_general with operands of ranks `lhs_rank`, `rhs_rank` and these lists is in class `kind`.
bool dot_layout_has(int kind, int lhs_rank, int rhs_rank, const std::vector<int64_t>& bl, const std::vector<int64_t>& br,
                    const std::vector<int64_t>& cl, const std::vector<int64_t>& cr);
/// Whether a scatter_add's dimension numbers are the leading configuration the generator draws unless
/// steered away (inserted_window_dims = scatter_dims_to_operand_dims = [0], index_vector_dim 1): the
/// coverage class "dims OP = not the leading configuration" is its negation.
bool scatter_leading(const AttrSet& a);
struct Steer {
  std::vector<NodeSteer> nodes;  ///< by pre-order node number (empty: nothing steered)
  /// Sizes of the instance's dims: kAny, 0 some axis 0, 1 every axis 1, 2 some axis >= 2, 3 one root
  /// axis of 4..2 * max_dim (above the bound: a tile repeat of an operand axis >= 2 needs it), 4 one
  /// root axis of 6, 8, 9 or 12 (a repeat >= 3 of an operand axis >= 2).
  int sizes = NodeSteer::kAny;
  /// Square roots (every dim equal, >= 2): 0 a quarter of the time, 1 most of the time, 2 nearly
  /// always (perm classes: a wrong composition of permutations type-checks only there).
  int square = 0;
  const NodeSteer* at(int node) const {
    return node >= 0 && node < static_cast<int>(nodes.size()) ? &nodes[node] : nullptr;
  }
};

/// The largest extent the generator gives an operand axis the result does not tie to its own dims: the
/// room beside a slice's, dynamic_slice's or gather's window, and a steered hidden axis (a reduced, indexed,
/// scattered or contracted axis). `ptir prove`'s scope line states it.
inline int wide_extent(int max_dim) { return max_dim + 3 > 6 ? max_dim + 3 : 6; }

/// Bounds and choices of one instance.
struct InstanceOptions {
  int rank = 2;             ///< rank of the root's result
  int max_dim = 3;          ///< dims are drawn from 0..max_dim (operands may be larger where a shape rule needs)
  Perturb perturb = Perturb::None;
  uint8_t fastmath = 0;     ///< rules::Assume bits for the function
  /// Dtypes the rule's constraints name (dtype_is, is_float, ...): drawn half of the time, so rarely met
  /// constraints still get instances; the other half stays uniform over every dtype.
  std::vector<DType> dtype_hint{};
  const Steer* steer = nullptr;  ///< coverage steering (null: every choice random)
  /// Now and then a capture's first occurrence is a constant (a tenth; not f64) or an op's result on an input
  /// (stop_gradient, or without nsz neg or abs: a tenth), and the root or a capture's value is also returned (a second
  /// use; each about one instance in twelve, not under nsz). Off: every capture is an input, used only where the DAG
  /// uses it.
  bool leaf_variety = false;
};

/// A generated instance, or why none could be made this time.
struct Instance {
  std::unique_ptr<Program> program;  ///< null when generation failed
  std::string why_not;               ///< e.g. "generator: no shape rule for gather"
  bool perturbed = false;            ///< a perturbation was actually applied
  std::string shape;                 ///< the root type, e.g. "tensor<f32, 2x0>"
  std::string dtype;                 ///< the root's dtype, e.g. "f32"
  /// The value each source node became, by pre-order number (kNone: not built). A repeated capture's
  /// occurrences and the uses of an `as` name hold the one shared value (or, split by a near miss, two).
  std::vector<ValueId> node_values;
  /// Some capture is a constant or an op's result rather than an input (leaf_variety): such an
  /// instance is checked, but fires no coverage class (a constant [c, c] made a tile class fire on
  /// an instance where the wrong rule was right, and the class was never steered to again).
  bool varied_leaves = false;
};

/// Builds one instance of `source` (an op node) with randomness from `rng`. A value bound with `as %r`
/// and used again as `%r` is built once and used at each occurrence (a shared subterm), as the
/// matcher requires.
Instance make_instance(const rules::Node& source, const InstanceOptions& opts, std::mt19937_64& rng);

/// True when the generator has a shape rule for `op` (so a DAG using it can be instantiated).
bool generator_supports(OpCode op);

/// The ops an OpSwap near miss may put in place of `op`, read off the op table: same operand counts,
/// same number of results, both elementwise or neither, the same attribute schema (names, kinds,
/// roles), supported by the generator, and neither opaque, effectful, region-holding nor a terminator.
/// E.g. neg -> abs, exp, sqrt, ...; add -> sub, mul, maximum, ...; reduce_sum -> reduce_max, reduce_min.
const std::vector<OpCode>& op_siblings(OpCode op);

/// What the IR verifier accepts, asked of the verifier itself on a one-instruction program (cached):
/// `op` with its main operand (operand 0; select: operand 1) of dtype `d`.
bool op_accepts_dtype(OpCode op, DType d);
/// Indices (operand 1) of dtype `d` on take, gather, scatter_reduce, scatter_add or segment_reduce.
bool index_dtype_accepted(OpCode op, DType d);
/// accum[acc] on a reduction or dot_general whose operands have dtype `elem`.
bool accum_accepted(DType elem, DType acc);

}  // namespace ptir::prove
