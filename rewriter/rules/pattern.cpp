// RulePattern: runs a compiled rule in the greedy driver. Matching walks the source tree once per
// operand order of its commutative ops (2^k orders, k small); the rewrite first plans every result type,
// attribute and literal, and only then edits the IR, so a rule that does not apply changes nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "ir/verifier.h"
#include "rewriter/rules/compiled.h"
#include "rewriter/rules/rules.h"

namespace ptir::rules {
namespace {

struct Matcher {
  const Program& p;
  Captures& c;
  uint64_t bound[4] = {0, 0, 0, 0};  ///< bit per slot, per CapKind
  unsigned swaps = 0;

  bool is_bound(CapKind k, int s) const { return (bound[static_cast<int>(k)] >> s) & 1; }
  void set_bound(CapKind k, int s) { bound[static_cast<int>(k)] |= uint64_t{1} << s; }

  bool bind_value(int slot, ValueId v) {
    if (is_bound(CapKind::Value, slot)) return c.value[slot] == v;
    c.value[slot] = v;
    set_bound(CapKind::Value, slot);
    return true;
  }
  bool bind_type(int slot, TypeId t) {
    if (slot < 0) return true;
    if (is_bound(CapKind::Type, slot)) return c.type[slot] == t;
    c.type[slot] = t;
    set_bound(CapKind::Type, slot);
    return true;
  }

  static bool splat_matches(const Tensor* t, const MNode& m) {
    if (!t || t->size() == 0) return false;
    const DType d = t->dtype();
    // The first element decides most literals; only then scan for splat-ness.
    if (std::isnan(m.number.value)) return is_float(d) && float_is_nan(d, t->bits(0)) && t->is_splat();
    const std::optional<uint64_t>& bits = m.splat_bits[static_cast<int>(d)];
    return bits && *bits == t->bits(0) && t->is_splat();
  }

  bool attr_matches(const MNode::MAttr& a, const AttrValue* v) {
    if (!v) return false;
    switch (a.kind) {
      case AttrExpr::Kind::Capture:
        if (is_bound(CapKind::Attr, a.slot)) return *c.attr[a.slot] == *v;
        c.attr[a.slot] = v;
        set_bound(CapKind::Attr, a.slot);
        return true;
      case AttrExpr::Kind::Ints: return v->ints == a.ints;
      case AttrExpr::Kind::Word:
        if (v->kind == AttrKind::DType) return !v->ints.empty() && dtype_name(static_cast<DType>(v->ints[0])) == a.word;
        if (v->kind == AttrKind::Bool) return !v->ints.empty() && (v->ints[0] != 0) == (a.word == "true");
        return v->text == a.word;
      case AttrExpr::Kind::Call:
      case AttrExpr::Kind::List:
      case AttrExpr::Kind::WithAt: return false;  // result-only forms (the checker rejects them in a source)
    }
    return false;
  }

  /// A node's `: $T` and `as %r` at value v: the first tests of every node.
  bool bind_node(const MNode& m, ValueId v) {
    return bind_type(m.type_slot, p.type_id(v)) && (m.as_slot < 0 || bind_value(m.as_slot, v));
  }
  /// An op node's attribute tests against `attrs`.
  bool attrs_match(const MNode& m, const AttrSet& attrs) {
    for (const MNode::MAttr& a : m.attrs)
      if (!attr_matches(a, attrs.find(a.name))) return false;
    return true;
  }
  /// A leaf (%x, splat(N), const($c)) at value v, after bind_node; `lit` is v's constant (or null).
  bool leaf_matches(const MNode& m, ValueId v, const Tensor* lit) {
    switch (m.kind) {
      case Node::Kind::Value: return bind_value(m.slot, v);
      case Node::Kind::Splat: return splat_matches(lit, m);
      case Node::Kind::Const:
        if (!lit) return false;
        // A second const($c) must be an equal literal (same type, same bits).
        if (is_bound(CapKind::Lit, m.slot)) return c.lit[m.slot]->type == lit->type && *c.lit[m.slot] == *lit;
        c.lit[m.slot] = lit;
        set_bound(CapKind::Lit, m.slot);
        return true;
      case Node::Kind::Op: return false;
    }
    return false;
  }

