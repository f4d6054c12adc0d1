// Integer expressions in the all-shape fragment (docs/verification.md "Integer expressions"): the gate
// that admits a rule's integer constraints, computed attribute lists and computed result dims only in
// their per-axis form (so the rank argument still holds), and their symbolic meaning at one
// configuration, defined exactly as rewriter/rules/natives.cpp eval_int / int_holds compute them
// (an overflowing or out-of-range term is undefined; a comparison with an undefined side is false).
#include <limits>
#include <set>
#include <string>

#include "verify/allshape/encoder.h"
#include "verify/allshape/internal.h"

namespace ptir::allshape::detail {

using rules::IntCond;
using rules::IntExpr;
using rules::Node;
using smt::Expr;

namespace {

void walk_nodes(const Node& n, const std::function<void(const Node&)>& f) {
  f(n);
  for (const auto& o : n.operands) walk_nodes(*o, f);
}

/// Where an integer expression stands: a number, an axis index (`dim(X, _)`, `at($s, _)`, with_at's
/// position), or a side of an axis comparison (`i == $a`, `i != j`).
enum class Ctx : uint8_t { Value, Index, AxisCmp };

struct Gate {
  std::set<std::string> axis_caps;     ///< captured concat axes: distinguished axes
  std::set<std::string> per_axis_caps;  ///< captured per-axis integer attributes (slice starts, tile repeats)
  std::vector<std::string> vars;        ///< bound variables in scope
  std::string why;

  bool fail(std::string w) {
    if (why.empty()) why = std::move(w);
    return false;
  }
  bool bound(const std::string& v) const {
    for (const std::string& x : vars)
      if (x == v) return true;
    return false;
  }

  bool expr(const IntExpr& e, Ctx ctx) {
    using K = IntExpr::Kind;
    switch (e.kind) {
      case K::Lit:
        if (ctx != Ctx::Value) return fail("a literal axis (" + std::to_string(e.lit) + ") in an integer expression pins an axis");
        return true;
      case K::Var:
        if (ctx == Ctx::Value) return fail("the axis variable " + e.name + " used as a number");
        if (!bound(e.name)) return fail("the variable " + e.name + " is not bound");
        return true;
      case K::Cap:
        if (!axis_caps.count(e.name)) return fail("$" + e.name + " used as an integer (only a captured concat axis is, as an axis)");
        if (ctx == Ctx::Value) return fail("the axis number $" + e.name + " used as a number");
        return true;
      case K::Rank: return fail("rank(" + std::string(e.value_sigil ? "%" : "$") + e.name + ") used as a number");
      case K::Dim:
        if (ctx != Ctx::Value) return fail("an axis computed from a size");
        return expr(*e.kids[0], Ctx::Index);
      case K::At:
        if (ctx != Ctx::Value) return fail("an axis computed from an attribute");
        if (!per_axis_caps.count(e.name))
          return fail("at($" + e.name + ", _): only per-axis attributes (slice starts, tile repeats) are read per axis");
        return expr(*e.kids[0], Ctx::Index);
      case K::Add: case K::Sub: case K::Mul: case K::Min: case K::Max:
        if (ctx != Ctx::Value) return fail("arithmetic on an axis");
        return expr(*e.kids[0], Ctx::Value) && expr(*e.kids[1], Ctx::Value);
      case K::If:
        if (ctx != Ctx::Value) return fail("an axis chosen by if(...)");
        return cond(*e.cond, /*in_if=*/true) && expr(*e.kids[0], Ctx::Value) && expr(*e.kids[1], Ctx::Value);
    }
    return fail("an integer expression the encoding does not know");
  }

  static bool axis_like(const IntExpr& e) { return e.kind == IntExpr::Kind::Var || e.kind == IntExpr::Kind::Cap; }

