// The fragment of the all-shape prover, decided on a rule's text (docs/verification.md "The fragment"):
// which ops, constraints and helpers the encoding has. A rule outside it is BOUNDED ONLY with the
// reason, never forced; the premises that depend on instances are checked again per configuration.
#include <functional>
#include <set>
#include <string>

#include "verify/allshape/allshape.h"
#include "verify/allshape/internal.h"
#include "verify/allshape/native_specs.h"

namespace ptir::allshape {
namespace detail {

using rules::Node;

bool dtype_valid(OpCode op, DType t) {
  switch (op) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div:
    case OpCode::Maximum: case OpCode::Minimum: case OpCode::ReduceSum: case OpCode::ReduceMax:
    case OpCode::ReduceMin: case OpCode::DotGeneral:
      return t != DType::I1;
    case OpCode::Exp: case OpCode::Log: case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt:
    case OpCode::Reciprocal: case OpCode::Sqrt:
      return is_float(t);
    default: return true;
  }
}

RuleFacts facts_of(const rules::Rule& r) {
  RuleFacts f;
  for (const rules::Constraint& c : r.where) {
    if (c.negated || c.cond) continue;
    // What the predicate states, from its all-shape spec (native_specs.cpp).
    const PredicateSpec* s = predicate_spec_named(c.pred);
    const PredFact fact = s ? s->fact : PredFact::None;
    if (fact == PredFact::Rank && c.args.size() == 2) {
      if (c.args[1].i == 0) f.scalar_caps.insert(c.args[0].name);
      else f.rank_of[c.args[0].name] = static_cast<int>(c.args[1].i);
    }
    if (fact == PredFact::SplatLiteral && !c.args.empty()) f.splat_lits.insert(c.args[0].name);
    if (fact == PredFact::SameShape && c.args.size() == 2) {
      f.same_shape.insert({c.args[0].name, c.args[1].name});
      f.same_shape.insert({c.args[1].name, c.args[0].name});
    }
    if ((c.pred == "same_type" || c.pred == "same_dtype") && c.args.size() == 2) {
      auto key = [](const rules::Constraint::Arg& a) -> std::string {
        if (a.kind == rules::Constraint::Arg::Kind::Value) return "%" + a.name;
        if (a.kind == rules::Constraint::Arg::Kind::Capture) return "$" + a.name;
        return "";
      };
      const std::string a = key(c.args[0]), b = key(c.args[1]);
      if (!a.empty() && !b.empty()) f.same_dtype.insert({a, b}), f.same_dtype.insert({b, a});
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
        std::string why;
        const LitHelperSpec* h = lit_helper_spec_named(n.helper, &why);
        if (!h) return why;
        if (h->outside) return h->outside;
        if (!h->meaning) return "literal helper " + n.helper + " has no all-shape encoding";
        return "";
      }
      return "";
    case Node::Kind::Op: break;
  }
  const OpCode op = n.op;
  if (result && n.type.kind == rules::TypeRef::Kind::Dims)
    if (auto w = int_exprs_gate(r); !w.empty()) return w;
  std::string why;
  auto sub = [&]() -> std::string {
    for (const auto& o : n.operands)
      if (auto w = check_node(*o, r, f, result); !w.empty()) return w;
    return "";
  };
  for (const auto& a : n.attrs) {
    if (a.kind == rules::AttrExpr::Kind::List || a.kind == rules::AttrExpr::Kind::WithAt) {
      // Computed per-axis lists: only starts/repeats, read per axis (int_exprs.cpp).
      if (!((op == OpCode::Slice && a.name == "starts") || (op == OpCode::Tile && a.name == "repeats")))
        return std::string(mnemonic(op)) + " " + a.name + " computed from integer expressions: bounded only";
      if (auto w = int_exprs_gate(r); !w.empty()) return w;
    }
    if (a.kind == rules::AttrExpr::Kind::Ints && op != OpCode::Concat)
      return std::string(mnemonic(op)) + " with a literal integer attribute fixes a rank: bounded only";
    if (a.kind == rules::AttrExpr::Kind::Call) {  // an attribute helper needs its all-shape spec
      std::string why;
      const AttrHelperSpec* h = attr_helper_spec_named(a.capture, &why);
      if (!h) return why;
      if (h->outside) return h->outside;
    }
  }
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
    case OpCode::DotGeneral: return sub();  // at most one per side: outside_fragment
    default:
      return std::string(mnemonic(op)) + ": outside the all-shape fragment (bounded only)";
  }
}

}  // namespace detail

using namespace detail;

