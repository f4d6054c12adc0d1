// The encoder of one configuration at one rank (docs/verification.md "The encoding"): both DAGs of a
// rule evaluated at a symbolic output index, with symbolic sizes and per-axis attributes. The class is
// defined in three files: encoder.cpp (what both sides share: the index, element semantics, shape ops
// on symbolic tensors, the read premise), encode_source.cpp (the source DAG and the constraints) and
// encode_target.cpp (the result DAG, its ill-formedness and the helpers). Not installed.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/fastmath.h"
#include "ir/program.h"
#include "verify/allshape/chooser.h"
#include "verify/allshape/internal.h"
#include "verify/allshape/native_specs.h"
#include "verify/smt/staged.h"

namespace ptir::smt {
class Model;
}

namespace ptir::allshape::detail {

/// One configuration's encoder; as a NativeEnv it gives the natives' specs (native_specs.h) the captures
/// it has bound.
class Enc : public NativeEnv {
 public:
  /// `forced_flags` >= 0: the nnan/ninf/nsz flags beyond the assumptions are these bits (FastMathFlag
  /// positions) instead of free Booleans (the retry of a query Z3 could not decide).
  Enc(const rules::Rule& r, const RuleFacts& f, int rank, Chooser& choose, int forced_flags = -1);

  /// Evaluates both sides at the symbolic index; throws Infeasible (not an instance) or Outside.
  void run();

  // Filled by run():
  std::vector<smt::Expr> assume;     ///< well-formedness of the source, constraints, the index in bounds
  smt::Expr src_ub, tgt_ub, differ;  ///< at the index
  smt::Expr in_bounds;               ///< the index is in the root's bounds
  smt::Expr tgt_ill;                 ///< the target is ill-formed (a rule bug) for these sizes
  std::vector<CNode> cnodes;
  int root = -1;
  DType root_dtype = DType::F32;
  std::map<std::string, std::set<std::string>> reads;  ///< capture -> distinct index tuples read
  std::vector<std::string> notes;
  std::vector<std::string> premise;                    ///< premise violations seen
  std::vector<std::pair<std::string, std::vector<smt::Expr>>> dim_log;  ///< for describing a model
  int max_reduced_ = 1;  ///< reduced axes beyond the result's rank (keepdims false)
  /// Contracting dims of the source's dot_general: 0..max_contract_ (the driver: the rank bound less
  /// the root's rank, so output and contraction axes together stay within the bound).
  int max_contract_ = 1;
  /// Target folds given a fresh value (no source fold with the same extents, dtypes and product
  /// operands): each needs one witness axis in the rank bound (bound.cpp).
  int fold_mismatch = 0;
  /// Reductions with keepdims = true over some axis: their reduced axes are output axes (of size 1), so
  /// dropping one can change the fold's "empty" / "one element" condition; each needs one witness axis
  /// in the rank bound (bound.cpp). Without keepdims the reduced axes are on no output axis and stay.
  int keep_reductions = 0;
  std::vector<smt::Expr> contract_extents;  ///< the source dot's contraction sizes (small models: >= 2 first)

  /// The function's flags as a model chose them (assumed ones are true).
  uint8_t flags_in(const smt::Model& m) const;

  // NativeEnv: the captures bound so far.
  const TypeV* type_of(const rules::Constraint::Arg& a) override { return type_arg(a); }
  const AttrB* attr(const std::string& name) const override;
  std::optional<std::pair<DType, smt::Expr>> lit(const std::string& name) const override;
  const ReduceAccum* accum(const std::string& value) const override;
  std::optional<bool> has_attr(const std::string& value, const std::string& attr) const override;