  bool cond(const IntCond& c, bool in_if) {
    switch (c.kind) {
      case IntCond::Kind::Cmp:
        if (axis_like(*c.lhs) || axis_like(*c.rhs)) {
          if (c.cmp != IntCond::Cmp::Eq && c.cmp != IntCond::Cmp::Ne) return fail("axes compared by order (only == and != keep their meaning when axes are dropped)");
          return expr(*c.lhs, Ctx::AxisCmp) && expr(*c.rhs, Ctx::AxisCmp);
        }
        return expr(*c.lhs, Ctx::Value) && expr(*c.rhs, Ctx::Value);
      case IntCond::Kind::And:
      case IntCond::Kind::Or:
        for (const auto& k : c.kids)
          if (!cond(*k, in_if)) return false;
        return true;
      case IntCond::Kind::All: {
        // Positive `all` is a conjunction over axes: dropping axes keeps it true. In an if's condition
        // its truth would decide a value, and dropping axes can turn it from false to true.
        if (in_if) return fail("`all` in the condition of if(...)");
        if (!count(*c.rhs)) return false;
        vars.push_back(c.var);
        const bool ok = cond(*c.kids[0], in_if);
        vars.pop_back();
        return ok;
      }
    }
    return fail("an integer condition the encoding does not know");
  }

