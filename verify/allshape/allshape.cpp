// All-shape proofs (verify/allshape/allshape.h, docs/verification.md "All-shape proofs").
//
// One configuration = a rank r for the root, a choice of dtypes for the rule's free dtype slots
// (captures, cast results, untyped roots) and of permutations for its transposes. For each, both DAGs
// are evaluated at a symbolic output index i = (i_0, ..., i_{r-1}) with per-axis integer sizes (0
// allowed) and per-axis integer attributes; captures are uninterpreted functions Int^r -> element.
// The query asks for sizes, attributes, inputs and an in-bounds i where the source has no UB at i and
// the target differs from it at i (spec element equality: NaNs equal, +0 != -0), has UB there, or is
// ill-formed. Unsat for every configuration at every rank 0..B, with B the rank bound of the argument
// in docs/verification.md, is PROVED FOR ALL SHAPES.
#include "verify/allshape/allshape.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>

#include "ir/fastmath.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/rules/natives.h"
#include "verify/encode/ops.h"
#include "verify/prove/instance.h"
#include "verify/smt/solver.h"

namespace ptir::allshape {
namespace {

using rules::Node;
using smt::Expr;
using smt::Sort;
using clock = std::chrono::steady_clock;

/// This configuration is not an instance (ill-typed, a constraint false): skipped.
struct Infeasible {
  std::string why;
};
/// The rule is outside the fragment, or a premise of the rank argument fails.
struct Outside {
  std::string why;
};

/// Discrete choices as an odometer: a run takes digits in order; next() moves to the next run
/// (depth first), so choices that depend on earlier ones are enumerated exactly.
class Chooser {
 public:
  int choose(int n) {
    if (n <= 1) return 0;
    if (pos_ < digits_.size()) return digits_[pos_++].v;
    digits_.push_back({0, n});
    ++pos_;
    return 0;
  }
  void start() { pos_ = 0; }
  bool next() {
    digits_.resize(pos_);
    while (!digits_.empty()) {
      if (digits_.back().v + 1 < digits_.back().n) {
        ++digits_.back().v;
        pos_ = 0;
        return true;
      }
      digits_.pop_back();
    }
    return false;
  }