 private:
  // ---- shared (encoder.cpp) ----
  smt::Expr fresh_int(const std::string& what);
  std::vector<smt::Expr> fresh_dims(int rank, const std::string& what);
  DType choose_dtype() { return static_cast<DType>(ch_.choose(kNumDTypes)); }
  /// The dtype of a free slot named `key` ("%x" a value capture, "$T" a captured type): the dtype of a
  /// capture already bound that a positive same_type/same_dtype ties it to (every other choice makes
  /// that constraint false: not an instance), else a choice among every dtype.
  DType choose_dtype_of(const std::string& key);
  /// An accumulation dtype for elements of `elem`: 0 for none (only when `absent`), else the dtype + 1,
  /// enumerated over the dtypes accum_valid accepts, in dtype order. The same configurations as a choice
  /// among every dtype with the invalid ones skipped as Infeasible (which cost a whole encoding each).
  int choose_accum(DType elem, bool absent);
  /// What the rule's has_attr constraints on `as %<value>` require of attributes `attrs` (which the
  /// configuration chooses together): present (true), absent (false), or nothing (nullopt, also when
  /// they disagree). Choices they reject are not made; the constraints are still checked.
  std::optional<bool> attr_required(const std::string& value, std::initializer_list<const char*> attrs) const;
  /// Records a read of capture `cap` at `idx` and checks the rank argument's premise on it.
  void read(const std::string& cap, const std::vector<smt::Expr>& idx);
  void bind_type(const std::string& name, DType d, const std::vector<smt::Expr>& dims);
  /// nnan/ninf UB of a governed op on its operand and result elements (docs/semantics.md).
  smt::Expr fm_ub(OpCode op, std::span<const Elem> args, std::span<const DType> arg_dtypes, const smt::Expr& res,
                  DType rd) const;
  /// An elementwise op on elements (cast: `to`; compare: `dir`).
  Elem elementwise(OpCode op, std::span<const Elem> a, DType t, DType to, const std::string& dir, Side side,
                   int node_tag);
  SVal splat_val(const rules::Number& num, DType d, const std::vector<smt::Expr>& dims);
  /// The attribute `name` of a rule node, or null.
  static const rules::AttrExpr* node_attr(const rules::Node& n, const std::string& name);
  // Shape ops on symbolic tensors (both sides).
  static SVal transpose(const SVal& x, const std::vector<int64_t>& p);
  /// broadcast_to from any rank up to the result's (numpy alignment). Adds its well-formedness: assumed
  /// in the source, ill-formed in the target.
  SVal broadcast(const SVal& x, const std::vector<smt::Expr>& dims, bool src);
  /// The axis of a concat node at `rank`: a literal, a bound capture, or every axis (a choice).
  int64_t concat_axis(const rules::Node& n, int rank);
  /// concat along `axis`: the output element comes from the operand whose range holds i_axis.
  SVal concat(const std::vector<SVal>& xs, int64_t axis, bool src);
  static SVal slice(const SVal& x, const std::vector<smt::Expr>& starts, const std::vector<smt::Expr>& dims);
  static SVal tile(const SVal& x, const std::vector<smt::Expr>& reps);

  // ---- the source (encode_source.cpp) ----
  /// Evaluates source node `n` whose result has rank `rank`; `ctx` gives the type of a literal.
  SVal src(const rules::Node& n, int rank, std::optional<TypeV> ctx);
  SVal src_value(const rules::Node& n, int rank, const std::optional<TypeV>& ctx);
  SVal src_op(const rules::Node& n, int rank, const std::optional<TypeV>& ctx);
  int add_cnode(CNode c);
  // ---- dot_general (encode_dot.cpp) ----
  /// The source's dot_general (at most one): every split of the root's axes into batch, lhs free and rhs
  /// free, 0..max_contract_ contracting dims, every placement of the lists; its fold is a fresh value
  /// per output index, recorded with its product operands at symbolic contraction coordinates.
  SVal src_dot(const rules::Node& n, int rank, CNode& cn);
  /// A result dot_general: the source fold's value where its product operands at the source's
  /// contraction coordinates, extents, dtypes and accumulation are the same terms; else a fresh value.
  SVal tgt_dot(const rules::Node& n, const std::optional<TypeV>& given);
  std::vector<int64_t> dot_list(const rules::Node& n, const std::string& name, int nb_or_nc, int rank,
                                std::vector<int64_t>& rest);
  /// A per-axis integer attribute of a source node: a bound capture, or fresh integers >= min.
  std::vector<smt::Expr> sym_attr(const rules::Node& n, const std::string& name, int rank, int64_t min);
  const TypeV* type_arg(const rules::Constraint::Arg& a);
  void constraint(const rules::Constraint& c);

  // ---- integer expressions (int_exprs.cpp) ----
  /// An integer term and where it is defined (natives.cpp eval_int: no int64 overflow, indices in range).
  struct IntV {
    smt::Expr v, def;
  };
  using IntVars = std::vector<std::pair<std::string, int64_t>>;  ///< bound variables, innermost last
  IntV int_value(const rules::IntExpr& e, IntVars& vars);
  /// An axis: a bound variable or a captured concat axis (concrete at a configuration).
  std::optional<int64_t> int_index(const rules::IntExpr& e, IntVars& vars);
  /// `rank(X)`, the only bound the fragment admits.
  int64_t int_count(const rules::IntExpr& e, IntVars& vars);
  smt::Expr int_holds(const rules::IntCond& c, IntVars& vars);
  /// `[var < count: elem]`, a computed attribute (or result dims when `dims`): each entry; where one is
  /// undefined (or a dim negative) the rule does not apply (an assumption).
  std::vector<smt::Expr> int_list(const std::string& var, const rules::IntExpr& count, const rules::IntExpr& elem,
                                  bool dims);
  /// `with_at($s, k, E)`.
  std::vector<smt::Expr> int_with_at(const rules::AttrExpr& a);

  // ---- the target (encode_target.cpp) ----
  SVal tgt(const rules::Node& n, const TypeV* ctx, bool is_root);
  /// A target instruction the verifier rejects whatever the sizes: every index is a counterexample.
  SVal ill_value(const TypeV& t);
  std::vector<int64_t> concrete_attr(const rules::Node& n, const std::string& name);
  std::vector<smt::Expr> sym_attr_tgt(const rules::Node& n, const std::string& name);
  SVal lit_helper(const rules::Node& n, DType d, const std::vector<smt::Expr>& dims);

