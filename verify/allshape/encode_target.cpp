// The encoder's target side (verify/allshape/encoder.h): the result DAG evaluated at the symbolic
// index, built with the types the builder gives (rewriter/rules/pattern.cpp), every instruction the
// verifier would reject as an ill-formed target (a counterexample), and the helpers' values.
#include <optional>

#include "rewriter/rules/natives.h"
#include "verify/allshape/encoder.h"
#include "verify/encode/ops.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {

using rules::Node;
using smt::Expr;
using smt::Sort;

namespace {
/// A helper call with as many arguments as the rewriter's table gives its native (the loader checks it).
bool arity_ok(const rules::AttrExpr& a) {
  const rules::AttrHelperSpec* h = rules::find_attr_helper(a.capture);
  return h && h->params.size() == a.args.size();
}
}  // namespace

SVal Enc::tgt(const Node& n, const TypeV* ctx, bool is_root) {
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
  } else if (n.type.kind == rules::TypeRef::Kind::Dims) {  // dims(X, [i < rank(X): F]) (int_exprs.cpp)
    DType d;
    if (n.type.value_sigil) {
      auto it = vals_.find(n.type.name);
      if (it == vals_.end()) throw Outside{"%" + n.type.name + " unbound"};
      d = it->second.dtype;
    } else {
      auto it = types_.find(n.type.name);
      if (it == types_.end()) throw Outside{"$" + n.type.name + " unbound"};
      d = it->second.first;
    }
    given = std::make_pair(d, int_list(n.type.var, *n.type.count, *n.type.elem, /*dims=*/true));
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
    // The rule builds an instruction the verifier rejects (sqrt of an integer): ill-formed, a
    // counterexample. Returned at once: its elements cannot be encoded (they threw Infeasible, which
    // dropped the configuration and lost the ill-formedness).
    if (!dtype_valid(op, t)) return ill_value(given ? *given : std::make_pair(own, typed->second));
    const bool can_ub = (op == OpCode::Div && !is_float(t)) || fastmath_governs(op);  // nnan/ninf may hold
    if (can_ub && !tgt_full_)
      throw Outside{std::string("a target ") + std::string(mnemonic(op)) +
                    " that can be UB under slice/tile/broadcast_to or a dot_general: its unread elements would not be checked"};
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
      // To a lower rank (or another dtype) the built instruction is rejected: ill-formed, not
      // infeasible (Enc::broadcast's Infeasible dropped the configuration).
      if (given->first != x.dtype || x.dims.size() > given->second.size()) return ill_value(*given);
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
    case OpCode::DotGeneral: return tgt_dot(n, given);
    default: throw Outside{std::string("target ") + std::string(mnemonic(op)) + ": outside the all-shape fragment"};
  }
}

SVal Enc::ill_value(const TypeV& t) {
  tgt_ill = Expr::boolean(true);
  SVal out;
  out.dtype = t.first;
  out.dims = t.second;
  const Expr v = Expr::var("ill!" + std::to_string(fresh_++), verify::sem::sort_of(out.dtype));
  out.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
  return out;
}

std::vector<int64_t> Enc::concrete_attr(const Node& n, const std::string& name) {
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
      // The helper's all-shape spec (native_specs.cpp), by its id.
      std::string why;
      const AttrHelperSpec* h = attr_helper_spec_named(a.capture, &why);
      if (!h) throw Outside{why};
      if (h->outside || !h->on_lists || !arity_ok(a))
        throw Outside{"attribute helper " + a.capture + " on permutations"};
      std::optional<std::vector<int64_t>> r = h->on_lists(args);
      if (!r) throw Infeasible{a.capture + " does not apply"};  // the rule leaves the program unchanged
      return *r;
    }
  }
  throw Outside{std::string(mnemonic(n.op)) + " without " + name};
}

std::vector<Expr> Enc::sym_attr_tgt(const Node& n, const std::string& name) {
  for (const auto& a : n.attrs) {
    if (a.name != name) continue;
    if (a.kind == rules::AttrExpr::Kind::Capture) {
      auto it = attrs_.find(a.capture);
      if (it == attrs_.end() || it->second.concrete) throw Outside{"$" + a.capture + " unbound"};
      return it->second.sym;
    }
    if (a.kind == rules::AttrExpr::Kind::List) return int_list(a.var, *a.count, *a.elem, /*dims=*/false);
    if (a.kind == rules::AttrExpr::Kind::WithAt) return int_with_at(a);
    if (a.kind == rules::AttrExpr::Kind::Call) {
      // The helper's all-shape spec (native_specs.cpp), by its id: per-axis integers in, per-axis out.
      std::string why;
      const AttrHelperSpec* h = attr_helper_spec_named(a.capture, &why);
      if (!h) throw Outside{why};
      if (!h->outside && h->on_per_axis && arity_ok(a)) {
        std::vector<std::vector<Expr>> args;
        for (const std::string& x : a.args) {
          auto it = attrs_.find(x);
          if (it == attrs_.end() || it->second.concrete || (!args.empty() && it->second.sym.size() != args[0].size()))
            throw Outside{a.capture + " on unbound attributes"};
          args.push_back(it->second.sym);
        }
        return h->on_per_axis(args);
      }
    }
    throw Outside{"attribute " + name + " of the result has no all-shape encoding"};
  }
  throw Outside{std::string(mnemonic(n.op)) + " without " + name};
}

/// A literal helper's element is its all-shape spec (native_specs.cpp), by its id; where the helper
/// does not apply, the rule does not fire (an assumption).
SVal Enc::lit_helper(const Node& n, DType d, const std::vector<Expr>& dims) {
  SVal s;
  s.dtype = d, s.dims = dims;
  std::string why;
  const LitHelperSpec* h = lit_helper_spec_named(n.helper, &why);
  if (!h) throw Outside{why};
  if (h->outside || !h->meaning) throw Outside{"literal helper " + n.helper};
  const LitMeaning m = h->meaning(*this, n.helper_args, d);
  const Expr v = m.value;
  if (m.applies) assume.push_back(*m.applies);
  s.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
  return s;
}

}  // namespace ptir::allshape::detail