 private:
  struct D {
    int v, n;
  };
  std::vector<D> digits_;
  size_t pos_ = 0;
};

struct Elem {
  Expr v;
  Expr ub;
};

/// A symbolic tensor: dtype, per-axis sizes (Int terms) and its element at a symbolic index.
struct SVal {
  DType dtype = DType::F32;
  std::vector<Expr> dims;
  std::function<Elem(const std::vector<Expr>&)> at;
  int cnode = -1;  ///< the source node it came from (concretization), -1 for target values
};

/// A source node as concretization needs it: evaluated in a model, it is the instance.
struct CNode {
  enum Kind : uint8_t { Param, Splat, Scalar, Op } kind = Param;
  OpCode op = OpCode::Constant;
  DType dtype = DType::F32;
  std::vector<Expr> dims;
  std::vector<int> operands;
  std::vector<std::pair<std::string, std::vector<Expr>>> ints;  ///< per-axis integer attributes
  std::vector<std::pair<std::string, std::vector<int64_t>>> cints;
  std::vector<std::pair<std::string, std::string>> words;
  uint64_t bits = 0;  ///< Splat
  Expr scalar;        ///< Scalar (a const($c) splat): its element
  std::string capture;
  std::shared_ptr<smt::Func> uf;  ///< Param of rank > 0
};

std::vector<int64_t> nth_perm(int r, int n) {
  std::vector<int64_t> p(r);
  std::iota(p.begin(), p.end(), 0);
  for (int k = 0; k < n; ++k) std::next_permutation(p.begin(), p.end());
  return p;
}
int factorial(int r) { return r <= 1 ? 1 : r * factorial(r - 1); }

bool is_identity_perm(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

/// The IEEE bit-pattern test "c is +-2^k" (normal with a zero fraction, or a one-bit subnormal).
Expr pow2_bits(const Expr& c) {
  const smt::FPFormat f = c.format();
  const unsigned w = f.ebits + f.sbits;
  const Expr bits = c.toIEEE();
  const Expr frac = bits.extract(f.sbits - 2, 0), exp = bits.extract(w - 2, f.sbits - 1);
  const Expr zero_e = Expr::bv(0, f.ebits), ones_e = Expr::bv((uint64_t{1} << f.ebits) - 1, f.ebits);
  const Expr normal = exp != zero_e && exp != ones_e && frac == Expr::bv(0, f.sbits - 1);
  std::vector<Expr> one_bit;
  for (unsigned k = 0; k + 1 < f.sbits; ++k) one_bit.push_back(frac == Expr::bv(uint64_t{1} << k, f.sbits - 1));
  return normal || (exp == zero_e && Expr::any(one_bit));
}

/// The IR verifier's dtype rule of an op (ir/verifier.cpp check_op_rule): a configuration that breaks
/// it is not an instance (source) or a rule that builds an invalid instruction (target).
bool dtype_valid(OpCode op, DType t) {
  switch (op) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div:
    case OpCode::Maximum: case OpCode::Minimum: case OpCode::ReduceSum: case OpCode::ReduceMax:
    case OpCode::ReduceMin:
      return t != DType::I1;
    case OpCode::Exp: case OpCode::Log: case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt:
    case OpCode::Reciprocal: case OpCode::Sqrt:
      return is_float(t);
    default: return true;
  }
}
/// check_accum: an accumulation dtype of the element's kind (float or integer), never i1.
bool accum_valid(DType elem, DType acc) { return acc != DType::I1 && is_float(acc) == is_float(elem); }

/// A capture of a source attribute.
struct AttrB {
  bool concrete = true;
  std::vector<int64_t> c;  ///< concrete integer list (perm)
  std::vector<Expr> sym;   ///< per-axis integers
  std::string word;
  bool is_word = false;
};

enum class Side : uint8_t { Src, Tgt };

/// Which source transposes are known to compose to the identity (the fragment's gate), found once.
struct RuleFacts {
  std::set<std::string> scalar_caps;      ///< rank_is(%x, 0)
  std::map<std::string, int> rank_of;     ///< rank_is(%x, N), N > 0
  std::set<std::string> splat_lits;       ///< is_splat($c) / is_pow2($c)
  std::set<std::pair<std::string, std::string>> same_shape;     ///< same_type / same_shape (a, b)
};


RuleFacts facts_of(const rules::Rule& r) {
  RuleFacts f;
  for (const rules::Constraint& c : r.where) {
    if (c.negated) continue;
    if (c.pred == "rank_is" && c.args.size() == 2) {
      if (c.args[1].i == 0) f.scalar_caps.insert(c.args[0].name);
      else f.rank_of[c.args[0].name] = static_cast<int>(c.args[1].i);
    }
    if ((c.pred == "is_splat" || c.pred == "is_pow2") && !c.args.empty()) f.splat_lits.insert(c.args[0].name);
    if ((c.pred == "same_type" || c.pred == "same_shape") && c.args.size() == 2) {
      f.same_shape.insert({c.args[0].name, c.args[1].name});
      f.same_shape.insert({c.args[1].name, c.args[0].name});
    }
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// The fragment, decided on the rule's text.

std::string check_node(const Node& n, const rules::Rule& r, const RuleFacts& f, bool result) {
  switch (n.kind) {
    case Node::Kind::Value: return "";
    case Node::Kind::Splat: return "";
    case Node::Kind::Const:
      if (result) {
        if (n.helper == "reciprocal" || n.helper == "reciprocal_rounded" || n.helper == "lowest" || n.helper == "highest")
          return "";
        return "literal helper " + n.helper + " has no all-shape encoding";
      }
      return "";
    case Node::Kind::Op: break;
  }
  const OpCode op = n.op;
  std::string why;
  auto sub = [&]() -> std::string {
    for (const auto& o : n.operands)
      if (auto w = check_node(*o, r, f, result); !w.empty()) return w;
    return "";
  };
  for (const auto& a : n.attrs)
    if (a.kind == rules::AttrExpr::Kind::Ints && op != OpCode::Concat)
      return std::string(mnemonic(op)) + " with a literal integer attribute fixes a rank: bounded only";
  if (op == OpCode::Cast || op == OpCode::Compare || op == OpCode::Select ||
      (has_trait(op, OpTrait::Elementwise) && !has_trait(op, OpTrait::Effect)))
    return sub();
  switch (op) {
    case OpCode::Transpose:
    case OpCode::BroadcastTo: return sub();  // the premise (consistent axis maps) is checked per read
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin: {
      if (result) return "a reduction in the result: bounded only";
      // Folds over one element or none are definitional; any other fold is an arbitrary value (an
      // over-approximation), so only rules whose constraints force those cases can be proved.
      return sub();
    }
    case OpCode::Reshape: {
      const Node& x = *n.operands[0];
      const std::string t = !n.type_capture.empty() ? n.type_capture : n.type.name;
      if (result) return sub();  // only adding or dropping size-1 axes is encoded (else ill-formed: checked)
      if (x.kind != Node::Kind::Value || t.empty() || !f.same_shape.count({x.name, t}))
        return "reshape that may change the shape: general reshapes are bounded only";
      return sub();
    }
    case OpCode::Slice:
    case OpCode::Tile: return sub();
    case OpCode::Concat: return sub();
    default:
      return std::string(mnemonic(op)) + ": outside the all-shape fragment (bounded only)";
  }
}

// ---------------------------------------------------------------------------------------------
// The encoder of one configuration at one rank.

class Enc {
 public:
  /// `forced_flags` >= 0: the nnan/ninf/nsz flags beyond the assumptions are these bits (FastMathFlag
  /// positions) instead of free Booleans (the retry of a query Z3 could not decide).
  Enc(const rules::Rule& r, const RuleFacts& f, int rank, Chooser& choose, int forced_flags = -1)
      : r_(r), f_(f), rank_(rank), ch_(choose), fm_(FastMath{r.assumes}), forced_flags_(forced_flags) {
    for (int k = 0; k < rank; ++k) idx_.push_back(Expr::var("i!" + std::to_string(k), Sort::integer()));
    // A rule fires in every function whose flags include its assumptions: nnan, ninf and nsz beyond
    // them are free Booleans of the query (one query covers every combination); reassoc is handled
    // apart (prove_all_shapes: scope and gate).
    auto flag = [&](FastMathFlag f, const char* name) {
      if (fm_.has(f)) return Expr::boolean(true);
      if (forced_flags_ >= 0) return Expr::boolean((forced_flags_ >> static_cast<int>(f)) & 1);
      return Expr::var(std::string("flag.") + name, Sort::boolean());
    };
    nnan_ = flag(FastMathFlag::NNaN, "nnan");
    ninf_ = flag(FastMathFlag::NInf, "ninf");
    nsz_ = flag(FastMathFlag::NSZ, "nsz");
  }

  // Filled by run():
  std::vector<Expr> assume;     ///< well-formedness of the source, constraints, the index in bounds
  Expr src_ub, tgt_ub, differ;  ///< at the index
  Expr in_bounds;               ///< the index is in the root's bounds
  Expr tgt_ill;                 ///< the target is ill-formed (a rule bug) for these sizes
  std::vector<CNode> cnodes;
  int root = -1;
  DType root_dtype = DType::F32;
  std::map<std::string, std::set<std::string>> reads;  ///< capture -> distinct index tuples read
  std::vector<std::string> notes;
  std::vector<std::string> premise;                    ///< premise violations seen
  std::vector<std::pair<std::string, std::vector<Expr>>> dim_log;  ///< for describing a model

  void run() {
    tgt_ill = Expr::boolean(false);
    SVal s = src(*r_.source, rank_, std::nullopt);
    root = s.cnode;
    root_dtype = s.dtype;
    root_type_ = {s.dtype, s.dims};
    for (const rules::Constraint& c : r_.where) constraint(c);
    SVal t = tgt(*r_.result, &root_type_, true);
    if (t.dtype != s.dtype || t.dims.size() != s.dims.size()) throw Infeasible{"result type differs from the root's"};
    std::vector<Expr> same;
    for (size_t k = 0; k < s.dims.size(); ++k) same.push_back(t.dims[k] == s.dims[k]);
    // The rule applies only when the result's type equals the root's (docs/rules.md "Applying").
    assume.push_back(Expr::all(same));
    // The index is in bounds only for the element comparison: an ill-formed target is a counterexample
    // for an empty root too (prove_all_shapes' `bad`; the engine proved a rule whose constraints force an
    // empty root and whose result builds a concat of the wrong size: the prover fuzzer).
    std::vector<Expr> bounds;
    for (size_t k = 0; k < idx_.size(); ++k) bounds.push_back(Expr::intVal(0).ile(idx_[k]) && idx_[k].ilt(s.dims[k]));
    in_bounds = Expr::all(bounds);
    Elem a = s.at(idx_), b = t.at(idx_);
    src_ub = a.ub;
    tgt_ub = b.ub;
    Expr eq = a.v == b.v;
    // nsz: a zero result of the source root may have either sign (docs/semantics.md "Fast-math flags").
    if (src_root_governed_ && is_float(s.dtype)) eq = eq || (nsz_ && a.v.isZero() && b.v.isZero());
    differ = !eq;
  }

 private:
  const rules::Rule& r_;
  const RuleFacts& f_;
  int rank_;
  Chooser& ch_;
  FastMath fm_;
  int forced_flags_ = -1;
  Expr nnan_, ninf_, nsz_;  ///< the function's flags: true where assumed, else free
  std::vector<Expr> idx_;
  std::map<std::string, SVal> vals_;
  std::map<std::string, std::pair<DType, std::vector<Expr>>> types_;
  std::map<std::string, AttrB> attrs_;
  std::map<std::string, SVal> lits_;
  std::pair<DType, std::vector<Expr>> root_type_;
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

  Expr fresh_int(const std::string& what) { return Expr::var(what + "!" + std::to_string(fresh_++), Sort::integer()); }
  std::vector<Expr> fresh_dims(int rank, const std::string& what) {
    std::vector<Expr> d;
    for (int k = 0; k < rank; ++k) {
      d.push_back(fresh_int("n." + what + "." + std::to_string(k)));
      assume.push_back(Expr::intVal(0).ile(d.back()));
    }
    dim_log.push_back({what, d});
    return d;
  }
  DType choose_dtype() { return static_cast<DType>(ch_.choose(kNumDTypes)); }

  void read(const std::string& cap, const std::vector<Expr>& idx) {
    std::string key;
    // Premise of the rank argument: each component of a read depends on at most one output axis, no
    // two components on the same one, and every read of a capture maps its axes to the same output
    // axes (transposes and broadcasts included): dropping an output axis then drops the same input
    // axis from every read.
    std::vector<int> map(idx.size(), -1);
    std::set<int> used;
    for (size_t k = 0; k < idx.size(); ++k) {
      const Expr s = idx[k].simplify();
      key += s.str() + ";";
      for (size_t j = 0; j < idx_.size(); ++j) {
        if (!mentions(s, idx_[j])) continue;
        if (map[k] != -1)
          premise.push_back("a read of %" + cap + " takes its axis " + std::to_string(k) + " from two output axes");
        map[k] = static_cast<int>(j);
      }
      if (map[k] != -1 && !used.insert(map[k]).second)
        premise.push_back("a read of %" + cap + " takes two axes from output axis " + std::to_string(map[k]));
    }
    auto it = axis_map_.find(cap);
    if (it == axis_map_.end()) axis_map_.emplace(cap, map);
    else
      for (size_t k = 0; k < map.size(); ++k)
        if (map[k] != -1 && it->second[k] != -1 && map[k] != it->second[k])
          premise.push_back("two reads of %" + cap + " take its axis " + std::to_string(k) + " from output axes " +
                            std::to_string(it->second[k]) + " and " + std::to_string(map[k]));
    reads[cap].insert(key);
  }
  std::map<std::string, std::vector<int>> axis_map_;
  struct ReduceAccum {
    DType elem;
    bool has_accum;
    DType acc;
  };
  std::map<std::string, ReduceAccum> reduce_accum_;  ///< `as %r` of a reduction -> its accumulation
 public:
  int max_reduced_ = 1;  ///< reduced axes beyond the result's rank (keepdims false)
  /// The function's flags as a model chose them (assumed ones are true).
  uint8_t flags_in(const smt::Model& m) const {
    uint8_t b = 0;
    if (m.eval(nnan_).isTrue()) b |= rules::kNNaN;
    if (m.eval(ninf_).isTrue()) b |= rules::kNInf;
    if (m.eval(nsz_).isTrue()) b |= rules::kNSZ;
    return static_cast<uint8_t>(b | (r_.assumes & rules::kReassoc));
  }
 private:
  static bool mentions(const Expr& e, const Expr& var) {
    const std::vector<unsigned> c = e.constants();
    return std::binary_search(c.begin(), c.end(), var.id());
  }

  void bind_type(const std::string& name, DType d, const std::vector<Expr>& dims) {
    if (name.empty()) return;
    auto it = types_.find(name);
    if (it == types_.end()) {
      types_.emplace(name, std::make_pair(d, dims));
      return;
    }
    if (it->second.first != d || it->second.second.size() != dims.size()) throw Infeasible{"$" + name + " bound twice"};
    for (size_t k = 0; k < dims.size(); ++k) assume.push_back(it->second.second[k] == dims[k]);
  }

  // ---- element helpers ----

  /// nnan/ninf UB of a governed op on its operand and result elements (docs/semantics.md).
  Expr fm_ub(OpCode op, std::span<const Elem> args, std::span<const DType> arg_dtypes, const Expr& res, DType rd) const {
    Expr ub = Expr::boolean(false);
    if (!fastmath_governs(op)) return ub;
    auto chk = [&](const Expr& x, DType d) {
      if (!is_float(d)) return;
      ub = ub || (nnan_ && x.isNaN()) || (ninf_ && x.isInf());
    };
    for (size_t k = 0; k < args.size(); ++k) chk(args[k].v, arg_dtypes[k]);
    chk(res, rd);
    return ub;
  }

  /// An elementwise op on elements (cast: `to`; compare: `dir`).
  Elem elementwise(OpCode op, std::span<const Elem> a, DType t, DType to, const std::string& dir, Side side,
                   int node_tag) {
    Expr ub = Expr::boolean(false);
    for (const Elem& e : a) ub = ub || e.ub;
    Expr v;
    switch (op) {
      case OpCode::Neg: v = verify::sem::neg(a[0].v, t); break;
      case OpCode::Abs: v = verify::sem::abs(a[0].v, t); break;
      case OpCode::Add:
        v = is_float(t) && a[0].v.same(a[1].v) ? verify::sem::mul(a[0].v, verify::sem::integer(t, 2), t)
                                                : verify::sem::add(a[0].v, a[1].v, t);
        break;
      // Exact IEEE identities, so that both sides of a rule meet as one term instead of two circuits
      // Z3 must bit-blast against each other: x - y = x + (-y) (IEEE 754 defines subtraction so, zero
      // signs included: +0 - +0 = +0 + -0 = +0 under round-to-nearest), x + x = x * 2 (one rounding
      // of the same real value), and integer x / -1 = -x (two's complement wraps MIN to MIN; the
      // MIN / -1 UB is kept from sem::div).
      case OpCode::Sub:
        v = is_float(t) ? verify::sem::add(a[0].v, -a[1].v, t) : verify::sem::sub(a[0].v, a[1].v, t);
        break;
      case OpCode::Mul: v = verify::sem::mul(a[0].v, a[1].v, t); break;
      case OpCode::Div: {
        verify::sem::Value q = verify::sem::div(a[0].v, a[1].v, t);
        v = q.v;
        if (is_integer(t) && is_signed_int(t) && a[1].v.numeral() == (bits_mask(t))) v = -a[0].v;
        ub = ub || q.ub;
        break;
      }
      case OpCode::Maximum: v = verify::sem::maximum(a[0].v, a[1].v, t); break;
      case OpCode::Minimum: v = verify::sem::minimum(a[0].v, a[1].v, t); break;
      case OpCode::Sqrt:
        if (!is_float(t)) throw Infeasible{"sqrt of an integer"};
        v = a[0].v.sqrt();
        break;
      case OpCode::Reciprocal:
        if (!is_float(t)) throw Infeasible{"reciprocal of an integer"};
        v = verify::sem::integer(t, 1) / a[0].v;
        break;
      case OpCode::StopGradient: v = a[0].v; break;
      case OpCode::Compare:
        v = verify::sem::compare(dir, a[0].v, a[1].v, t);
        if (!v.valid()) throw Infeasible{"unknown dir"};
        break;
      case OpCode::Select: v = Expr::ite(a[0].v, a[1].v, a[2].v); break;
      case OpCode::Cast: v = verify::sem::cast(a[0].v, t, to); break;
      case OpCode::Exp: case OpCode::Log: case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt: {
        if (!is_float(t)) throw Infeasible{"transcendental of an integer"};
        v = verify::enc::apply_uf(std::string(mnemonic(op)) + "." + dtype_name(t), {&a[0].v, 1}, verify::sem::sort_of(t));
        break;
      }
      default: throw Outside{std::string(mnemonic(op)) + ": no all-shape element encoding"};
    }
    const DType rd = op == OpCode::Compare ? DType::I1 : op == OpCode::Cast ? to : t;
    std::vector<DType> adt;
    for (size_t k = 0; k < a.size(); ++k) adt.push_back(op == OpCode::Select && k == 0 ? DType::I1 : t);
    ub = ub || fm_ub(op, a, adt, v, rd);
    if (side == Side::Tgt && fastmath_governs(op) && is_float(rd)) {
      // The target's zero results may take either sign: the choice is the counterexample's.
      smt::Func sign("nsz.t" + std::to_string(node_tag), std::vector<Sort>(idx_.size(), Sort::integer()), Sort::boolean());
      const Expr s = idx_.empty() ? Expr::var("nsz.t" + std::to_string(node_tag), Sort::boolean()) : sign(idx_);
      const smt::FPFormat f = verify::sem::fp_format(rd);
      v = Expr::ite(nsz_ && v.isZero(), Expr::ite(s, Expr::zero(f, true), Expr::zero(f, false)), v);
    }
    return {v, ub};
  }

  // ---- the source ----

  /// Evaluates source node `n` whose result has rank `rank`; `ctx` gives the type of a literal.
  SVal src(const Node& n, int rank, std::optional<std::pair<DType, std::vector<Expr>>> ctx) {
    SVal out;
    switch (n.kind) {
      case Node::Kind::Value: out = src_value(n, rank, ctx); break;
      case Node::Kind::Splat: {
        if (!ctx) throw Outside{"a splat without a typed context"};
        out = splat_val(n.number, ctx->first, ctx->second);
        CNode c;
        c.kind = CNode::Splat, c.dtype = out.dtype, c.dims = out.dims;
        c.bits = *rules::number_bits(out.dtype, n.number.value, n.number.is_float);
        out.cnode = add_cnode(std::move(c));
        break;
      }
      case Node::Kind::Const: {
        if (!ctx) throw Outside{"a const($c) without a typed context"};
        if (!f_.splat_lits.count(n.name)) throw Outside{"const($" + n.name + ") that may be a non-splat literal"};
        auto it = lits_.find(n.name);
        if (it != lits_.end()) {
          // The matcher rebinds $c at a second const($c) (no equality check): two different literals.
          throw Outside{"const($" + n.name + ") twice in the source (the matcher rebinds it)"};
        } else {
          const Expr c = Expr::var("c." + n.name, verify::sem::sort_of(ctx->first));
          out.dtype = ctx->first;
          out.dims = ctx->second;
          out.at = [c](const std::vector<Expr>&) { return Elem{c, Expr::boolean(false)}; };
          CNode cn;
          cn.kind = CNode::Scalar, cn.dtype = out.dtype, cn.dims = out.dims, cn.scalar = c, cn.capture = n.name;
          out.cnode = add_cnode(std::move(cn));
          lits_.emplace(n.name, out);
        }
        break;
      }
      case Node::Kind::Op: out = src_op(n, rank, ctx); break;
    }
    bind_type(n.type_capture, out.dtype, out.dims);
    if (!n.as_name.empty()) vals_.emplace(n.as_name, out);
    return out;
  }

  SVal splat_val(const rules::Number& num, DType d, const std::vector<Expr>& dims) {
    auto bits = rules::number_bits(d, num.value, num.is_float);
    if (!bits) throw Infeasible{"splat not representable"};
    const Expr v = verify::sem::constant(d, *bits);
    SVal s;
    s.dtype = d, s.dims = dims;
    s.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
    return s;
  }

  SVal src_value(const Node& n, int rank, const std::optional<std::pair<DType, std::vector<Expr>>>& ctx) {
    auto it = vals_.find(n.name);
    if (it != vals_.end()) {
      if (static_cast<int>(it->second.dims.size()) != rank) throw Infeasible{"%" + n.name + " used at two ranks"};
      return it->second;
    }
    if (f_.scalar_caps.count(n.name) && rank != 0) throw Infeasible{"rank_is 0"};
    if (auto rk = f_.rank_of.find(n.name); rk != f_.rank_of.end() && rk->second != rank) throw Infeasible{"rank_is"};
    SVal s;
    s.dtype = ctx ? ctx->first : choose_dtype();
    s.dims = fresh_dims(rank, n.name);
    CNode c;
    c.kind = CNode::Param, c.dtype = s.dtype, c.dims = s.dims, c.capture = n.name;
    const Sort sort = verify::sem::sort_of(s.dtype);
    if (rank == 0) {
      const Expr v = Expr::var("x." + n.name, sort);
      s.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
    } else {
      auto uf = std::make_shared<smt::Func>("x." + n.name, std::vector<Sort>(rank, Sort::integer()), sort);
      c.uf = uf;
      const std::string cap = n.name;
      s.at = [this, uf, cap](const std::vector<Expr>& i) {
        read(cap, i);
        return Elem{(*uf)(i), Expr::boolean(false)};
      };
    }
    s.cnode = add_cnode(std::move(c));
    vals_.emplace(n.name, s);
    return s;
  }

  int add_cnode(CNode c) {
    cnodes.push_back(std::move(c));
    return static_cast<int>(cnodes.size()) - 1;
  }

  /// The attribute `name` of a source op node: bound from the node (a capture or a word), else fresh.
  const rules::AttrExpr* node_attr(const Node& n, const std::string& name) {
    for (const auto& a : n.attrs)
      if (a.name == name) return &a;
    return nullptr;
  }

  SVal src_op(const Node& n, int rank, const std::optional<std::pair<DType, std::vector<Expr>>>& ctx) {
    const OpCode op = n.op;
    CNode cn;
    cn.kind = CNode::Op, cn.op = op;
    SVal out;
    if (op == OpCode::Cast || op == OpCode::Compare || op == OpCode::Select ||
        (has_trait(op, OpTrait::Elementwise) && !has_trait(op, OpTrait::Effect))) {
      // Typed operands first; literals then take their type from them.
      std::vector<std::optional<SVal>> args(n.operands.size());
      std::optional<std::pair<DType, std::vector<Expr>>> typed;
      const size_t first_val = op == OpCode::Select ? 1 : 0;
      std::vector<size_t> order;
      for (size_t k = first_val; k < n.operands.size(); ++k) order.push_back(k);
      if (first_val) order.push_back(0);
      for (size_t k : order) {
        const Node& o = *n.operands[k];
        if (o.kind == Node::Kind::Splat || o.kind == Node::Kind::Const) continue;
        // Operands of one elementwise op share the dtype (but a cast's operand is free, and a select's
        // predicate is i1), so a later operand takes the first one's: no configuration is lost.
        std::optional<std::pair<DType, std::vector<Expr>>> c;
        if (op == OpCode::Select && k == 0) c = std::make_pair(DType::I1, typed ? typed->second : std::vector<Expr>{});
        else if (typed && op != OpCode::Cast) c = typed;
        else if (ctx && op != OpCode::Cast && op != OpCode::Compare) c = ctx;  // the op's dtype is its parent's
        args[k] = src(o, rank, c);
        if (k >= first_val && !typed) typed = std::make_pair(args[k]->dtype, args[k]->dims);
      }
      if (!typed) {
        // Every value operand is a literal: the op's type comes from its context or is free.
        std::vector<Expr> dims;
        for (size_t k = 0; k < n.operands.size() && dims.empty(); ++k)
          if (args[k]) dims = args[k]->dims;
        if (dims.empty() && rank > 0) dims = fresh_dims(rank, "lit");
        DType d = ctx && op != OpCode::Compare && op != OpCode::Cast ? ctx->first : choose_dtype();
        typed = std::make_pair(d, dims);
      }
      for (size_t k = 0; k < n.operands.size(); ++k) {
        if (args[k]) continue;
        auto c = typed;
        if (op == OpCode::Select && k == 0) c->first = DType::I1;
        args[k] = src(*n.operands[k], rank, c);
      }
      // Operand dtypes and shapes must agree (the IR verifier rejects the rest).
      const DType t = typed->first;
      for (size_t k = 0; k < args.size(); ++k) {
        const DType want = op == OpCode::Select && k == 0 ? DType::I1 : t;
        if (op != OpCode::Cast && args[k]->dtype != want) throw Infeasible{"operand dtypes differ"};
        for (size_t a = 0; a < args[k]->dims.size(); ++a) assume.push_back(args[k]->dims[a] == typed->second[a]);
      }
      if (!dtype_valid(op, t)) throw Infeasible{"the verifier rejects this dtype"};
      DType to = t;
      std::string dir;
      if (op == OpCode::Cast) {
        to = choose_dtype();
        cn.dtype = to;
      }
      if (op == OpCode::Compare) {
        const rules::AttrExpr* a = node_attr(n, "dir");
        static const char* kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};
        if (a && a->kind == rules::AttrExpr::Kind::Word) dir = a->word;
        else {
          dir = kDirs[ch_.choose(6)];
          if (a) attrs_[a->capture] = AttrB{true, {}, {}, dir, true};
        }
        cn.words.push_back({"dir", dir});
      }
      out.dtype = op == OpCode::Compare ? DType::I1 : op == OpCode::Cast ? to : t;
      out.dims = typed->second;
      cn.dtype = out.dtype;
      const bool is_root = &n == r_.source.get();
      // An inner source op under nsz keeps its IEEE default sign: one allowed source behaviour, so a
      // target that matches it refines the source (proving with fewer source behaviours is sound).
      if (is_root && fastmath_governs(op)) src_root_governed_ = true;
      std::vector<SVal> av;
      for (auto& a : args) {
        cn.operands.push_back(a->cnode);
        av.push_back(*a);
      }
      const int tag = fresh_++;
      out.at = [this, av, op, t, to, dir, tag](const std::vector<Expr>& i) {
        std::vector<Elem> e;
        for (const SVal& a : av) e.push_back(a.at(i));
        return elementwise(op, e, t, to, dir, Side::Src, tag);
      };
    } else {
      switch (op) {
        case OpCode::Transpose: {
          SVal x = src(*n.operands[0], rank, std::nullopt);
          const rules::AttrExpr* a = node_attr(n, "perm");
          std::vector<int64_t> p;
          if (a && a->kind == rules::AttrExpr::Kind::Capture && attrs_.count(a->capture) && !attrs_[a->capture].concrete)
            throw Outside{"$" + a->capture + " is both a per-axis attribute and a permutation"};
          if (a && a->kind == rules::AttrExpr::Kind::Capture && attrs_.count(a->capture)) p = attrs_[a->capture].c;
          else p = nth_perm(rank, ch_.choose(factorial(rank)));
          if (a && a->kind == rules::AttrExpr::Kind::Capture) attrs_[a->capture] = AttrB{true, p, {}, "", false};
          if (static_cast<int>(p.size()) != rank) throw Infeasible{"perm rank"};
          out = transpose(x, p);
          cn.cints.push_back({"perm", p});
          cn.operands.push_back(x.cnode);
          break;
        }
        case OpCode::BroadcastTo: {
          const Node& xn = *n.operands[0];
          // The operand may have any rank up to the result's (numpy: aligned on the right).
          const int xr = ch_.choose(rank + 1);
          SVal x = src(xn, xr, std::nullopt);
          out.dtype = x.dtype;
          out.dims = fresh_dims(rank, "broadcast");
          out = broadcast(x, out.dims, /*src=*/true);
          cn.operands.push_back(x.cnode);
          break;
        }
        case OpCode::Reshape: {  // only where the rule forces the same shape (the fragment's gate)
          SVal x = src(*n.operands[0], rank, std::nullopt);
          out = x;
          cn.operands.push_back(x.cnode);
          break;
        }
        case OpCode::Slice: {
          SVal x = src(*n.operands[0], rank, std::nullopt);
          std::vector<Expr> starts = sym_attr(n, "starts", rank, /*min=*/0);
          out.dtype = x.dtype;
          out.dims = fresh_dims(rank, "slice");
          for (int k = 0; k < rank; ++k) assume.push_back(starts[k].iadd(out.dims[k]).ile(x.dims[k]));
          out = slice(x, starts, out.dims);
          cn.ints.push_back({"starts", starts});
          cn.operands.push_back(x.cnode);
          break;
        }
        case OpCode::Tile: {
          SVal x = src(*n.operands[0], rank, std::nullopt);
          std::vector<Expr> reps = sym_attr(n, "repeats", rank, 0);
          out = tile(x, reps);
          cn.ints.push_back({"repeats", reps});
          cn.operands.push_back(x.cnode);
          break;
        }
        case OpCode::Concat: {
          std::vector<SVal> xs;
          for (const auto& o : n.operands) xs.push_back(src(*o, rank, xs.empty() ? std::nullopt : std::make_optional(std::make_pair(xs[0].dtype, xs[0].dims))));
          const int64_t axis = concat_axis(n, rank);
          out = concat(xs, axis, /*src=*/true);
          cn.cints.push_back({"axis", {axis}});
          for (const SVal& x : xs) cn.operands.push_back(x.cnode);
          break;
        }
        case OpCode::ReduceSum:
        case OpCode::ReduceMax:
        case OpCode::ReduceMin: {

          const rules::AttrExpr* kd = node_attr(n, "keepdims");
          bool keep = false;
          if (kd && kd->kind == rules::AttrExpr::Kind::Word) keep = kd->word == "true";
          else if (kd) throw Outside{"a captured keepdims"};
          else keep = ch_.choose(2) == 1;
          // keepdims: the operand has the result's rank; else up to max_reduced_ more axes.
          const int xr = keep ? rank : rank + ch_.choose(max_reduced_ + 1);
          if (xr > 12) throw Infeasible{"rank"};
          const int mask = ch_.choose(1 << xr);
          std::vector<int64_t> axes;
          for (int d = 0; d < xr; ++d)
            if (mask >> d & 1) axes.push_back(d);
          if (static_cast<int>(axes.size()) != xr - rank && !keep) throw Infeasible{"axes count"};
          const rules::AttrExpr* ax = node_attr(n, "axes");
          if (ax && ax->kind == rules::AttrExpr::Kind::Capture) {
            if (attrs_.count(ax->capture)) throw Outside{"$" + ax->capture + " names the axes of two reductions"};
            attrs_[ax->capture] = AttrB{true, axes, {}, "", false};
          } else if (ax) {
            throw Outside{"reduction axes given as a literal"};
          }
          if (node_attr(n, "accum")) throw Outside{"a reduction whose accum is matched"};
          const int acc_choice = ch_.choose(kNumDTypes + 1);  // 0: no accum attribute
          SVal x = src(*n.operands[0], xr, std::nullopt);
          const DType dt = x.dtype;
          const DType acc = acc_choice == 0 ? verify::sem::default_accum(dt) : static_cast<DType>(acc_choice - 1);
          if (!dtype_valid(op, dt) || (acc_choice != 0 && !accum_valid(dt, acc))) throw Infeasible{"dtype"};
          if (!n.as_name.empty()) reduce_accum_[n.as_name] = {dt, acc_choice != 0, acc};
          const verify::sem::Folder f{op == OpCode::ReduceSum ? verify::sem::Fold::Sum
                                      : op == OpCode::ReduceMax ? verify::sem::Fold::Max
                                                                : verify::sem::Fold::Min,
                                      acc};
          std::vector<bool> red(xr, false);
          for (int64_t d : axes) red[d] = true;
          out.dtype = dt;
          std::vector<Expr> empty, single;
          for (int d = 0; d < xr; ++d) {
            if (red[d]) {
              empty.push_back(x.dims[d] == Expr::intVal(0));
              single.push_back(x.dims[d] == Expr::intVal(1));
              if (keep) out.dims.push_back(Expr::intVal(1));
            } else {
              out.dims.push_back(x.dims[d]);
            }
          }
          const Expr is_empty = Expr::any(empty), is_single = Expr::all(single);
          // A fold over one element is that element loaded and stored; over none, the identity. Any
          // other fold is an arbitrary value per output index: an over-approximation (more behaviours
          // than the real fold), so a proof still holds and a counterexample must replay.
          auto other = std::make_shared<smt::Func>("fold.other." + std::to_string(fresh_++),
                                                   std::vector<Sort>(rank, Sort::integer()), verify::sem::sort_of(dt));
          const Expr other0 = Expr::var("fold.other0." + std::to_string(fresh_++), verify::sem::sort_of(dt));
          out.at = [x, red, keep, f, dt, is_empty, is_single, other, other0](const std::vector<Expr>& i) {
            std::vector<Expr> j;
            size_t oi = 0;
            for (size_t d = 0; d < red.size(); ++d) {
              if (red[d]) {
                j.push_back(Expr::intVal(0));
                if (keep) ++oi;
              } else {
                j.push_back(i[oi++]);
              }
            }
            const Elem e = x.at(j);
            const Expr one = f.store(f.load(e.v, dt), dt), id = f.store(f.identity(), dt);
            const Expr arbitrary = i.empty() ? other0 : (*other)(i);
            return Elem{Expr::ite(is_empty, id, Expr::ite(is_single, one, arbitrary)),
                        Expr::ite(is_empty, Expr::boolean(false), e.ub)};
          };
          cn.cints.push_back({"axes", axes});
          cn.cints.push_back({"keepdims", {keep ? 1 : 0}});
          if (acc_choice != 0) cn.cints.push_back({"accum", {static_cast<int64_t>(acc)}});
          cn.operands.push_back(x.cnode);
          break;
        }
        default: throw Outside{std::string(mnemonic(op)) + ": outside the all-shape fragment"};
      }
      cn.dtype = out.dtype;
    }
    cn.dims = out.dims;
    out.cnode = add_cnode(std::move(cn));
    return out;
  }

  /// A per-axis integer attribute of a source node: a bound capture, or fresh integers >= min.
  std::vector<Expr> sym_attr(const Node& n, const std::string& name, int rank, int64_t min) {
    const rules::AttrExpr* a = node_attr(n, name);
    if (a && a->kind == rules::AttrExpr::Kind::Capture) {
      auto it = attrs_.find(a->capture);
      if (it != attrs_.end()) {
        if (it->second.concrete)
          throw Outside{"$" + a->capture + " is both a per-axis attribute and a permutation/axis list"};
        if (it->second.sym.size() != static_cast<size_t>(rank)) throw Infeasible{"attribute rank"};
        return it->second.sym;
      }
    }
    std::vector<Expr> v;
    for (int k = 0; k < rank; ++k) {
      v.push_back(fresh_int(name + "." + std::to_string(k)));
      assume.push_back(Expr::intVal(min).ile(v.back()));
    }
    if (a && a->kind == rules::AttrExpr::Kind::Capture) attrs_[a->capture] = AttrB{false, {}, v, "", false};
    return v;
  }

  // ---- shape ops on symbolic tensors (shared by both sides) ----
  static SVal transpose(const SVal& x, const std::vector<int64_t>& p) {
    SVal o;
    o.dtype = x.dtype;
    for (int64_t a : p) o.dims.push_back(x.dims[a]);
    o.at = [x, p](const std::vector<Expr>& i) {
      std::vector<Expr> j(p.size());
      for (size_t k = 0; k < p.size(); ++k) j[p[k]] = i[k];
      return x.at(j);
    };
    return o;
  }
  /// broadcast_to from rank 0 or the same rank (the fragment's gate). Adds its well-formedness.
  SVal broadcast(const SVal& x, const std::vector<Expr>& dims, bool src) {
    SVal o;
    o.dtype = x.dtype;
    o.dims = dims;
    if (x.dims.size() > dims.size()) throw Infeasible{"broadcast rank"};
    const size_t off = dims.size() - x.dims.size();
    std::vector<Expr> ok;
    for (size_t k = 0; k < x.dims.size(); ++k) ok.push_back(x.dims[k] == Expr::intVal(1) || x.dims[k] == dims[k + off]);
    if (src) assume.push_back(Expr::all(ok));
    else tgt_ill = tgt_ill || !Expr::all(ok);
    o.at = [x, off](const std::vector<Expr>& i) {
      std::vector<Expr> j;
      for (size_t k = 0; k < x.dims.size(); ++k)
        j.push_back(Expr::ite(x.dims[k] == Expr::intVal(1), Expr::intVal(0), i[k + off]));
      return x.at(j);
    };
    return o;
  }
  /// The axis of a concat node at `rank`: a literal, a bound capture, or every axis (a choice).
  int64_t concat_axis(const Node& n, int rank) {
    const rules::AttrExpr* a = node_attr(n, "axis");
    int64_t axis = -1;
    if (a && a->kind == rules::AttrExpr::Kind::Ints && a->ints.size() == 1) axis = a->ints[0];
    else if (a && a->kind == rules::AttrExpr::Kind::Capture && attrs_.count(a->capture) && attrs_[a->capture].concrete &&
             attrs_[a->capture].c.size() == 1)
      axis = attrs_[a->capture].c[0];
    else if (a && a->kind != rules::AttrExpr::Kind::Capture) throw Outside{"concat axis given by a helper"};
    else if (in_source_) axis = rank == 0 ? -1 : ch_.choose(rank);
    else throw Outside{"target concat without a known axis"};
    if (a && a->kind == rules::AttrExpr::Kind::Capture && !attrs_.count(a->capture))
      attrs_[a->capture] = AttrB{true, {axis}, {}, "", false};
    if (rank == 0 || axis < 0 || axis >= rank) throw Infeasible{"concat axis"};
    return axis;
  }
  /// concat along `axis`: the output element comes from the operand whose range holds i_axis.
  SVal concat(const std::vector<SVal>& xs, int64_t axis, bool src) {
    SVal o;
    o.dtype = xs[0].dtype;
    o.dims = xs[0].dims;
    Expr total = Expr::intVal(0);
    std::vector<Expr> offsets;
    for (const SVal& x : xs) {
      if (x.dtype != o.dtype || x.dims.size() != o.dims.size()) throw Infeasible{"concat operand types"};
      for (size_t d = 0; d < o.dims.size(); ++d) {
        if (static_cast<int64_t>(d) == axis) continue;
        if (src) assume.push_back(x.dims[d] == o.dims[d]);
        else tgt_ill = tgt_ill || x.dims[d] != o.dims[d];
      }
      offsets.push_back(total);
      total = total.iadd(x.dims[axis]);
    }
    o.dims[axis] = total;
    o.at = [xs, offsets, axis](const std::vector<Expr>& i) {
      auto shifted = [&](size_t k) {
        std::vector<Expr> j = i;
        j[axis] = i[axis].isub(offsets[k]);
        return xs[k].at(j);
      };
      Elem r = shifted(xs.size() - 1);
      for (size_t k = xs.size() - 1; k-- > 0;) {
        const Expr c = i[axis].ilt(offsets[k + 1]);
        Elem e = shifted(k);
        r = Elem{Expr::ite(c, e.v, r.v), Expr::ite(c, e.ub, r.ub)};
      }
      return r;
    };
    return o;
  }
  static SVal slice(const SVal& x, const std::vector<Expr>& starts, const std::vector<Expr>& dims) {
    SVal o;
    o.dtype = x.dtype;
    o.dims = dims;
    o.at = [x, starts](const std::vector<Expr>& i) {
      std::vector<Expr> j;
      for (size_t k = 0; k < i.size(); ++k) j.push_back(starts[k].iadd(i[k]));
      return x.at(j);
    };
    return o;
  }
  static SVal tile(const SVal& x, const std::vector<Expr>& reps) {
    SVal o;
    o.dtype = x.dtype;
    for (size_t k = 0; k < reps.size(); ++k) o.dims.push_back(x.dims[k].imul(reps[k]));
    o.at = [x](const std::vector<Expr>& i) {
      std::vector<Expr> j;
      for (size_t k = 0; k < i.size(); ++k) j.push_back(i[k].imod(x.dims[k]));
      return x.at(j);
    };
    return o;
  }

  // ---- constraints ----
  const std::pair<DType, std::vector<Expr>>* type_arg(const rules::Constraint::Arg& a) {
    if (a.kind == rules::Constraint::Arg::Kind::Value) {
      auto it = vals_.find(a.name);
      if (it == vals_.end()) return nullptr;
      tmp_ = {it->second.dtype, it->second.dims};
      return &tmp_;
    }
    auto it = types_.find(a.name);
    return it == types_.end() ? nullptr : &it->second;
  }
  std::pair<DType, std::vector<Expr>> tmp_;

  void constraint(const rules::Constraint& c) {
    const std::string& p = c.pred;
    auto config = [&](bool holds) {
      if (holds == c.negated) throw Infeasible{"constraint " + p + " false"};
    };
    auto drop = [&](const std::string& why) {
      notes.push_back("`not " + p + "` not used (" + why + "): the statement proved is stronger");
    };
    auto dt = [&](size_t k) -> DType {
      const auto* t = type_arg(c.args[k]);
      if (!t) throw Outside{"constraint " + p + " on an unbound capture"};
      return t->first;
    };
    if (p == "is_float") return config(is_float(dt(0)));
    if (p == "is_int") return config(is_integer(dt(0)));
    if (p == "is_signed") return config(is_signed_int(dt(0)));
    if (p == "is_unsigned") return config(is_integer(dt(0)) && !is_signed_int(dt(0)));
    if (p == "is_bool") return config(dt(0) == DType::I1);
    if (p == "dtype_is") return config(dt(0) == parse_dtype(c.args[1].name));
    if (p == "widens_exactly") return config(rules::widens_exactly(dt(0), dt(1)));
    if (p == "same_dtype") return config(dt(0) == dt(1));
    if (p == "one_use") {
      notes.push_back("one_use not used: the statement proved is stronger (any number of uses)");
      return;
    }
    if (p == "rank_is") {
      const auto* t = type_arg(c.args[0]);
      if (!t) throw Outside{"rank_is on an unbound capture"};
      // `not rank_is` does not survive dropping axes (a rank it excludes may be reached): not assumed.
      if (c.negated) return drop("dropping axes may reach the rank it excludes");
      return config(static_cast<int64_t>(t->second.size()) == c.args[1].i);
    }
    if (p == "same_type" || p == "same_shape") {
      const auto* a = type_arg(c.args[0]);
      if (!a) throw Outside{p + " on an unbound capture"};
      const auto av = *a;
      const auto* b = type_arg(c.args[1]);
      if (!b) throw Outside{p + " on an unbound capture"};
      const bool dtype_ok = p == "same_shape" || av.first == b->first;
      const bool rank_ok = av.second.size() == b->second.size();
      // `not same_type` by its dtypes survives dropping axes; by its ranks or sizes it may not.
      if (c.negated && !dtype_ok) return;
      if (c.negated) return drop("ranks or sizes that differ may agree once axes are dropped");
      if (!dtype_ok || !rank_ok) return config(false);
      std::vector<Expr> eq;
      for (size_t k = 0; k < av.second.size(); ++k) eq.push_back(av.second[k] == b->second[k]);
      assume.push_back(Expr::all(eq));
      return;
    }
    if (p == "is_identity_perm" || p == "composes_to_identity") {
      auto perm = [&](size_t k) -> std::vector<int64_t> {
        auto it = attrs_.find(c.args[k].name);
        if (it == attrs_.end() || !it->second.concrete) throw Outside{p + " on an unbound permutation"};
        return it->second.c;
      };
      bool holds = false;
      if (p == "is_identity_perm") {
        holds = is_identity_perm(perm(0));
      } else {
        const auto a = perm(0), b = perm(1);
        holds = a.size() == b.size();
        for (size_t i = 0; holds && i < a.size(); ++i) holds = a[b[i]] == static_cast<int64_t>(i);
      }
      // Restricting permutations to fewer axes keeps "is the identity" but not "is not": a negated
      // one is not assumed (the statement proved is stronger).
      if (c.negated) return drop("a permutation that is not the identity may become one once axes are dropped");
      return config(holds);
    }
    if (p == "attr_is") {
      auto it = attrs_.find(c.args[0].name);
      if (it == attrs_.end() || !it->second.concrete) throw Outside{"attr_is on a per-axis attribute"};
      if (it->second.is_word) return config(it->second.word == c.args[1].name);
      // An integer (an axis number) is renumbered when axes are dropped: not an axis-uniform condition.
      throw Outside{"attr_is on an integer attribute (an axis number) is not preserved by dropping axes"};
    }
    if (p == "axes_all_size" || p == "some_axis_size") {
      const auto* t = type_arg(c.args[0]);
      auto ax = attrs_.find(c.args[1].name);
      if (!t || ax == attrs_.end() || !ax->second.concrete) throw Outside{p + " on unbound captures"};
      std::vector<Expr> each;
      for (int64_t k : ax->second.c) {
        if (k < 0 || k >= static_cast<int64_t>(t->second.size())) return config(false);
        each.push_back(t->second[k] == Expr::intVal(c.args[2].i));
      }
      const bool all = p == "axes_all_size";
      // all: a per-axis condition on every listed axis, kept by dropping axes; some (or not all): one
      // witness axis, counted in the rank bound (RuleFacts). A negated `all` is not assumed.
      if (all && c.negated) return drop("a listed axis of another size may be dropped");
      const Expr holds = all ? Expr::all(each) : Expr::any(each);
      assume.push_back(c.negated ? !holds : holds);
      return;
    }
    if (p == "exact_accum") {
      auto it = reduce_accum_.find(c.args[0].name);
      if (it == reduce_accum_.end()) throw Outside{"exact_accum of a value that is not a reduction"};
      return config(!it->second.has_accum || rules::widens_exactly(it->second.elem, it->second.acc));
    }
    if (p == "is_splat") return config(true);  // const($c) is encoded as a splat (the fragment's gate)
    if (p == "is_pow2") {
      auto it = lits_.find(c.args[0].name);
      if (it == lits_.end()) throw Outside{"is_pow2 on an unbound literal"};
      if (!is_float(it->second.dtype)) return config(false);
      const Expr v = it->second.at({}).v;
      const Expr holds = pow2_exact(v);
      assume.push_back(c.negated ? !holds : holds);
      return;
    }
    throw Outside{"constraint " + p + " has no all-shape encoding"};
  }

  /// c is a finite nonzero power of two whose reciprocal is exact (natives.cpp p_is_pow2).
  static Expr pow2_exact(const Expr& c) {
    const smt::FPFormat f = c.format();
    const Expr one = Expr::fpBits(((uint64_t{1} << (f.ebits - 1)) - 1) << (f.sbits - 1), f);
    const Expr r = one / c;
    return !c.isNaN() && !c.isInf() && !c.isZero() && pow2_bits(c) && !r.isInf() && r * c == one;
  }

  // ---- the target ----
  SVal tgt(const Node& n, const std::pair<DType, std::vector<Expr>>* ctx, bool is_root) {
    in_source_ = false;
    // An explicit type: `: $T` / `: type(%x)`; the root has the matched root's type.
    std::optional<std::pair<DType, std::vector<Expr>>> given;
    if (n.type.kind == rules::TypeRef::Kind::TypeCapture) {
      auto it = types_.find(n.type.name);
      if (it == types_.end()) throw Outside{"$" + n.type.name + " unbound"};
      given = it->second;
    } else if (n.type.kind == rules::TypeRef::Kind::OfCapture) {
      auto it = vals_.find(n.type.name);
      if (it == vals_.end()) throw Outside{"%" + n.type.name + " unbound"};
      given = std::make_pair(it->second.dtype, it->second.dims);
    } else if (is_root) {
      given = root_type_;
    }
    switch (n.kind) {
      case Node::Kind::Value: {
        auto it = vals_.find(n.name);
        if (it == vals_.end()) throw Outside{"%" + n.name + " unbound"};
        return it->second;
      }
      case Node::Kind::Splat: {
        auto t = given ? *given : ctx ? *ctx : throw Outside{"untyped splat"};
        return splat_val(n.number, t.first, t.second);
      }
      case Node::Kind::Const: {
        auto t = given ? *given : ctx ? *ctx : throw Outside{"untyped literal"};
        return lit_helper(n, t.first, t.second);
      }
      case Node::Kind::Op: break;
    }
    const OpCode op = n.op;
    if (op == OpCode::Cast || op == OpCode::Compare || op == OpCode::Select ||
        (has_trait(op, OpTrait::Elementwise) && !has_trait(op, OpTrait::Effect))) {
      std::vector<std::optional<SVal>> args(n.operands.size());
      std::optional<std::pair<DType, std::vector<Expr>>> typed;
      const size_t first_val = op == OpCode::Select ? 1 : 0;
      for (size_t k = 0; k < n.operands.size(); ++k) {
        const Node& o = *n.operands[k];
        if ((o.kind == Node::Kind::Splat || o.kind == Node::Kind::Const) && o.type.kind == rules::TypeRef::Kind::Inferred)
          continue;
        args[k] = tgt(o, nullptr, false);
        if (k >= first_val && !typed) typed = std::make_pair(args[k]->dtype, args[k]->dims);
      }
      if (!typed) {
        if (!given) throw Outside{"untyped elementwise result"};
        typed = given;
        if (op == OpCode::Compare || op == OpCode::Cast) throw Outside{"untyped operands"};
      }
      for (size_t k = 0; k < n.operands.size(); ++k) {
        if (args[k]) continue;
        auto c = *typed;
        if (op == OpCode::Select && k == 0) c.first = DType::I1;
        args[k] = tgt(*n.operands[k], &c, false);
      }
      const DType t = typed->first;
      DType to = t;
      std::string dir;
      if (op == OpCode::Cast) {
        if (!given) throw Outside{"cast without a type"};
        to = given->first;
      }
      // The instruction the builder makes (rewriter/rules/pattern.cpp) has the given type (the root's,
      // `: $T`, `: type(%x)`), else the type of its first typed operand; operands that do not fit it make
      // the verifier reject the built instruction and stop the driver (a rule bug), whatever the sizes:
      // the target is ill-formed, not infeasible. (Infeasible skipped the configuration, so the engine
      // proved `neg(cast(%x) : $T) => neg(%x)` and `neg(broadcast_to(%x) : $T) => neg(%x)`: the prover
      // fuzzer, docs/fuzzing.md.)
      const DType own = op == OpCode::Compare ? DType::I1 : op == OpCode::Cast ? to : t;
      bool ill = given && given->first != own;
      for (size_t k = 0; k < args.size(); ++k) {
        const DType want = op == OpCode::Select && k == 0 ? DType::I1 : t;
        if (op != OpCode::Cast && args[k]->dtype != want) ill = true;
        if (args[k]->dims.size() != typed->second.size() || (given && args[k]->dims.size() != given->second.size())) {
          ill = true;
          continue;
        }
        for (size_t a = 0; a < args[k]->dims.size(); ++a) {
          tgt_ill = tgt_ill || args[k]->dims[a] != typed->second[a];
          if (given) tgt_ill = tgt_ill || args[k]->dims[a] != given->second[a];
        }
      }
      if (ill) return ill_value(given ? *given : std::make_pair(own, typed->second));
      if (op == OpCode::Compare) {
        for (const auto& a : n.attrs)
          if (a.name == "dir") {
            if (a.kind == rules::AttrExpr::Kind::Word) dir = a.word;
            else if (a.kind == rules::AttrExpr::Kind::Capture && attrs_.count(a.capture) && attrs_[a.capture].is_word)
              dir = attrs_[a.capture].word;
          }
        if (dir.empty()) throw Outside{"compare without a known dir"};
      }
      SVal out;
      out.dtype = own;
      out.dims = given ? given->second : typed->second;
      if (!dtype_valid(op, t)) tgt_ill = Expr::boolean(true);  // the rule builds an invalid instruction
      const bool can_ub = (op == OpCode::Div && !is_float(t)) || fastmath_governs(op);  // nnan/ninf may hold
      if (can_ub && !tgt_full_)
        throw Outside{std::string("a target ") + std::string(mnemonic(op)) +
                      " that can be UB under slice/tile/broadcast_to: its unread elements would not be checked"};
      std::vector<SVal> av;
      for (auto& a : args) av.push_back(*a);
      const int tag = fresh_++;
      out.at = [this, av, op, t, to, dir, tag](const std::vector<Expr>& i) {
        std::vector<Elem> e;
        for (const SVal& a : av) e.push_back(a.at(i));
        return elementwise(op, e, t, to, dir, Side::Tgt, tag);
      };
      return out;
    }
    // The instruction the builder makes has the given type (the root's, `: $T`); one whose own shape
    // rule gives another type is rejected by the verifier whatever the sizes (ill-formed, not
    // infeasible: the engine proved `tile(%x) {repeats = $r} : $T => tile(%x) {repeats =
    // add_ints($r, $r)} : $T` by assuming the tile's size equal to the root's).
    auto fit = [&](SVal v) -> SVal {
      if (!given) return v;
      if (v.dtype != given->first || v.dims.size() != given->second.size()) return ill_value(*given);
      for (size_t k = 0; k < v.dims.size(); ++k) tgt_ill = tgt_ill || v.dims[k] != given->second[k];
      v.dims = given->second;
      return v;
    };
    switch (op) {
      case OpCode::Transpose: {
        SVal x = tgt(*n.operands[0], nullptr, false);
        std::vector<int64_t> p = concrete_attr(n, "perm");
        if (p.size() != x.dims.size()) {
          if (given) return ill_value(*given);  // built with its given type and a perm that does not fit
          throw Infeasible{"perm rank"};        // a derived type cannot be formed: the rule does not fire
        }
        return fit(transpose(x, p));
      }
      case OpCode::BroadcastTo: {
        NotFull nf(tgt_full_);
        SVal x = tgt(*n.operands[0], nullptr, false);
        if (!given) throw Outside{"broadcast_to without a type"};
        if (given->first != x.dtype) return ill_value(*given);
        return broadcast(x, given->second, false);
      }
      case OpCode::Reshape: {
        // Only adding or dropping size-1 axes: the operand's and the result's sizes are aligned (the
        // same size terms in order); every other axis must be 1, else the target is ill-formed here
        // (conservative: a reshape that is valid another way shows up as a counterexample that does
        // not replay, UNKNOWN).
        SVal x = tgt(*n.operands[0], nullptr, false);
        if (!given) throw Outside{"reshape without a type"};
        if (given->first != x.dtype) return ill_value(*given);
        const std::vector<Expr>& a = x.dims;
        const std::vector<Expr>& b = given->second;
        std::vector<int> from(a.size(), -1);  // operand axis -> output axis (-1: a unit axis, index 0)
        size_t ia = 0, ib = 0;
        while (ia < a.size() || ib < b.size()) {
          if (ia < a.size() && ib < b.size() && a[ia].same(b[ib])) {
            from[ia++] = static_cast<int>(ib++);
          } else if (ib < b.size() && b[ib].intNumeral() == 1) {
            ++ib;
          } else if (ia < a.size()) {
            tgt_ill = tgt_ill || a[ia++] != Expr::intVal(1);
          } else {
            tgt_ill = tgt_ill || b[ib++] != Expr::intVal(1);
          }
        }
        SVal o;
        o.dtype = x.dtype;
        o.dims = b;
        o.at = [x, from](const std::vector<Expr>& i) {
          std::vector<Expr> j;
          for (int k : from) j.push_back(k < 0 ? Expr::intVal(0) : i[k]);
          return x.at(j);
        };
        return o;
      }
      case OpCode::Slice: {
        NotFull nf(tgt_full_);
        SVal x = tgt(*n.operands[0], nullptr, false);
        if (!given) throw Outside{"slice without a type"};
        std::vector<Expr> starts = sym_attr_tgt(n, "starts");
        if (starts.size() != x.dims.size() || given->second.size() != x.dims.size() || given->first != x.dtype)
          return ill_value(*given);
        for (size_t k = 0; k < starts.size(); ++k)
          tgt_ill = tgt_ill || starts[k].ilt(Expr::intVal(0)) || x.dims[k].ilt(starts[k].iadd(given->second[k]));
        return slice(x, starts, given->second);
      }
      case OpCode::Tile: {
        NotFull nf(tgt_full_);
        SVal x = tgt(*n.operands[0], nullptr, false);
        std::vector<Expr> reps = sym_attr_tgt(n, "repeats");
        if (reps.size() != x.dims.size()) {
          if (given) return ill_value(*given);
          throw Infeasible{"tile rank"};
        }
        for (const Expr& e : reps) tgt_ill = tgt_ill || e.ilt(Expr::intVal(0));
        return fit(tile(x, reps));
      }
      case OpCode::Concat: {
        std::vector<SVal> xs;
        for (const auto& o : n.operands) xs.push_back(tgt(*o, nullptr, false));
        // A target concat is built with its given type: at rank 0, or with an axis out of range, the
        // verifier rejects it (ill-formed; the engine proved a rule whose result changed the axis to 1
        // at rank 1: the prover fuzzer).
        const int rank = static_cast<int>(xs[0].dims.size());
        int64_t axis = -1;
        try {
          axis = concat_axis(n, rank);
        } catch (const Infeasible&) {
          if (!given) throw;
          return ill_value(*given);
        }
        for (const SVal& x : xs)  // operands that do not fit each other: the built concat is ill-formed
          if (given && (x.dtype != xs[0].dtype || x.dims.size() != xs[0].dims.size())) return ill_value(*given);
        SVal c = concat(xs, axis, /*src=*/false);
        // fit(): the built concat has the given type, so its size is the given one and a different
        // sum is ill-formed (it returned the sum, and the root's "result type equals the root's"
        // assumption then excluded every size where they differ: the engine proved
        // concat(broadcast_to(%x) : $A, %x) => concat(broadcast_to(%x) : $A, broadcast_to(%x) : $A)).
        return fit(c);
      }
      default: throw Outside{std::string("target ") + std::string(mnemonic(op)) + ": outside the all-shape fragment"};
    }
  }

  /// A target instruction the verifier rejects whatever the sizes (a rule bug: the driver stops): the
  /// target is ill-formed, so every index is a counterexample; its value is never compared.
  SVal ill_value(const std::pair<DType, std::vector<Expr>>& t) {
    tgt_ill = Expr::boolean(true);
    SVal out;
    out.dtype = t.first;
    out.dims = t.second;
    const Expr v = Expr::var("ill!" + std::to_string(fresh_++), verify::sem::sort_of(out.dtype));
    out.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
    return out;
  }

  std::vector<int64_t> concrete_attr(const Node& n, const std::string& name) {
    for (const auto& a : n.attrs) {
      if (a.name != name) continue;
      if (a.kind == rules::AttrExpr::Kind::Ints) return a.ints;
      if (a.kind == rules::AttrExpr::Kind::Capture) {
        auto it = attrs_.find(a.capture);
        if (it == attrs_.end() || !it->second.concrete) throw Outside{"$" + a.capture + " is not a permutation"};
        return it->second.c;
      }
      if (a.kind == rules::AttrExpr::Kind::Call) {
        std::vector<std::vector<int64_t>> args;
        for (const std::string& s : a.args) {
          auto it = attrs_.find(s);
          if (it == attrs_.end() || !it->second.concrete) throw Outside{"helper on a per-axis attribute"};
          args.push_back(it->second.c);
        }
        if (a.capture == "compose_perm" && args.size() == 2) {
          std::vector<int64_t> r(args[1].size());
          for (size_t i = 0; i < r.size(); ++i) r[i] = args[0][args[1][i]];
          return r;
        }
        if (a.capture == "inverse_perm" && args.size() == 1) {
          std::vector<int64_t> r(args[0].size());
          for (size_t i = 0; i < r.size(); ++i) r[args[0][i]] = static_cast<int64_t>(i);
          return r;
        }
        throw Outside{"attribute helper " + a.capture + " on permutations"};
      }
    }
    throw Outside{std::string(mnemonic(n.op)) + " without " + name};
  }

  std::vector<Expr> sym_attr_tgt(const Node& n, const std::string& name) {
    for (const auto& a : n.attrs) {
      if (a.name != name) continue;
      if (a.kind == rules::AttrExpr::Kind::Capture) {
        auto it = attrs_.find(a.capture);
        if (it == attrs_.end() || it->second.concrete) throw Outside{"$" + a.capture + " unbound"};
        return it->second.sym;
      }
      if (a.kind == rules::AttrExpr::Kind::Call && a.args.size() == 2 &&
          (a.capture == "add_ints" || a.capture == "mul_ints")) {
        auto x = attrs_.find(a.args[0]), y = attrs_.find(a.args[1]);
        if (x == attrs_.end() || y == attrs_.end() || x->second.concrete || y->second.concrete ||
            x->second.sym.size() != y->second.sym.size())
          throw Outside{a.capture + " on unbound attributes"};
        std::vector<Expr> r;
        for (size_t k = 0; k < x->second.sym.size(); ++k)
          r.push_back(a.capture == "add_ints" ? x->second.sym[k].iadd(y->second.sym[k]) : x->second.sym[k].imul(y->second.sym[k]));
        return r;
      }
      throw Outside{"attribute " + name + " of the result has no all-shape encoding"};
    }
    throw Outside{std::string(mnemonic(n.op)) + " without " + name};
  }

  SVal lit_helper(const Node& n, DType d, const std::vector<Expr>& dims) {
    SVal s;
    s.dtype = d, s.dims = dims;
    Expr v;
    if (n.helper == "lowest") v = verify::sem::lowest(d);
    else if (n.helper == "highest") v = verify::sem::highest(d);
    else if (n.helper == "reciprocal" || n.helper == "reciprocal_rounded") {
      auto it = lits_.find(n.helper_args.empty() ? "" : n.helper_args[0]);
      if (it == lits_.end()) throw Outside{n.helper + " of an unbound literal"};
      if (!is_float(d) || it->second.dtype != d) throw Infeasible{"reciprocal dtype"};
      const Expr c = it->second.at({}).v;
      const smt::FPFormat f = c.format();
      const Expr one = Expr::fpBits(((uint64_t{1} << (f.ebits - 1)) - 1) << (f.sbits - 1), f);
      v = one / c;
      // natives.cpp l_reciprocal applies only where 1/c is finite and exact (a power of two with a
      // representable inverse, or an infinity): elsewhere the rule does not apply.
      if (n.helper == "reciprocal") assume.push_back(c.isInf() || pow2_exact(c));
    } else {
      throw Outside{"literal helper " + n.helper};
    }
    s.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
    return s;
  }
};

// ---------------------------------------------------------------------------------------------
// Concretization: the model's sizes, attributes and inputs as a program the REAL pattern runs on.

struct Concrete {
  std::unique_ptr<Program> program;
  std::vector<Tensor> inputs;
  std::string why_not;
};

int64_t eval_int(const smt::Model& m, const Expr& e) {
  auto v = m.eval(e).intNumeral();
  return v ? *v : 0;
}

Concrete concretize(const Enc& e, const smt::Model& m, FastMath fm, int64_t max_elements) {
  Concrete out;
  auto p = std::make_unique<Program>();
  const BodyId b = p->add_body("main", false);
  p->body(b).fastmath.bits = fm.bits;
  std::vector<ValueId> ids(e.cnodes.size(), kNone);
  int params = 0;
  for (size_t k = 0; k < e.cnodes.size(); ++k) {
    const CNode& c = e.cnodes[k];
    TensorType t;
    t.dtype = c.dtype;
    int64_t n = 1;
    for (const Expr& d : c.dims) {
      t.dims.push_back(eval_int(m, d));
      if (t.dims.back() < 0 || t.dims.back() > max_elements) {
        out.why_not = "the model's sizes are too large to replay";
        return out;
      }
      n *= t.dims.back();
      if (n > max_elements) {
        out.why_not = "the model's tensors are too large to replay";
        return out;
      }
    }
    switch (c.kind) {
      case CNode::Param: {
        ids[k] = p->add_param(b, p->intern_type(t), "x" + std::to_string(params++));
        Tensor x(t);
        const std::vector<int64_t> st = [&] {
          std::vector<int64_t> s(t.dims.size(), 1);
          for (int a = static_cast<int>(t.dims.size()) - 2; a >= 0; --a) s[a] = s[a + 1] * t.dims[a + 1];
          return s;
        }();
        for (int64_t flat = 0; flat < x.size(); ++flat) {
          Expr v;
          if (!c.uf) v = m.eval(Expr::var("x." + c.capture, verify::sem::sort_of(c.dtype)));
          else {
            std::vector<Expr> ix;
            int64_t rem = flat;
            for (size_t a = 0; a < t.dims.size(); ++a) {
              ix.push_back(Expr::intVal(rem / st[a]));
              rem %= st[a];
            }
            v = m.eval((*c.uf)(ix));
          }
          if (auto bits = v.numeral()) x.set_bits(flat, *bits);
        }
        out.inputs.push_back(std::move(x));
        break;
      }
      case CNode::Splat: {
        Tensor x(t);
        for (int64_t i = 0; i < x.size(); ++i) x.set_bits(i, c.bits);
        ids[k] = p->literal_value(p->intern_literal(x));
        break;
      }
      case CNode::Scalar: {
        Tensor x(t);
        auto bits = m.eval(c.scalar).numeral();
        for (int64_t i = 0; i < x.size(); ++i) x.set_bits(i, bits ? *bits : 0);
        ids[k] = p->literal_value(p->intern_literal(x));
        break;
      }
      case CNode::Op: {
        AttrSet attrs;
        for (const auto& [name, v] : c.ints) {
          AttrValue a;
          a.kind = AttrKind::Ints;
          for (const Expr& x : v) a.ints.push_back(eval_int(m, x));
          attrs.attrs.push_back(Attr{name, a});
        }
        for (const auto& [name, v] : c.cints) {
          AttrValue a;
          a.kind = name == "axis" ? AttrKind::Int : name == "keepdims" ? AttrKind::Bool
                   : name == "accum" ? AttrKind::DType : AttrKind::Ints;
          a.ints = v;
          attrs.attrs.push_back(Attr{name, a});
        }
        for (const auto& [name, w] : c.words) {
          AttrValue a;
          a.kind = AttrKind::Word;
          a.text = w;
          attrs.attrs.push_back(Attr{name, a});
        }
        std::vector<ValueId> ops;
        for (int o : c.operands) ops.push_back(ids[o]);
        const TypeId ty = p->intern_type(t);
        const InstId inst = p->create_inst(b, c.op, ops, p->intern_attrs(attrs), std::span<const TypeId>(&ty, 1));
        ids[k] = p->result(inst, 0);
        break;
      }
    }
  }
  std::vector<ValueId> results = {ids[e.root]};
  p->body(b).result_types.push_back(p->type_id(ids[e.root]));
  p->set_return(b, results);
  if (auto d = verify_program(*p); !d.empty()) {
    out.why_not = "the concretized instance is ill-typed: " + d[0].message;
    return out;
  }
  out.program = std::move(p);
  return out;
}

/// The ranks and the count of distinct reads of one configuration evaluated at rank 1.
int bound_of(const Enc& e) {
  int pairs = 0;
  for (const auto& [cap, set] : e.reads) {
    const int n = static_cast<int>(set.size());
    pairs += n * (n - 1) / 2;
  }
  // Value-level index conditions: none of the fragment's ops selects between values by an index
  // condition (pad, concat of several operands and dynamic_update_slice, which would, are not in it).
  const int conditions = 0;
  return std::max(1, conditions + pairs);
}

/// One step of a read's axis word: a permutation variable (or its inverse), or an opaque axis-moving op.
struct Tok {
  std::string name;
  bool inv = false;
  bool operator==(const Tok&) const = default;
};

/// The words (leaf to root) of every capture occurrence: which permutations, broadcasts, reductions and
/// reshapes move its axes on the way to the root.
/// Per-axis facts are words too: a captured type (`: $T`, `: type(%x)`) is read in its node's output
/// axes, a captured per-axis attribute (slice starts, tile repeats, reduction axes, ...) in its node's
/// axes; both then travel up to the root like a value. Keys: "%x" values and `type(%x)`, "$T" types,
/// "$s" attributes.
void collect_words(const Node& n, std::vector<std::vector<Tok>>& path, std::map<std::string, std::vector<std::vector<Tok>>>& out,
                   int& anon) {
  auto up = [&](const std::vector<Tok>& own) {
    std::vector<Tok> w = own;
    for (size_t k = path.size(); k-- > 0;) w.insert(w.end(), path[k].begin(), path[k].end());
    return w;
  };
  if (!n.type_capture.empty()) out["$" + n.type_capture].push_back(up({}));
  if (n.type.kind == rules::TypeRef::Kind::TypeCapture) out["$" + n.type.name].push_back(up({}));
  if (n.type.kind == rules::TypeRef::Kind::OfCapture) out["%" + n.type.name].push_back(up({}));
  if (n.kind == Node::Kind::Value) {
    out["%" + n.name].push_back(up({}));
    return;
  }
  if (n.kind != Node::Kind::Op) return;
  std::vector<Tok> here;
  switch (n.op) {
    case OpCode::Transpose: {
      bool found = false;
      for (const auto& a : n.attrs) {
        if (a.name != "perm") continue;
        found = true;
        if (a.kind == rules::AttrExpr::Kind::Capture) here.push_back({a.capture, false});
        else if (a.kind == rules::AttrExpr::Kind::Call && a.capture == "compose_perm" && a.args.size() == 2)
          here = {{a.args[0], false}, {a.args[1], false}};  // transposing by p, then by q
        else if (a.kind == rules::AttrExpr::Kind::Call && a.capture == "inverse_perm" && a.args.size() == 1)
          here = {{a.args[0], true}};
        else here.push_back({"#perm" + std::to_string(anon++), false});
      }
      if (!found) here.push_back({"#perm" + std::to_string(anon++), false});
      break;
    }
    case OpCode::BroadcastTo: here.push_back({"#broadcast", false}); break;
    case OpCode::Reshape: here.push_back({"#reshape", false}); break;
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: here.push_back({"#reduce", false}); break;
    default: break;
  }
  // Captured integer attributes other than a permutation: read in the node's operand axes, which the
  // node's own axis move (if any) then carries to its output. Helper calls read their arguments there.
  for (const auto& a : n.attrs) {
    const AttrSpec* spec = find_attr_spec(n.op, a.name);
    if (!spec || spec->role == AttrRole::Permutation || spec->role == AttrRole::Other || spec->role == AttrRole::Count) continue;
    if (a.kind == rules::AttrExpr::Kind::Capture) out["$" + a.capture].push_back(up(here));
    if (a.kind == rules::AttrExpr::Kind::Call)
      for (const std::string& x : a.args) out["$" + x].push_back(up(here));
  }
  path.push_back(here);
  for (const auto& o : n.operands) collect_words(*o, path, out, anon);
  path.pop_back();
}

/// "" when every capture is read through one permutation word on both sides (after the identities the
/// constraints state and free reduction), so its axes map to the same output axes at EVERY rank; else
/// why not. Checking the maps on evaluated ranks alone would miss words equal only in small symmetric
/// groups (p·p = 1 holds for every permutation of two axes, not of three).
std::string perm_words_premise(const rules::Rule& r, const RuleFacts& f) {
  std::map<std::string, std::vector<std::vector<Tok>>> words;
  std::vector<std::vector<Tok>> path;
  int anon = 0;
  collect_words(*r.source, path, words, anon);
  collect_words(*r.result, path, words, anon);
  // Identities from positive constraints: p = 1; q = p^-1 (the larger name is rewritten).
  std::map<std::string, Tok> subst;
  for (const rules::Constraint& c : r.where) {
    if (c.negated) continue;
    if (c.pred == "is_identity_perm" && c.args.size() == 1) subst[c.args[0].name] = Tok{"#id", false};
    if (c.pred == "composes_to_identity" && c.args.size() == 2) {
      const std::string a = std::min(c.args[0].name, c.args[1].name), b = std::max(c.args[0].name, c.args[1].name);
      if (a != b && !subst.count(b)) subst[b] = Tok{a, true};
    }
  }
  auto reduce = [&](const std::vector<Tok>& w) {
    std::vector<Tok> out;
    for (Tok t : w) {
      for (int guard = 0; guard < 8; ++guard) {  // follow substitutions (acyclic: larger -> smaller names)
        auto it = subst.find(t.name);
        if (it == subst.end()) break;
        t = Tok{it->second.name, it->second.inv != t.inv};
      }
      if (t.name == "#id") continue;
      if (!out.empty() && out.back().name == t.name && out.back().inv != t.inv && t.name[0] != '#') out.pop_back();
      else out.push_back(t);
    }
    return out;
  };
  auto show = [](const std::vector<Tok>& w) {
    std::string s;
    for (const Tok& t : w) s += (s.empty() ? "" : ".") + t.name + (t.inv ? "^-1" : "");
    return s.empty() ? std::string("1") : s;
  };
  for (const auto& [cap, ws] : words) {
    if (cap[0] == '%' && f.scalar_caps.count(cap.substr(1))) continue;  // a rank-0 capture has no axes to move
    const std::vector<Tok> first = reduce(ws[0]);
    for (size_t k = 1; k < ws.size(); ++k)
      if (reduce(ws[k]) != first)
        return cap + " is read through the permutation words " + show(first) + " and " + show(reduce(ws[k])) +
               ", which differ as words: its axes may move differently at some rank (bounded only)";
  }
  return "";
}

}  // namespace

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::Proved: return "PROVED FOR ALL SHAPES";
    case Verdict::BoundedOnly: return "BOUNDED ONLY";
    case Verdict::Refuted: return "REFUTED";
    case Verdict::Unknown: return "UNKNOWN";
  }
  return "?";
}