  const rules::Rule& r_;
  const RuleFacts& f_;
  int rank_;
  Chooser& ch_;
  FastMath fm_;
  int forced_flags_ = -1;
  smt::Expr nnan_, ninf_, nsz_;  ///< the function's flags: true where assumed, else free
  std::vector<smt::Expr> idx_;
  std::map<std::string, SVal> vals_;
  std::map<std::string, TypeV> types_;
  std::map<std::string, AttrB> attrs_;
  std::map<std::string, SVal> lits_;       ///< const($c) splats (and rank-0 literals): one element
  std::set<std::string> tensor_lits_;      ///< const($c) that may be any tensor (CNode::Literal)
  TypeV root_type_;
  TypeV tmp_;
  bool src_root_governed_ = false;
  /// Evaluating a target value every element of which is read by some output element (false under
  /// slice, tile, broadcast_to): a target op that can have UB there would hide its unread elements.
  bool tgt_full_ = true;
  struct NotFull {
    bool& f;
    bool saved;
    explicit NotFull(bool& x) : f(x), saved(x) { f = false; }
    ~NotFull() { f = saved; }
  };
  int fresh_ = 0;
  bool in_source_ = true;
  std::map<std::string, std::vector<int>> axis_map_;
  std::map<std::string, ReduceAccum> reduce_accum_;  ///< `as %r` of a reduction -> its accumulation
  std::map<std::string, std::map<std::string, bool>> present_;  ///< `as %r` -> attributes chosen present/absent
  /// One evaluation of the source fold: what a target fold must match to share its value.
  struct FoldRec {
    std::vector<smt::Expr> k, extents;
    DType elem, acc;
    smt::Expr lv, rv, lub, rub, value;
  };
  std::vector<FoldRec> folds_;
  std::vector<smt::Expr> kvars_;  ///< the source fold's contraction coordinates: axes of the argument too
  bool src_dot_ = false;
  std::vector<std::unique_ptr<smt::Pow2Divisor>> pow2_divisors_;  ///< constraint(): is_pow2 literals
};

/// c is a finite nonzero power of two whose reciprocal is exact (natives.cpp p_is_pow2):
/// smt::pow2_with_exact_reciprocal, built from the bits (no division).
smt::Expr pow2_exact(const smt::Expr& c);

// ---- the rank bound (bound.cpp) ----

/// The count of distinct reads of one configuration: max(1, conditions + pairs of distinct reads).
int bound_of(const Enc& e);

/// What the rank bound needs from a rule's text besides its reads.
struct RuleAxes {
  bool has_transpose = false;          ///< ranks from 2 (below, every permutation is the identity)
  std::set<std::string> axis_caps;     ///< captured concat axes: one distinguished axis each
  int unnamed_axes = 0;                ///< concats whose axis is neither a literal nor a capture: one each
  int literal_pins = 0;                ///< a literal concat axis k pins axes 0..k: k + 1
  int witness_axes = 0;                ///< positive some_axis_size: one witness axis each
  /// The sum of N over the rule's rank_is(X, N): the argument keeps every axis of such an X (dropping
  /// one would break the constraint), at most N axes of the argument each, beside the counted ones.
  int fixed_rank = 0;
  /// Every rank_is names the root (its `: $T` or `as` name) and the rule has no dot_general: every
  /// instance has root rank N and no axis besides the N output axes, so B = max(N, counted) suffices.
  bool root_rank_only = false;
  int root_rank = 0;  ///< N of rank_is on the root, with root_rank_only
};
RuleAxes rule_axes(const rules::Rule& r, const RuleFacts& f);

/// The rank bound B of `r`: the largest bound_of over every configuration evaluated at ranks 1 to 3
/// (a configuration infeasible at rank 1 still has reads), one more axis when a target can be
/// ill-formed where the source's assumptions allow it, then the axes of `a`. Z3 units the ill-formedness
/// checks spend are charged to `budget`; nullopt when the budget is exhausted before the count ends.
/// Throws Outside like the encoder.
/// `premise`: set to the first P2 failure (Enc::premise) of a configuration at ranks 1 to 3, which the
/// count evaluates anyway: reads whose axis maps differ only from rank 2 on (a reduction without keepdims
/// under a broadcast_to shifts its operand's axes) are invisible at ranks 0..B when B is 1.
std::optional<int> rank_bound(const rules::Rule& r, const RuleFacts& f, const RuleAxes& a, smt::UnitBudget& budget,
                              std::string* premise = nullptr);

// ---- concretization (concretize.cpp) ----

struct Concrete {
  std::unique_ptr<Program> program;
  std::vector<Tensor> inputs;
  std::string why_not;
};
/// The model's sizes, attributes and inputs as a program the REAL pattern runs on (`fm`: the
/// function's flags); none when a tensor would have more than `max_elements` elements, or the
/// program does not verify.
Concrete concretize(const Enc& e, const smt::Model& m, FastMath fm, int64_t max_elements);

}  // namespace ptir::allshape::detail