  bool match(const MNode& m, ValueId v) {
    if (!bind_node(m, v)) return false;
    if (m.kind != Node::Kind::Op) return leaf_matches(m, v, m.kind == Node::Kind::Value ? nullptr : p.constant_of(v));
    const InstId i = p.def_inst(v);
    if (i == kNone || p.op(i) != m.op || p.num_results(i) != 1) return false;
    if (p.num_operands(i) != m.operands.size()) return false;
    if (!attrs_match(m, p.attrs_of(i))) return false;
    const bool swap = m.commutative && ((swaps >> m.swap_bit) & 1);
    for (uint32_t k = 0; k < m.operands.size(); ++k) {
      const uint32_t from = swap ? 1 - k : k;
      if (!match(m.operands[k], p.operand(i, from))) return false;
    }
    return true;
  }
};

bool constraints_hold(const CompiledRule& r, const Program& p, const Captures& c) {
  std::vector<int64_t> vars;
  for (const MConstraint& k : r.where) {
    if (k.cond) {
      if (!int_holds(p, c, *k.cond, vars)) return false;
      continue;
    }
    if (k.pred->fn(p, c, k.args) == k.negated) return false;
  }
  return true;
}

/// Whether operand value `v` can match source node `m` judging by its defining op alone (a cheap
/// first look: op nodes need an instruction of their op, splat/const nodes a constant).
bool operand_may_match(const MNode& m, const Program& p, ValueId v) {
  switch (m.kind) {
    case Node::Kind::Value: return true;
    case Node::Kind::Splat:
    case Node::Kind::Const: return p.constant_of(v) != nullptr;
    case Node::Kind::Op: {
      const InstId d = p.def_inst(v);
      return d != kNone && p.op(d) == m.op;
    }
  }
  return true;
}

/// Rejects most non-matches before any capture is bound: the root's operand count and the kinds of
/// its direct operands (in either order for a commutative root).
bool root_may_match(const MNode& m, const Program& p, InstId root) {
  const uint32_t n = p.num_operands(root);
  if (n != m.operands.size()) return false;
  bool direct = true;
  for (uint32_t k = 0; direct && k < n; ++k) direct = operand_may_match(m.operands[k], p, p.operand(root, k));
  if (direct || !m.commutative) return direct;
  return operand_may_match(m.operands[0], p, p.operand(root, 1)) && operand_may_match(m.operands[1], p, p.operand(root, 0));
}

/// match_rule for a flat source (CompiledRule::flat: one op over leaves): Matcher::match's tests in its
/// order, without the recursion, each operand's constant looked up at most once.
bool match_flat(const CompiledRule& r, const Program& p, InstId root, Captures& c) {
  const MNode& m = r.source;
  if (p.op(root) != m.op || p.num_results(root) != 1) return false;
  const uint32_t n = p.num_operands(root);
  if (n != m.operands.size()) return false;
  ValueId ops[CompiledRule::kFlatMaxOperands];
  const Tensor* lit[CompiledRule::kFlatMaxOperands];
  bool looked[CompiledRule::kFlatMaxOperands] = {};
  for (uint32_t k = 0; k < n; ++k) ops[k] = p.operand(root, k);
  auto constant = [&](uint32_t k) {
    if (!looked[k]) lit[k] = p.constant_of(ops[k]), looked[k] = true;
    return lit[k];
  };
  const ValueId res = p.result(root, 0);
  const AttrSet* attrs = m.attrs.empty() ? nullptr : &p.attrs_of(root);
  const unsigned orders = m.commutative ? 2 : 1;
  for (unsigned s = 0; s < orders; ++s) {
    Matcher mt{p, c};
    if (!mt.bind_node(m, res) || (attrs && !mt.attrs_match(m, *attrs))) continue;
    bool ok = true;
    for (uint32_t k = 0; ok && k < n; ++k) {
      const MNode& o = m.operands[k];
      const uint32_t from = s ? 1 - k : k;
      ok = mt.bind_node(o, ops[from]) &&
           mt.leaf_matches(o, ops[from], o.kind == Node::Kind::Value ? nullptr : constant(from));
    }
    if (ok && (r.where.empty() || constraints_hold(r, p, c))) return true;
  }
  return false;
}

/// The recursive matcher alone (every rule): tries every operand order; on success `c` holds the bindings.
bool match_tree(const CompiledRule& r, const Program& p, InstId root, Captures& c) {
  if (p.num_results(root) != 1) return false;
  if (!root_may_match(r.source, p, root)) return false;
  const ValueId v = p.result(root, 0);
  const unsigned orders = 1u << r.num_swaps;
  for (unsigned s = 0; s < orders; ++s) {
    Matcher m{p, c};
    m.swaps = s;
    if (m.match(r.source, v) && constraints_hold(r, p, c)) return true;
  }
  return false;
}

/// Tries every operand order; on success `c` holds the bindings.
bool match_rule(const CompiledRule& r, const Program& p, InstId root, Captures& c) {
  return r.flat ? match_flat(r, p, root, c) : match_tree(r, p, root, c);
}

/// The plan of one rewrite: every result node's type, attributes and literal, computed before any edit.
/// Small results (nearly all rules) live in inline arrays: no allocation on the rewrite path.
struct Plan {
  static constexpr int kInline = 16;
  std::array<TypeId, kInline> type_in;
  std::array<AttrSetId, kInline> attrs_in;
  std::array<ValueId, kInline> literal_in;
  std::vector<TypeId> type_heap;
  std::vector<AttrSetId> attrs_heap;
  std::vector<ValueId> literal_heap;
  TypeId* type = nullptr;
  AttrSetId* attrs = nullptr;
  ValueId* literal = nullptr;
  void reset(int n) {
    if (n <= kInline) {
      type = type_in.data(), attrs = attrs_in.data(), literal = literal_in.data();
    } else {
      type_heap.assign(n, kNone), attrs_heap.assign(n, 0), literal_heap.assign(n, kNone);
      type = type_heap.data(), attrs = attrs_heap.data(), literal = literal_heap.data();
    }
    std::fill(type, type + n, kNone);
    std::fill(attrs, attrs + n, 0);
    std::fill(literal, literal + n, kNone);
  }
};

class Builder {
 public:
  Builder(const CompiledRule& r, ProgramRewriter& rw, const Captures& c, InstId root)
      : r_(r), rw_(rw), p_(rw.program()), c_(c), root_(root) {
    plan_.reset(r.num_result_nodes);
  }