std::string Result::scope() const {
  std::string d;
  for (const std::string& x : dtypes) d += (d.empty() ? "" : ",") + x;
  std::string s = "every rank (ranks 0.." + std::to_string(rank_bound) + " checked, rank bound " +
                  std::to_string(rank_bound) + "), every size incl. 0, " + std::to_string(configs) +
                  " configurations, dtypes " + (d.empty() ? "-" : d);
  s += "; fast-math: the rule's assumptions plus any of nnan, ninf, nsz (free in the query); functions with "
       "reassoc the rule does not assume are not covered";
  for (const std::string& n : notes) s += "; " + n;
  return s;
}

std::string outside_fragment(const rules::Rule& r) {
  const RuleFacts f = facts_of(r);
  if (auto w = check_node(*r.source, r, f, false); !w.empty()) return w;
  if (auto w = check_node(*r.result, r, f, true); !w.empty()) return w;
  static const std::set<std::string> known = {"is_float", "is_int", "is_signed", "is_unsigned", "is_bool",
                                              "dtype_is", "widens_exactly", "same_dtype", "one_use", "rank_is",
                                              "same_type", "same_shape", "is_identity_perm", "composes_to_identity",
                                              "attr_is", "is_splat", "is_pow2", "axes_all_size",
                                              "some_axis_size", "exact_accum"};
  for (const rules::Constraint& c : r.where)
    if (!known.count(c.pred))
      return "constraint " + c.pred + " is not a per-axis linear condition the encoding has (bounded only)";
  return "";
}