  bool count(const IntExpr& e) {
    if (e.kind != IntExpr::Kind::Rank) return fail("a bound other than rank(X) (a fixed number of axes)");
    return true;
  }
  bool list(const std::string& var, const IntExpr& cnt, const IntExpr& elem) {
    if (!count(cnt)) return false;
    vars.push_back(var);
    const bool ok = expr(elem, Ctx::Value);
    vars.pop_back();
    return ok;
  }
};

bool moves_axes(OpCode op) {
  return op == OpCode::Transpose || op == OpCode::BroadcastTo || op == OpCode::Reshape || op == OpCode::ReduceSum ||
         op == OpCode::ReduceMax || op == OpCode::ReduceMin || op == OpCode::DotGeneral;
}

}  // namespace

bool has_int_exprs(const rules::Rule& r) {
  for (const rules::Constraint& c : r.where)
    if (c.cond) return true;
  bool any = false;
  walk_nodes(*r.result, [&](const Node& n) {
    if (n.kind == Node::Kind::Op && n.type.kind == rules::TypeRef::Kind::Dims) any = true;
    for (const auto& a : n.attrs)
      if (a.kind == rules::AttrExpr::Kind::List || a.kind == rules::AttrExpr::Kind::WithAt) any = true;
  });
  return any;
}

std::string int_exprs_gate(const rules::Rule& r) {
  if (!has_int_exprs(r)) return "";
  Gate g;
  std::string mover;
  auto scan = [&](const Node& n) {
    if (n.kind != Node::Kind::Op) return;
    if (moves_axes(n.op) && mover.empty()) mover = std::string(mnemonic(n.op));
    for (const auto& a : n.attrs) {
      if (a.kind != rules::AttrExpr::Kind::Capture) continue;
      if (n.op == OpCode::Concat && a.name == "axis") g.axis_caps.insert(a.capture);
      if ((n.op == OpCode::Slice && a.name == "starts") || (n.op == OpCode::Tile && a.name == "repeats"))
        g.per_axis_caps.insert(a.capture);
    }
  };
  walk_nodes(*r.source, scan);
  walk_nodes(*r.result, scan);
  if (!mover.empty())
    return "integer expressions in a rule with " + mover + " (axes that move): bounded only";
  // A capture in two roles is a load error; the gate does not rely on it.
  for (const std::string& a : g.axis_caps)
    if (g.per_axis_caps.count(a)) return "$" + a + " is both a concat axis and a per-axis attribute";
  auto bad = [&](const std::string& where) { return "integer expression " + where + ": " + g.why + " (bounded only)"; };
  for (const rules::Constraint& c : r.where)
    if (c.cond && !g.cond(*c.cond, false)) return bad("`" + c.text + "`");
  std::string why;
  walk_nodes(*r.result, [&](const Node& n) {
    if (!why.empty() || n.kind != Node::Kind::Op) return;
    if (n.type.kind == rules::TypeRef::Kind::Dims && !g.list(n.type.var, *n.type.count, *n.type.elem))
      why = bad("in the dims of a " + std::string(mnemonic(n.op)));
    for (const auto& a : n.attrs) {
      if (!why.empty()) return;
      if (a.kind == rules::AttrExpr::Kind::List && !g.list(a.var, *a.count, *a.elem))
        why = bad("in " + std::string(mnemonic(n.op)) + " " + a.name);
      if (a.kind == rules::AttrExpr::Kind::WithAt) {
        if (!g.per_axis_caps.count(a.capture)) why = "with_at($" + a.capture + ", ...) of a list that is not per-axis (bounded only)";
        else if (!g.expr(*a.count, Ctx::Index) || !g.expr(*a.elem, Ctx::Value))
          why = bad("in " + std::string(mnemonic(n.op)) + " " + a.name);
      }
    }
  });
  return why;
}

// ---------------------------------------------------------------------------------------------
// The meaning at one configuration.

namespace {
// Built per call: terms belong to the current Z3 context (one per proof), never cached in a static.
Expr i64_min() { return Expr::intVal(std::numeric_limits<int64_t>::min()); }
Expr i64_max() { return Expr::intVal(std::numeric_limits<int64_t>::max()); }
}  // namespace

int64_t Enc::int_count(const IntExpr& e, IntVars& vars) {
  if (e.kind != IntExpr::Kind::Rank) throw Outside{"an integer bound other than rank(X)"};
  if (e.value_sigil) {
    auto it = vals_.find(e.name);
    if (it == vals_.end()) throw Outside{"%" + e.name + " unbound"};
    return static_cast<int64_t>(it->second.dims.size());
  }
  auto it = types_.find(e.name);
  if (it == types_.end()) throw Outside{"$" + e.name + " unbound"};
  (void)vars;
  return static_cast<int64_t>(it->second.second.size());
}

std::optional<int64_t> Enc::int_index(const IntExpr& e, IntVars& vars) {
  switch (e.kind) {
    case IntExpr::Kind::Var:
      for (auto it = vars.rbegin(); it != vars.rend(); ++it)
        if (it->first == e.name) return it->second;
      throw Outside{"the variable " + e.name + " is not bound"};
    case IntExpr::Kind::Cap: {
      auto it = attrs_.find(e.name);
      if (it == attrs_.end() || !it->second.concrete || it->second.c.size() != 1)
        throw Outside{"$" + e.name + " is not a known axis"};
      return it->second.c[0];
    }
    default: throw Outside{"an axis that is not a variable or a captured concat axis"};
  }
}

Enc::IntV Enc::int_value(const IntExpr& e, IntVars& vars) {
  using K = IntExpr::Kind;
  const Expr yes = Expr::boolean(true), no = Expr::boolean(false);
  switch (e.kind) {
    case K::Lit: return {Expr::intVal(e.lit), yes};
    case K::Dim: {
      const std::vector<Expr>* dims = nullptr;
      if (e.value_sigil) {
        auto it = vals_.find(e.name);
        if (it == vals_.end()) throw Outside{"%" + e.name + " unbound"};
        dims = &it->second.dims;
      } else {
        auto it = types_.find(e.name);
        if (it == types_.end()) throw Outside{"$" + e.name + " unbound"};
        dims = &it->second.second;
      }
      const std::optional<int64_t> k = int_index(*e.kids[0], vars);
      if (!k || *k < 0 || *k >= static_cast<int64_t>(dims->size())) return {Expr::intVal(0), no};
      return {(*dims)[*k], yes};
    }
    case K::At: {
      auto it = attrs_.find(e.name);
      if (it == attrs_.end() || it->second.concrete) throw Outside{"at($" + e.name + ", _) of an attribute that is not per-axis"};
      const std::optional<int64_t> k = int_index(*e.kids[0], vars);
      if (!k || *k < 0 || *k >= static_cast<int64_t>(it->second.sym.size())) return {Expr::intVal(0), no};
      return {it->second.sym[*k], yes};
    }
    case K::If: {
      const Expr c = int_holds(*e.cond, vars);
      const IntV a = int_value(*e.kids[0], vars), b = int_value(*e.kids[1], vars);
      return {Expr::ite(c, a.v, b.v), Expr::ite(c, a.def, b.def)};
    }
    case K::Add: case K::Sub: case K::Mul: case K::Min: case K::Max: {
      const IntV a = int_value(*e.kids[0], vars), b = int_value(*e.kids[1], vars);
      const Expr def = a.def && b.def;
      switch (e.kind) {
        case K::Min: return {Expr::ite(a.v.ilt(b.v), a.v, b.v), def};
        case K::Max: return {Expr::ite(a.v.ilt(b.v), b.v, a.v), def};
        default: break;
      }
      // + - * are undefined where the int64 result overflows (natives.cpp: __builtin_*_overflow).
      const Expr v = e.kind == K::Add ? a.v.iadd(b.v) : e.kind == K::Sub ? a.v.isub(b.v) : a.v.imul(b.v);
      return {v, def && i64_min().ile(v) && v.ile(i64_max())};
    }
    default: throw Outside{"an axis or a rank used as a number"};
  }
}

Expr Enc::int_holds(const IntCond& c, IntVars& vars) {
  switch (c.kind) {
    case IntCond::Kind::Cmp: {
      const bool axes = c.lhs->kind == IntExpr::Kind::Var || c.lhs->kind == IntExpr::Kind::Cap ||
                        c.rhs->kind == IntExpr::Kind::Var || c.rhs->kind == IntExpr::Kind::Cap;
      if (axes) {  // axis identity (the gate admits == and != only)
        const std::optional<int64_t> a = int_index(*c.lhs, vars), b = int_index(*c.rhs, vars);
        if (c.cmp == IntCond::Cmp::Eq) return Expr::boolean(*a == *b);
        if (c.cmp == IntCond::Cmp::Ne) return Expr::boolean(*a != *b);
        throw Outside{"axes compared by order"};
      }
      const IntV a = int_value(*c.lhs, vars), b = int_value(*c.rhs, vars);
      Expr r = Expr::boolean(false);
      switch (c.cmp) {
        case IntCond::Cmp::Eq: r = a.v == b.v; break;
        case IntCond::Cmp::Ne: r = a.v != b.v; break;
        case IntCond::Cmp::Lt: r = a.v.ilt(b.v); break;
        case IntCond::Cmp::Le: r = a.v.ile(b.v); break;
        case IntCond::Cmp::Gt: r = b.v.ilt(a.v); break;
        case IntCond::Cmp::Ge: r = b.v.ile(a.v); break;
      }
      return a.def && b.def && r;  // undefined on either side: false
    }
    case IntCond::Kind::And: {
      std::vector<Expr> xs;
      for (const auto& k : c.kids) xs.push_back(int_holds(*k, vars));
      return Expr::all(xs);
    }
    case IntCond::Kind::Or: {
      std::vector<Expr> xs;
      for (const auto& k : c.kids) xs.push_back(int_holds(*k, vars));
      return Expr::any(xs);
    }
    case IntCond::Kind::All: {
      const int64_t n = int_count(*c.rhs, vars);
      if (n > rules::kMaxIntBound) return Expr::boolean(false);
      std::vector<Expr> xs;
      vars.push_back({c.var, 0});
      for (int64_t i = 0; i < n; ++i) {
        vars.back().second = i;
        xs.push_back(int_holds(*c.kids[0], vars));
      }
      vars.pop_back();
      return Expr::all(xs);
    }
  }
  throw Outside{"an integer condition the encoding does not know"};
}

std::vector<Expr> Enc::int_list(const std::string& var, const IntExpr& count, const IntExpr& elem, bool dims) {
  IntVars vars;
  const int64_t n = int_count(count, vars);
  // pattern.cpp: a list above kMaxIntBound entries, or dims above 64 axes, forms no attribute/type.
  if (n > (dims ? 64 : rules::kMaxIntBound)) throw Infeasible{"a computed list too long"};
  std::vector<Expr> out;
  vars.push_back({var, 0});
  for (int64_t i = 0; i < n; ++i) {
    vars.back().second = i;
    const IntV v = int_value(elem, vars);
    // An undefined entry (or a negative dim) forms no attribute (type): the rule does not apply.
    assume.push_back(dims ? v.def && Expr::intVal(0).ile(v.v) : v.def);
    out.push_back(v.v);
  }
  return out;
}

std::vector<Expr> Enc::int_with_at(const rules::AttrExpr& a) {
  auto it = attrs_.find(a.capture);
  if (it == attrs_.end() || it->second.concrete) throw Outside{"with_at($" + a.capture + ", ...) of an attribute that is not per-axis"};
  IntVars vars;
  const std::optional<int64_t> k = int_index(*a.count, vars);
  std::vector<Expr> out = it->second.sym;
  if (!k || *k < 0 || *k >= static_cast<int64_t>(out.size())) throw Infeasible{"with_at position out of range"};
  const IntV v = int_value(*a.elem, vars);
  assume.push_back(v.def);  // undefined: no attribute, the rule does not apply
  out[*k] = v.v;
  return out;
}

}  // namespace ptir::allshape::detail