  /// A literal operand with no explicit type: typed by its parent after the parent's type is known.
  static bool context_typed(const RNode& o) {
    return (o.kind == Node::Kind::Splat || o.kind == Node::Kind::Const) && o.type_source == TypeSource::Context;
  }

  /// Fills the plan; false when a helper does not apply or a type cannot be formed.
  bool plan(const RNode& n, TypeId context) {
    TypeId t = kNone;
    switch (n.type_source) {
      case TypeSource::Root: t = rw_.type_id(rw_.result(root_, 0)); break;
      case TypeSource::TypeSlot: t = c_.type[n.type_slot]; break;
      case TypeSource::ValueSlot: t = rw_.type_id(c_.value[n.type_slot]); break;
      case TypeSource::Context: t = context; break;
      case TypeSource::Dims: {
        // The capture's dtype, dims [i < count: elem]; an undefined or negative dim, or a type past the
        // IR's limits (rank kMaxTypeRank, kMaxTypeElements: ir/tensor.h), forms no type.
        TensorType tt;
        tt.dtype = n.dims_cap == CapKind::Type ? p_.type(c_.type[n.type_slot]).dtype : p_.type_of(c_.value[n.type_slot]).dtype;
        std::vector<int64_t> vars;
        const auto cnt = eval_int(p_, c_, n.dims_count, vars);
        if (!cnt || *cnt < 0 || *cnt > kMaxTypeRank) return false;
        vars.push_back(0);
        for (int64_t i = 0; i < *cnt; ++i) {
          vars.back() = i;
          const auto d = eval_int(p_, c_, n.dims_elem, vars);
          if (!d || *d < 0) return false;
          tt.dims.push_back(*d);
        }
        if (!within_type_limits(tt)) return false;
        t = rw_.intern_type(tt);
        break;
      }
      case TypeSource::Elementwise:
      case TypeSource::Transpose: break;  // after the operands
    }
    if (n.kind == Node::Kind::Value) {
      plan_.type[n.id] = rw_.type_id(c_.value[n.slot]);
      return t == kNone || t == plan_.type[n.id];
    }
    if (n.kind == Node::Kind::Splat || n.kind == Node::Kind::Const) {
      if (t == kNone) return false;
      plan_.type[n.id] = t;
      const TensorType& tt = p_.type(t);
      std::optional<Tensor> lit;
      if (n.kind == Node::Kind::Splat) {
        auto bits = number_bits(tt.dtype, n.number.value, n.number.is_float);
        if (!bits) return false;
        Tensor s(tt);
        for (int64_t i = 0; i < s.size(); ++i) s.set_bits(i, *bits);
        lit = std::move(s);
      } else if (n.helper_exprs.empty()) {
        lit = n.lit_helper->fn(p_, c_, n.helper_args, tt);
      } else {
        // Integer parameters (int_lit) read their expression's value; undefined: no literal.
        std::vector<Arg> args = n.helper_args;
        for (size_t k = 0; k < args.size() && k < n.helper_exprs.size(); ++k)
          if (n.helper_exprs[k]) {
            const auto v = eval_int(p_, c_, *n.helper_exprs[k], {});
            if (!v) return false;
            args[k].i = *v;
          }
        lit = n.lit_helper->fn(p_, c_, args, tt);
      }
      if (!lit) return false;
      plan_.literal[n.id] = rw_.literal_value(*lit);
      return true;
    }
    // Operands that carry their own type first, then literals typed by their context.
    AttrSet attrs;
    for (const RNode::RAttr& a : n.attrs) {
      AttrValue v;
      v.kind = a.attr_kind;
      switch (a.kind) {
        case AttrExpr::Kind::Capture: v = *c_.attr[a.slot]; break;
        case AttrExpr::Kind::Ints: v.ints = a.ints; break;
        case AttrExpr::Kind::Word:
          if (a.attr_kind == AttrKind::DType) v.ints = {static_cast<int64_t>(*parse_dtype(a.word))};
          else if (a.attr_kind == AttrKind::Bool) v.ints = {a.word == "true"};
          else v.text = a.word;
          break;
        case AttrExpr::Kind::Call: {
          auto ints = a.helper->fn(c_, a.args);
          if (!ints) return false;
          v.ints = std::move(*ints);
          break;
        }
        case AttrExpr::Kind::List: {
          // [i < count: elem]; an undefined entry (overflow, index out of range) forms no attribute.
          std::vector<int64_t> vars;
          const auto n = eval_int(p_, c_, a.count, vars);
          if (!n || *n < 0 || *n > kMaxIntBound) return false;
          vars.push_back(0);
          for (int64_t i = 0; i < *n; ++i) {
            vars.back() = i;
            const auto e = eval_int(p_, c_, a.elem, vars);
            if (!e) return false;
            v.ints.push_back(*e);
          }
          if (a.attr_kind == AttrKind::Int && v.ints.size() != 1) return false;
          break;
        }
        case AttrExpr::Kind::WithAt: {
          const AttrValue* l = c_.attr[a.slot];
          const auto k = eval_int(p_, c_, a.count, {});
          const auto e = eval_int(p_, c_, a.elem, {});
          if (!l || !k || !e || *k < 0 || *k >= static_cast<int64_t>(l->ints.size())) return false;
          v.ints = l->ints;
          v.ints[*k] = *e;
          break;
        }
      }
      attrs.attrs.push_back(Attr{a.name, std::move(v)});
    }
    // Values and ops carry their own type (an op without an explicit type derives it); only literals
    // wait for their context.
    for (const RNode& o : n.operands)
      if (!context_typed(o) && !plan(o, kNone)) return false;
    if (n.type_source == TypeSource::Elementwise) {
      const TypeId from = plan_.type[n.operands[n.from].id];
      if (from == kNone) return false;
      TensorType tt = p_.type(from);
      if (n.op == OpCode::Compare) tt.dtype = DType::I1;
      t = rw_.intern_type(tt);
    } else if (n.type_source == TypeSource::Transpose) {
      const TensorType& in = p_.type(plan_.type[n.operands[0].id]);
      const AttrValue* perm = attrs.find("perm");
      if (!perm || perm->ints.size() != in.dims.size()) return false;
      TensorType tt = in;
      for (size_t k = 0; k < perm->ints.size(); ++k) {
        if (perm->ints[k] < 0 || perm->ints[k] >= in.rank()) return false;
        tt.dims[k] = in.dims[perm->ints[k]];
      }
      t = rw_.intern_type(tt);
    }
    if (t == kNone) return false;
    plan_.type[n.id] = t;
    plan_.attrs[n.id] = rw_.intern_attrs(attrs);
    // Literal operands: select's predicate is i1 of the result's shape; compare's operands share the
    // type of the typed operand; other elementwise operands have the result's type.
    for (size_t k = 0; k < n.operands.size(); ++k) {
      const RNode& o = n.operands[k];
      if (!context_typed(o)) continue;
      TypeId ot = t;
      if (n.op == OpCode::Select && k == 0) {
        TensorType tt = p_.type(t);
        tt.dtype = DType::I1;
        ot = rw_.intern_type(tt);
      } else if (n.op == OpCode::Compare) {
        ot = plan_.type[n.operands[n.from].id];
      }
      if (!plan(o, ot)) return false;
    }
    return true;
  }