Result prove_all_shapes(const rules::Rule& r, const ReplayFn& replay, const CanaryFn& canary, const Options& o) {
  const auto start = clock::now();
  Result res;
  // The whole proof's budget, deterministic like each query's (smt::kRlimitPerMs): Z3 resource units
  // spent by its queries, with the wall clock only as a safety net (kWallFactor times the budget).
  uint64_t units = 0;
  auto over_budget = [&] {
    const double wall = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    return units > static_cast<uint64_t>(o.total_ms) * smt::kRlimitPerMs ||
           wall > static_cast<double>(o.total_ms) * smt::kWallFactor + smt::kWallSlackMs;
  };
  auto done = [&](Verdict v, std::string why) {
    res.verdict = v;
    res.why = std::move(why);
    res.ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    return res;
  };
  if (std::string w = outside_fragment(r); !w.empty()) return done(Verdict::BoundedOnly, w);
  const RuleFacts facts = facts_of(r);
  // reassoc: the target's other association orders of float add/mul trees are not encoded.
  if (r.assumes & rules::kReassoc) {
    bool chains = false;
    std::function<void(const Node&)> walk = [&](const Node& n) {
      if (n.kind == Node::Kind::Op && (n.op == OpCode::Add || n.op == OpCode::Mul)) chains = true;
      for (const auto& c : n.operands) walk(*c);
    };
    walk(*r.result);
    if (chains) return done(Verdict::BoundedOnly, "assumes reassoc and builds add/mul: the target's other association orders are not encoded");
  }
  bool has_transpose = false;
  // Distinguished axes: a concat's axis is never dropped by the argument (its conditions are on that
  // axis alone); a literal axis k pins axes 0..k.
  // (One per captured axis name, shared by the concats that use it; a concat without an axis in the
  // source has its own.)
  std::set<std::string> axis_caps;
  int unnamed_axes = 0, literal_pins = 0;
  std::function<void(const Node&)> scan = [&](const Node& n) {
    if (n.kind == Node::Kind::Op && n.op == OpCode::Transpose) has_transpose = true;
    if (n.kind == Node::Kind::Op && n.op == OpCode::Concat) {
      bool named = false;
      for (const auto& a : n.attrs) {
        if (a.name != "axis") continue;
        named = true;
        if (a.kind == rules::AttrExpr::Kind::Ints && a.ints.size() == 1)
          literal_pins = std::max(literal_pins, static_cast<int>(a.ints[0]) + 1);
        else if (a.kind == rules::AttrExpr::Kind::Capture) axis_caps.insert(a.capture);
        else ++unnamed_axes;
      }
      if (!named) ++unnamed_axes;
    }
    for (const auto& c : n.operands) scan(*c);
  };
  scan(*r.source);
  scan(*r.result);
  if (has_transpose)
    if (std::string w = perm_words_premise(r, facts); !w.empty()) return done(Verdict::BoundedOnly, "premise of the rank argument fails: " + w);
  int fixed_rank = -1;
  for (const auto& [cap, k] : facts.rank_of) fixed_rank = std::max(fixed_rank, k);

  try {
    std::optional<smt::Context> ctx;
    ctx.emplace();
    // 1. The rank bound: every configuration evaluated at rank 1.
    // (Counted at ranks 1 to 3, not 1 alone: a configuration infeasible at rank 1 still has reads.)
    int bound = 1, ill_witness = 0;
    for (int rk = 1; rk <= 3; ++rk) {
      Chooser ch;
      do {
        if (over_budget())
          return done(Verdict::Unknown, "the proof's budget of " + std::to_string(o.total_ms / 1000) +
                                            " s ran out while counting the rank bound");
        ch.start();
        Enc e(r, facts, rk, ch);
        try {
          e.run();
          bound = std::max(bound, bound_of(e));
          // An ill-formed target is "some axis is bad": its witness axis is one more condition, unless
          // the source's assumptions already exclude it (e.g. operands the source made equal).
          if (!ill_witness && !e.tgt_ill.isFalse()) {
            smt::Solver s(200);
            for (const Expr& a : e.assume) s.add(a);
            s.add(e.tgt_ill);
            if (s.check() != smt::Result::Unsat) ill_witness = 1;
            units += s.units();
          }
        } catch (const Infeasible&) {
        }
      } while (ch.next());
    }
    // A transpose's permutations are all the identity below rank 2: check rank 2 so the premise
    // check (every read in place) sees a real permutation; rank_is(%x, N) instances exist only at N.
    bound += ill_witness;
    if (has_transpose) bound = std::max(bound, 2);
    bound += static_cast<int>(axis_caps.size()) + unnamed_axes + literal_pins;
    // An existential size condition (some_axis_size) needs its witness axis kept: one more axis each.
    for (const rules::Constraint& c : r.where)
      if (c.pred == "some_axis_size" && !c.negated) ++bound;
    if (fixed_rank > bound) bound = fixed_rank;
    res.rank_bound = bound;
    if (bound > o.max_rank_bound)
      return done(Verdict::Unknown, "rank bound " + std::to_string(bound) + " exceeds the cap " +
                                        std::to_string(o.max_rank_bound));
    // 2. Every configuration at every rank 0..bound.
    std::set<std::string> notes;
    std::map<unsigned, bool> stage1;  // canonical stage-1/2 formula -> unsat
    std::vector<Expr> stage1_keep;     // keeps those terms (and their ids) alive
    // One configuration through the three stages. Unknown carries why.
    struct Decision {
      smt::Result r = smt::Result::Unknown;
      std::string why;
      std::unique_ptr<smt::Model> model;  // Sat: a model, small sizes first
    };
    auto cached = [&](const Expr& f) -> bool {
      const Expr c = f.canonical();
      if (auto hit = stage1.find(c.id()); hit != stage1.end()) return hit->second;
      smt::Solver s1(std::max(1u, o.timeout_ms / 2));
      s1.add(c);
      ++res.queries;
      const bool unsat = s1.check() == smt::Result::Unsat;
      units += s1.units();
      stage1.emplace(c.id(), unsat);
      stage1_keep.push_back(c);
      return unsat;
    };
    auto decide = [&](Enc& e, int rank) -> Decision {
      Decision d;
      const Expr bad = (e.in_bounds && !e.src_ub && (e.tgt_ub || e.differ)) || e.tgt_ill;
      // Stage 1: the goal alone, uninterpreted applications (input reads, transcendentals) replaced by
      // fresh constants, no assumption: more models, so unsat here is unsat there; often pure
      // bit-vector/float logic, which Z3 decides fast. Cached by canonical form across configurations.
      const Expr abs = bad.abstractFunctions();
      if (cached(abs.abstractArithmetic()) || cached(abs)) {
        d.r = smt::Result::Unsat;
        return d;
      }
      // Stage 2: integers fixed by equations (a size forced to 1, a start to 0) substituted away, the
      // applications abstracted again and integer-only conjuncts dropped: still more models.
      std::vector<Expr> all = e.assume;
      all.push_back(bad);
      std::vector<Expr> kept;
      for (const Expr& c : smt::eliminate(all).abstractFunctions().conjuncts())
        if (c.mentionsBitsOrFloats()) kept.push_back(c);
      if (cached(Expr::all(kept))) {
        d.r = smt::Result::Unsat;
        return d;
      }
      // Stage 3: the query itself.
      smt::Solver s(o.timeout_ms);
      for (const Expr& a : e.assume) s.add(a);
      s.add(bad);
      ++res.queries;
      if (std::getenv("PTIR_ALLSHAPE_SMT2")) std::fprintf(stderr, "; rank %d\n%s\n", rank, s.to_smt2().c_str());
      d.r = s.check();
      units += s.units();
      if (d.r == smt::Result::Unknown) d.why = "Z3 said unknown (" + s.reason_unknown() + ")";
      if (d.r != smt::Result::Sat) return d;
      // Satisfiable: a model with small sizes if there is one.
      for (const auto& [what, dims] : e.dim_log)
        for (const Expr& x : dims) s.add(x.ile(Expr::intVal(3)));
      const smt::Result small = s.check();
      units += s.units();
      if (small == smt::Result::Sat) {
        d.model = s.model();
        return d;
      }
      smt::Solver s2(o.timeout_ms);
      for (const Expr& a : e.assume) s2.add(a);
      s2.add(bad);
      const smt::Result any = s2.check();
      units += s2.units();
      if (any == smt::Result::Sat) d.model = s2.model();
      return d;
    };
    for (int rank = 0; rank <= bound; ++rank) {
      Chooser ch;
      do {
        if (over_budget())
          return done(Verdict::Unknown, "the proof's budget of " + std::to_string(o.total_ms / 1000) + " s ran out after " +
                                            std::to_string(res.configs) + " configurations (at rank " + std::to_string(rank) + ")");
        ch.start();
        std::optional<Enc> e;
        e.emplace(r, facts, rank, ch);
        e->max_reduced_ = bound;
        try {
          e->run();
        } catch (const Infeasible&) {
          continue;
        }
        if (!e->premise.empty()) return done(Verdict::BoundedOnly, "premise of the rank argument fails: " + e->premise[0]);
        for (const std::string& n : e->notes) notes.insert(n);
        ++res.configs;
        const DType root_dtype = e->root_dtype;
        Decision d;
        try {
          d = decide(*e, rank);
        } catch (const smt::ContextAbandoned&) {
          d.why = "Z3 overran its budget";
        }
        if (d.r == smt::Result::Unknown) {
          // Retry with each combination of the free flags fixed: simpler formulas. A context that Z3
          // overran is dead: a new one (and an empty cache) first.
          if (smt::current_context()->dead()) {
            e.reset();
            stage1.clear();
            stage1_keep.clear();
            ctx.reset();
            ctx.emplace();
          }
          bool all_unsat = true;
          for (int combo = 0; combo < 8 && all_unsat; ++combo) {
            ch.start();
            e.reset();
            e.emplace(r, facts, rank, ch, combo);
            e->max_reduced_ = bound;
            try {
              e->run();
            } catch (const Infeasible&) {
              continue;
            }
            try {
              d = decide(*e, rank);
            } catch (const smt::ContextAbandoned&) {
              return done(Verdict::Unknown, "Z3 overran its budget at rank " + std::to_string(rank) + ", root dtype " +
                                                dtype_name(root_dtype));
            }
            all_unsat = d.r == smt::Result::Unsat;
          }
          if (all_unsat) d.r = smt::Result::Unsat;
        }
        if (d.r == smt::Result::Unsat) {
          res.dtypes.insert(dtype_name(root_dtype));
          continue;
        }
        if (d.r == smt::Result::Unknown)
          return done(Verdict::Unknown, d.why + " at rank " + std::to_string(rank) + ", root dtype " + dtype_name(root_dtype));
        if (!d.model) return done(Verdict::Unknown, "a satisfiable query whose model could not be read back");
        Concrete c = concretize(*e, *d.model, FastMath{e->flags_in(*d.model)}, 4096);
        std::string where = "rank " + std::to_string(rank) + ", root dtype " + dtype_name(root_dtype);
        if (!c.program) return done(Verdict::Unknown, "symbolic counterexample at " + where + " not replayed: " + c.why_not);
        Replay rp = replay(*c.program);
        if (rp.refuted)
          return done(Verdict::Refuted, "counterexample at " + where + ", concretized and replayed with the real pattern:\n" +
                                            print_program(*c.program) + rp.detail);
        return done(Verdict::Unknown, "symbolic counterexample at " + where + " did not replay (" +
                                          (rp.fired ? "the concrete instance is not refuted" : "the pattern did not fire") +
                                          "):\n" + print_program(*c.program));
      } while (ch.next());
    }
    res.notes.assign(notes.begin(), notes.end());
    if (res.configs == 0) return done(Verdict::Unknown, "no configuration is an instance of the rule");
  } catch (const Outside& w) {
    return done(Verdict::BoundedOnly, w.why);
  } catch (const smt::ContextAbandoned&) {
    return done(Verdict::Unknown, "Z3 overran its budget");
  } catch (const std::exception& x) {
    return done(Verdict::Unknown, std::string("error: ") + x.what());
  }
  // 3. The canary: concrete instances at rank bound + 1, real pattern, interpreter. With transposes,
  // also at every rank up to 5: a permutation word that the argument wrongly took as equal can differ
  // only where the symmetric group is big enough (p^6 = 1 for every permutation of at most 3 axes, not
  // of 4), so the canary looks where such words part.
  std::mt19937_64 rng(o.seed);
  const int top = has_transpose ? std::max(res.rank_bound + 1, 5) : res.rank_bound + 1;
  for (int rank = res.rank_bound + 1; rank <= top; ++rank) {
    int fired = 0;
    for (int k = 0; k < o.canary_instances * 8 && fired < o.canary_instances; ++k) {
      prove::InstanceOptions io{.rank = rank, .max_dim = 2, .fastmath = r.assumes};
      prove::Instance inst = prove::make_instance(*r.source, io, rng);
      if (!inst.program) continue;
      Replay c = canary(*inst.program, o.canary_runs);
      if (c.refuted)
        return done(Verdict::Unknown, "INTERNAL DISAGREEMENT: the canary at rank " + std::to_string(rank) +
                                          " refutes what the symbolic proof proved:\n" + print_program(*inst.program) + c.detail);
      fired += c.fired;
    }
    res.canaries += fired;
  }
  return done(Verdict::Proved, "");
}

}  // namespace ptir::allshape