namespace {

bool is_reduction(OpCode op) { return op == OpCode::ReduceSum || op == OpCode::ReduceMax || op == OpCode::ReduceMin; }

/// Whether an integer expression or condition reads an attribute capture of `names` (at($a, i), or
/// `$a` as a number).
bool reads_capture(const rules::IntExpr* e, const std::set<std::string>& names);
bool reads_capture(const rules::IntCond* c, const std::set<std::string>& names) {
  if (!c) return false;
  if (reads_capture(c->lhs.get(), names) || reads_capture(c->rhs.get(), names)) return true;
  for (const auto& k : c->kids)
    if (reads_capture(k.get(), names)) return true;
  return false;
}
bool reads_capture(const rules::IntExpr* e, const std::set<std::string>& names) {
  if (!e) return false;
  using K = rules::IntExpr::Kind;
  if ((e->kind == K::At || e->kind == K::Cap) && names.count(e->name)) return true;
  for (const auto& k : e->kids)
    if (reads_capture(k.get(), names)) return true;
  return reads_capture(e->cond.get(), names);
}

/// A source reduction's captured `axes = $a` is enumerated as an increasing set (encode_source.cpp),
/// while the matcher binds `$a` to the list as written, in any order (docs/semantics.md: a reduction's
/// axes may be listed in any order). That is exact where only the set is read: a reduction's own axes
/// (source or result), `axes_all_size`, `some_axis_size`. Any other use reads the order (a dot_general
/// list, a perm, a computed list, `at($a, i)`, a helper), and the configurations with another order
/// were never encoded. A red team's rule with `$a` also a dot's batch list passed the symbolic proof
/// (its dot pairs other axes when `$a` is `[1, 0]`); only its bounded PARTIAL kept it from PROVED FOR
/// ALL SHAPES. "" when no such use.
std::string order_read_reduction_axes(const rules::Rule& r) {
  std::set<std::string> axes;
  std::function<void(const Node&)> collect = [&](const Node& n) {
    if (n.kind == Node::Kind::Op && is_reduction(n.op))
      for (const rules::AttrExpr& a : n.attrs)
        if (a.name == "axes" && a.kind == rules::AttrExpr::Kind::Capture) axes.insert(a.capture);
    for (const auto& o : n.operands) collect(*o);
  };
  collect(*r.source);
  if (axes.empty()) return "";
  std::string why;
  const auto use = [&](const std::string& cap, const std::string& where) {
    if (why.empty() && axes.count(cap))
      why = "$" + cap + " is a reduction's axes, which the engine enumerates as an increasing set, and is also read in " +
            "order (" + where + "): bounded only";
  };
  std::function<void(const Node&)> walk = [&](const Node& n) {
    if (n.kind == Node::Kind::Op)
      for (const rules::AttrExpr& a : n.attrs) {
        const bool set_use = is_reduction(n.op) && a.name == "axes" && a.kind == rules::AttrExpr::Kind::Capture;
        const std::string where = std::string(mnemonic(n.op)) + " " + a.name;
        switch (a.kind) {
          case rules::AttrExpr::Kind::Capture:
            if (!set_use) use(a.capture, where);
            break;
          case rules::AttrExpr::Kind::Call:
            for (const std::string& c : a.args) use(c, where);
            break;
          case rules::AttrExpr::Kind::WithAt:
            use(a.capture, where);
            [[fallthrough]];
          case rules::AttrExpr::Kind::List:
            for (const std::string& c : axes)
              if (why.empty() && (reads_capture(a.count.get(), {c}) || reads_capture(a.elem.get(), {c}))) use(c, where);
            break;
          default: break;
        }
      }
    if (n.type.kind == rules::TypeRef::Kind::Dims)
      for (const std::string& c : axes)
        if (why.empty() && (reads_capture(n.type.count.get(), {c}) || reads_capture(n.type.elem.get(), {c})))
          use(c, "a result type's dims");
    for (const auto& o : n.operands) walk(*o);
  };
  walk(*r.source);
  walk(*r.result);
  for (const rules::Constraint& c : r.where) {
    if (c.cond) {
      for (const std::string& a : axes)
        if (why.empty() && reads_capture(c.cond.get(), {a})) use(a, "the constraint " + c.text);
      continue;
    }
    if (c.pred == "axes_all_size" || c.pred == "some_axis_size") continue;
    for (const rules::Constraint::Arg& a : c.args)
      if (a.kind == rules::Constraint::Arg::Kind::Capture) use(a.name, "the constraint " + c.pred);
  }
  return why;
}

}  // namespace

std::string outside_fragment(const rules::Rule& r) {
  const RuleFacts f = facts_of(r);
  if (auto w = order_read_reduction_axes(r); !w.empty()) return w;
  if (auto w = check_node(*r.source, r, f, false); !w.empty()) return w;
  if (auto w = check_node(*r.result, r, f, true); !w.empty()) return w;
  // One fold per side: the source's contraction coordinates are axes of the rank argument, and a
  // result fold is matched against that one fold (encode_dot.cpp).
  std::function<int(const Node&)> dots = [&](const Node& n) {
    int c = n.kind == Node::Kind::Op && n.op == OpCode::DotGeneral;
    for (const auto& o : n.operands) c += dots(*o);
    return c;
  };
  if (dots(*r.source) > 1 || dots(*r.result) > 1) return "more than one dot_general on a side: bounded only";
  // Every constraint's predicate needs an all-shape spec (native_specs.cpp) that is not `outside`.
  for (const rules::Constraint& c : r.where) {
    // Integer constraints: in their per-axis form only (int_exprs.cpp), read at each configuration.
    if (c.cond) {
      if (auto w = int_exprs_gate(r); !w.empty()) return w;
      continue;
    }
    std::string why;
    const PredicateSpec* s = predicate_spec_named(c.pred, &why);
    if (!s) return why;
    if (s->outside) return "constraint " + c.pred + " " + s->outside;
  }
  return "";
}

}  // namespace ptir::allshape