  /// Emits the planned ops before the root and returns the replacement value.
  ValueId emit(const RNode& n) {
    switch (n.kind) {
      case Node::Kind::Value: return c_.value[n.slot];
      case Node::Kind::Splat:
      case Node::Kind::Const: return plan_.literal[n.id];
      case Node::Kind::Op: break;
    }
    std::vector<ValueId> ops;
    for (const RNode& o : n.operands) ops.push_back(emit(o));
    const TypeId t = plan_.type[n.id];
    const InstId i = rw_.insert_before(root_, n.op, ops, std::span<const TypeId>(&t, 1), plan_.attrs[n.id]);
    created_.push_back(i);
    return rw_.result(i, 0);
  }

  TypeId planned_type(const RNode& n) const { return plan_.type[n.id]; }
  const std::vector<InstId>& created() const { return created_; }

 private:
  const CompiledRule& r_;
  ProgramRewriter& rw_;
  const Program& p_;
  const Captures& c_;
  InstId root_;
  Plan plan_;
  std::vector<InstId> created_;
};

}  // namespace

RulePattern::RulePattern(std::shared_ptr<const CompiledRule> rule)
    : Pattern(rule->rule->name, std::span<const OpCode>(root_op_, 1),
              static_cast<PatternBenefit>(rule->rule->benefit >= 0 ? rule->rule->benefit : rule->num_source_ops)),
      rule_(std::move(rule)) {
  root_op_[0] = rule_->source.op;
  assumes_ = rule_->rule->assumes;
  for (const std::string& l : rule_->rule->labels) add_label(l);
  add_label("rules");
  if (rule_->rule->bounded) set_has_bounded_recursion();
  set_origin(rule_->rule->file + ":" + std::to_string(rule_->rule->loc.line));
}

RulePattern::~RulePattern() = default;

const Rule& RulePattern::rule() const { return *rule_->rule; }
std::shared_ptr<const RuleFile> RulePattern::file() const { return rule_->file; }

RootShape RulePattern::root_shape() const {
  // What root_may_match checks first: the operand count and each direct operand's kind.
  const MNode& m = rule_->source;
  RootShape s;
  if (m.kind != Node::Kind::Op) return s;
  s.num_operands = static_cast<int32_t>(m.operands.size());
  for (size_t k = 0; k < m.operands.size() && k < s.operand.size(); ++k) {
    const MNode& o = m.operands[k];
    switch (o.kind) {
      case Node::Kind::Value: break;
      case Node::Kind::Splat:  // what splat_matches checks of the first element
        s.operand[k].kind = OperandNeed::Kind::Splat;
        s.operand[k].nan = std::isnan(o.number.value);
        s.operand[k].splat_bits = o.splat_bits;
        break;
      case Node::Kind::Const: s.operand[k].kind = OperandNeed::Kind::Constant; break;
      case Node::Kind::Op:
        s.operand[k].kind = OperandNeed::Kind::Op;
        s.operand[k].op = o.op;
        break;
    }
  }
  s.either_order = m.commutative;
  // `op(%x, %x)`: bind_value makes the second operand the first's value.
  s.same_operands = m.operands.size() >= 2 && m.operands[0].kind == Node::Kind::Value &&
                    m.operands[1].kind == Node::Kind::Value && m.operands[0].slot == m.operands[1].slot;
  if (!s.either_order) add_type_facts(s);
  return s;
}

/// The type facts (TypeFact) the rule's `where` clause requires of root operands 0 and 1: a constraint
/// (not negated) that must hold for the rule to fire, on a capture bound to the operand itself (its
/// `%x`, or its `: $T`), implies the fact:
///   is_float / is_int / is_bool (x)      x's dtype is in that class (the natives' own tests)
///   num_elements_is(x, 0)               x has no elements
///   some_axis_size(x, $a, 0)            an axis of x has size 0, so x has no elements
///   same_type(x, R) or same_type(R, x)  x has the root's result type (R: the root's `: $T` or `as %r`)
void RulePattern::add_type_facts(RootShape& s) const {
  const MNode& m = rule_->source;
  // Which root operand (0 or 1) an argument denotes, or -1; whether it denotes the root's result type.
  auto operand_of = [&](const Arg& a) -> int {
    for (size_t k = 0; k < m.operands.size() && k < 2; ++k) {
      const MNode& o = m.operands[k];
      if (a.kind == CapKind::Value && o.kind == Node::Kind::Value && o.slot == a.slot) return static_cast<int>(k);
      if (a.kind == CapKind::Value && o.as_slot == a.slot) return static_cast<int>(k);
      if (a.kind == CapKind::Type && o.type_slot == a.slot) return static_cast<int>(k);
    }
    return -1;
  };
  auto is_result = [&](const Arg& a) {
    return (a.kind == CapKind::Type && m.type_slot >= 0 && m.type_slot == a.slot) ||
           (a.kind == CapKind::Value && m.as_slot >= 0 && m.as_slot == a.slot);
  };
  for (const MConstraint& c : rule_->where) {
    if (!c.pred || c.negated || c.args.empty()) continue;
    const int k = operand_of(c.args[0]);
    switch (c.pred->id) {
      case NativeId::IsFloat:
        if (k >= 0) s.operand_facts[k] |= kFactFloat;
        break;
      case NativeId::IsInt:
        if (k >= 0) s.operand_facts[k] |= kFactInt;
        break;
      case NativeId::IsBool:
        if (k >= 0) s.operand_facts[k] |= kFactBool;
        break;
      case NativeId::NumElementsIs:
        if (k >= 0 && c.args.size() == 2 && c.args[1].i == 0) s.operand_facts[k] |= kFactEmpty;
        break;
      case NativeId::SomeAxisSize:
        if (k >= 0 && c.args.size() == 3 && c.args[2].i == 0) s.operand_facts[k] |= kFactEmpty;
        break;
      case NativeId::SameType:
        if (c.args.size() != 2) break;
        if (k >= 0 && is_result(c.args[1])) s.operand_facts[k] |= kFactResultType;
        else if (const int k1 = operand_of(c.args[1]); k1 >= 0 && is_result(c.args[0])) s.operand_facts[k1] |= kFactResultType;
        break;
      default: break;
    }
  }
}

bool RulePattern::matches(const Program& p, InstId root) const {
  Captures c;
  return matches(p, root, c, /*tree_only=*/false);
}

bool RulePattern::matches(const Program& p, InstId root, Captures& c, bool tree_only) const {
  if (p.op(root) != rule_->source.op) return false;
  const uint8_t need = assumes_;
  if (need && (function_assumptions(p, p.inst(root).body) & need) != need) return false;
  return tree_only ? match_tree(*rule_, p, root, c) : match_rule(*rule_, p, root, c);
}

bool RulePattern::flat() const { return rule_->flat; }

bool RulePattern::match_and_rewrite(InstId root, ProgramRewriter& rw) const {
  const Program& p = rw.program();
  const uint8_t need = assumes_;
  if (need && (function_assumptions(p, p.inst(root).body) & need) != need)
    return rw.notify_match_failure("the function lacks the fast-math flags the rule assumes");
  Captures c;
  if (!match_rule(*rule_, p, root, c)) return rw.notify_match_failure("the source pattern or a constraint does not match");
  // The most common result, a captured value, needs no plan: only its type must be the root's.
  if (rule_->result.kind == Node::Kind::Value) {
    const ValueId with = c.value[rule_->result.slot];
    if (rw.type_id(with) != rw.type_id(rw.result(root, 0)))
      return rw.notify_match_failure("the result's type differs from the root's");
    rw.replace_op(root, with);
    return true;
  }
  Builder b(*rule_, rw, c, root);
  if (!b.plan(rule_->result, kNone)) return rw.notify_match_failure("a result type, attribute or literal cannot be formed");
  if (b.planned_type(rule_->result) != rw.type_id(rw.result(root, 0)))
    return rw.notify_match_failure("the result's type differs from the root's");
  const ValueId with = b.emit(rule_->result);
  // A rule is checked at load time, but a result op whose attributes the shapes reject would corrupt
  // the program: verify what was built and stop the driver with the rule's name if it is malformed.
  for (InstId i : b.created())
    if (std::string e = rw.verify_built(i); !e.empty()) {
      rw.report_error("rule " + rule_->rule->name + " built an invalid " + std::string(mnemonic(p.op(i))) + ": " + e);
      break;
    }
  // The new value means what the root meant: it keeps the root's name (`%mean`, not `%t0`).
  const std::string name(p.name(rw.result(root, 0)));
  rw.replace_op(root, with);
  if (!name.empty() && !b.created().empty() && p.name(with).empty()) rw.set_name(with, name);
  return true;
}

void add_rule_patterns(PatternSet& set, std::shared_ptr<const RuleFile> file) {
  for (size_t k = 0; k < file->rules.size(); ++k) {
    RuleError err;
    auto compiled = compile_rule(file, k, &err);
    // The file was checked when it was loaded; a rule that fails here is a programming error.
    if (!compiled) throw std::logic_error(err.format());
    set.add(std::make_unique<RulePattern>(std::move(compiled)));
  }
}

uint8_t function_assumptions(const Program& p, BodyId b) {
  // rules::Assume and FastMathFlag share their bit positions (nnan 1, ninf 2, nsz 4, reassoc 8, contract 16,
  // afn 32).
  static_assert(kNNaN == 1u << static_cast<int>(FastMathFlag::NNaN) && kNInf == 1u << static_cast<int>(FastMathFlag::NInf) &&
                kNSZ == 1u << static_cast<int>(FastMathFlag::NSZ) && kReassoc == 1u << static_cast<int>(FastMathFlag::Reassoc) &&
                kContract == 1u << static_cast<int>(FastMathFlag::Contract) &&
                kAFn == 1u << static_cast<int>(FastMathFlag::AFn));
  return p.fastmath_of(b).bits;
}

std::string describe_natives() {
  // The spellings come from param_accepts, the table the loader checks arguments against.
  auto params = [](const std::vector<Param>& ps, Site site) {
    std::string o;
    for (Param p : ps) o += (o.empty() ? "" : ", ") + param_spelling(p, site);
    return o;
  };
  std::string s = "predicates (where ...):\n";
  for (const auto& p : all_predicates())
    s += "  " + std::string(p.name) + "(" + params(p.params, Site::Predicate) + ")  " + std::string(p.doc) + "\n";
  s += "attribute helpers ({name = helper($a, ...)}):\n";
  for (const auto& h : all_attr_helpers())
    s += "  " + std::string(h.name) + "(" + params(h.params, Site::Helper) + ")  " + std::string(h.doc) + "\n";
  s += "literal helpers (const(helper(...))):\n";
  for (const auto& h : all_lit_helpers())
    s += "  " + std::string(h.name) + "(" + params(h.params, Site::Helper) + ")  " + std::string(h.doc) + "\n";
  return s;
}

}  // namespace ptir::rules
