// The encoder's source side (verify/allshape/encoder.h): the source DAG evaluated at the symbolic index
// (captures as uninterpreted functions, per-axis sizes and attributes, every choice a configuration
// makes), its well-formedness as assumptions, and the rule's constraints.
#include <optional>

#include "rewriter/rules/natives.h"
#include "verify/allshape/encoder.h"
#include "verify/encode/ops.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {

using rules::Node;
using smt::Expr;
using smt::Sort;

SVal Enc::src(const Node& n, int rank, std::optional<TypeV> ctx) {
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
      if (lits_.count(n.name) || tensor_lits_.count(n.name)) {
        // A second const($c) matches only a literal equal to the first (same type and bits,
        // rewriter/rules/pattern.cpp); the equality of their symbolic types is not encoded.
        throw Outside{"const($" + n.name + ") twice in the source (equal literals are not encoded)"};
      }
      if (!f_.splat_lits.count(n.name) && !ctx->second.empty()) {
        // A literal that may be any tensor of its type (no is_splat/is_pow2): its elements are as free as
        // an input's, so it is encoded as one, an uninterpreted function of its index read like a capture
        // (the rank argument sees its reads), and concretized as a literal. Helpers and predicates that
        // need its one value (`lit`) find none: outside the fragment there.
        const int rank = static_cast<int>(ctx->second.size());
        auto uf = std::make_shared<smt::Func>("c." + n.name, std::vector<Sort>(rank, Sort::integer()),
                                              verify::sem::sort_of(ctx->first));
        const std::string cap = "$" + n.name;
        out.dtype = ctx->first;
        out.dims = ctx->second;
        out.at = [this, uf, cap](const std::vector<Expr>& i) {
          read(cap, i);
          return Elem{(*uf)(i), Expr::boolean(false)};
        };
        CNode cn;
        cn.kind = CNode::Literal, cn.dtype = out.dtype, cn.dims = out.dims, cn.capture = n.name, cn.uf = uf;
        out.cnode = add_cnode(std::move(cn));
        tensor_lits_.insert(n.name);
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

SVal Enc::src_value(const Node& n, int rank, const std::optional<TypeV>& ctx) {
  auto it = vals_.find(n.name);
  if (it != vals_.end()) {
    if (static_cast<int>(it->second.dims.size()) != rank) throw Infeasible{"%" + n.name + " used at two ranks"};
    return it->second;
  }
  if (f_.scalar_caps.count(n.name) && rank != 0) throw Infeasible{"rank_is 0"};
  if (auto rk = f_.rank_of.find(n.name); rk != f_.rank_of.end() && rk->second != rank) throw Infeasible{"rank_is"};
  SVal s;
  s.dtype = ctx ? ctx->first : choose_dtype_of("%" + n.name);
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

int Enc::add_cnode(CNode c) {
  cnodes.push_back(std::move(c));
  return static_cast<int>(cnodes.size()) - 1;
}

SVal Enc::src_op(const Node& n, int rank, const std::optional<TypeV>& ctx) {
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
      // A cast to a captured type already bound takes it (any other dtype fails bind_type: not an
      // instance); else a dtype a positive same_type/same_dtype ties it to, else any.
      auto bound = n.type_capture.empty() ? types_.end() : types_.find(n.type_capture);
      to = bound != types_.end() ? bound->second.first
                                 : n.type_capture.empty() ? choose_dtype() : choose_dtype_of("$" + n.type_capture);
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
        // A transpose keeps the dtype: a captured operand takes its context's (a dot_general's rhs), so
        // the other dtypes are not enumerated only to be infeasible.
        const bool value = n.operands[0]->kind == Node::Kind::Value;
        SVal x = src(*n.operands[0], rank, value && ctx ? std::optional<TypeV>(TypeV{ctx->first, {}}) : std::nullopt);
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
        // The axis first: a literal operand after the first takes the first operand's dtype and its
        // sizes off the axis only; its size on the axis is its own (typing it like the first operand
        // made every splat operand as long as the first on the axis, and the engine proved two wrong
        // rules whose splat operand is the root's type: corpus/unsound/allshape_fuzz_open.rules).
        const int64_t axis = concat_axis(n, rank);
        std::vector<SVal> xs;
        for (const auto& o : n.operands) {
          std::optional<std::pair<DType, std::vector<Expr>>> ctx;
          if (!xs.empty()) {
            ctx.emplace(xs[0].dtype, xs[0].dims);
            ctx->second[axis] = fresh_dims(1, "concat")[0];
          }
          xs.push_back(src(*o, rank, ctx));
        }
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
        SVal x = src(*n.operands[0], xr, std::nullopt);
        const DType dt = x.dtype;
        if (!dtype_valid(op, dt)) throw Infeasible{"dtype"};
        // 0: no accum attribute; `has_attr(%r, accum)` or its negation decides whether there is one.
        const std::optional<bool> want = attr_required(n.as_name, {"accum"});
        const int acc_choice = want == false ? 0 : choose_accum(dt, /*absent=*/!want);
        const DType acc = acc_choice == 0 ? verify::sem::default_accum(dt) : static_cast<DType>(acc_choice - 1);
        if (!n.as_name.empty()) {
          reduce_accum_[n.as_name] = {dt, acc_choice != 0, acc};
          present_[n.as_name] = {{"axes", true}, {"accum", acc_choice != 0}};
        }
        const verify::sem::Folder f{op == OpCode::ReduceSum ? verify::sem::Fold::Sum
                                    : op == OpCode::ReduceMax ? verify::sem::Fold::Max
                                                              : verify::sem::Fold::Min,
                                    acc};
        std::vector<bool> red(xr, false);
        for (int64_t d : axes) red[d] = true;
        if (keep && !axes.empty()) ++keep_reductions;
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
      case OpCode::DotGeneral: out = src_dot(n, rank, cn); break;
      default: throw Outside{std::string(mnemonic(op)) + ": outside the all-shape fragment"};
    }
    cn.dtype = out.dtype;
  }
  cn.dims = out.dims;
  out.cnode = add_cnode(std::move(cn));
  return out;
}

std::vector<Expr> Enc::sym_attr(const Node& n, const std::string& name, int rank, int64_t min) {
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

const TypeV* Enc::type_arg(const rules::Constraint::Arg& a) {
  if (a.kind == rules::Constraint::Arg::Kind::Value) {
    auto it = vals_.find(a.name);
    if (it == vals_.end()) return nullptr;
    tmp_ = {it->second.dtype, it->second.dims};
    return &tmp_;
  }
  auto it = types_.find(a.name);
  return it == types_.end() ? nullptr : &it->second;
}

const AttrB* Enc::attr(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}
std::optional<std::pair<DType, Expr>> Enc::lit(const std::string& name) const {
  auto it = lits_.find(name);
  if (it == lits_.end()) return std::nullopt;
  return std::make_pair(it->second.dtype, it->second.at({}).v);
}
std::optional<bool> Enc::has_attr(const std::string& value, const std::string& attr) const {
  auto it = present_.find(value);
  if (it == present_.end()) return std::nullopt;
  auto a = it->second.find(attr);
  if (a == it->second.end()) return std::nullopt;
  return a->second;
}
const ReduceAccum* Enc::accum(const std::string& value) const {
  auto it = reduce_accum_.find(value);
  return it == reduce_accum_.end() ? nullptr : &it->second;
}

/// A constraint's meaning is its predicate's all-shape spec (native_specs.cpp), by the predicate's id.
void Enc::constraint(const rules::Constraint& c) {
  if (c.cond) {  // an integer constraint (int_exprs.cpp): never negated (the parser refuses `not` there)
    IntVars vars;
    assume.push_back(int_holds(*c.cond, vars));
    return;
  }
  std::string why;
  const PredicateSpec* spec = predicate_spec_named(c.pred, &why);
  if (!spec) throw Outside{why};
  if (spec->outside || !spec->meaning)
    throw Outside{"constraint " + c.pred + " " + (spec->outside ? spec->outside : "has no all-shape encoding")};
  const PredMeaning m = spec->meaning(*this, c);
  switch (m.kind) {
    case PredMeaning::Kind::Known:  // decided by this configuration's choices
      if (m.known == c.negated) throw Infeasible{"constraint " + c.pred + " false"};
      return;
    case PredMeaning::Kind::Formula:
      assume.push_back(c.negated ? !m.formula : m.formula);
      // Every query of this configuration asserts the formula: divisions by the power of two it states
      // may be built as products from here on (element terms are built after the constraints, Enc::run).
      if (!c.negated && m.pow2_divisor) pow2_divisors_.push_back(std::make_unique<smt::Pow2Divisor>(*m.pow2_divisor));
      return;
    case PredMeaning::Kind::Dropped: notes.push_back(m.note); return;
  }
}

}  // namespace ptir::allshape::detail
