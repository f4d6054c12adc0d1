// Plugin patterns whose C++ code fires outside the template they declare, for `ptir prove
// --load-plugin` (tests/golden/plugin/outside_template.ptir). The first two rewrite wrongly there and
// must be REFUTED on a near miss built from outside the template; both were PROVED when the prover's
// near misses only nudged splats, split captures and added uses. The third fires outside its template
// too, but correctly there, and stays PROVED. The fourth ignores an attribute its template fixes, the
// fifth the operand order, the sixth that its template's two operands are one value, and the seventh
// goes wrong on an instance of its template whose operand is a constant.
#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

/// Template neg(neg(%x)) => %x; the code also takes neg(abs(%x)) (wrong: neg(abs(1)) is -1).
class NegNegAlsoAbs final : public Pattern {
 public:
  NegNegAlsoAbs() : Pattern("outside_negneg_also_abs", kOnly<OpCode::Neg>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId d = rw.program().def_inst(rw.operand(root, 0));
    if (d == kNone || (rw.op(d) != OpCode::Neg && rw.op(d) != OpCode::Abs)) return rw.notify_match_failure("not neg/abs");
    rw.replace_op(root, rw.operand(d, 0));
    return true;
  }
};

/// Template div(neg(%x), %y) where is_float(%x) => neg(div(%x, %y)); the code never looks at the
/// dtype (wrong on integers: for ui8, (0 - 6) / 5 is 50 and 0 - 6 / 5 is 255).
class DivNegAnyDtype final : public Pattern {
 public:
  DivNegAnyDtype() : Pattern("outside_div_neg_any_dtype", kOnly<OpCode::Div>, 1) { set_has_bounded_recursion(); }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId n = rw.program().def_inst(rw.operand(root, 0));
    if (n == kNone || rw.op(n) != OpCode::Neg) return rw.notify_match_failure("numerator is not neg");
    const TypeId t = rw.type_id(rw.result(root));
    const ValueId d = rw.insert_before(root, OpCode::Div, {rw.operand(n, 0), rw.operand(root, 1)}, t);
    rw.replace_op(root, rw.insert_before(root, OpCode::Neg, {d}, t));
    return true;
  }
  std::span<const OpCode> produces() const override {
    static const OpCode o[] = {OpCode::Div, OpCode::Neg};
    return o;
  }
};

/// Template neg(neg(%x)) where is_float(%x) => %x; the code takes every dtype, which is right
/// (integer negation wraps, so neg(neg(x)) is x for every integer too).
class NegNegAnyDtype final : public Pattern {
 public:
  NegNegAnyDtype() : Pattern("outside_negneg_any_dtype", kOnly<OpCode::Neg>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId d = rw.program().def_inst(rw.operand(root, 0));
    if (d == kNone || rw.op(d) != OpCode::Neg) return rw.notify_match_failure("operand is not neg");
    rw.replace_op(root, rw.operand(d, 0));
    return true;
  }
};

/// Template select(compare(%x, %y) {dir = lt}, %x, %y) where is_int(%x) => minimum(%x, %y); the
/// code checks the dtype and the operands but never the direction (wrong for gt, ge, ...).
class SelectLtAnyDir final : public Pattern {
 public:
  SelectLtAnyDir() : Pattern("outside_select_lt_any_dir", kOnly<OpCode::Select>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId c = rw.program().def_inst(rw.operand(root, 0));
    if (c == kNone || rw.op(c) != OpCode::Compare) return rw.notify_match_failure("condition is not compare");
    const ValueId x = rw.operand(c, 0), y = rw.operand(c, 1);
    if (rw.operand(root, 1) != x || rw.operand(root, 2) != y) return rw.notify_match_failure("arms differ");
    if (!is_integer(rw.type_of(x).dtype)) return rw.notify_match_failure("not an integer");
    rw.replace_op(root, rw.insert_before(root, OpCode::Minimum, {x, y}, rw.type_id(rw.result(root))));
    return true;
  }
  std::span<const OpCode> produces() const override { return kOnly<OpCode::Minimum>; }
};

/// Template sub(%x, neg(%y)) => add(%x, %y); the code also takes sub(neg(%a), %b), giving add(%a, %b)
/// (wrong: that is -a - b).
class SubNegEitherSide final : public Pattern {
 public:
  SubNegEitherSide() : Pattern("outside_sub_neg_either_side", kOnly<OpCode::Sub>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    for (int k = 1; k >= 0; --k) {
      const InstId n = rw.program().def_inst(rw.operand(root, k));
      if (n == kNone || rw.op(n) != OpCode::Neg) continue;
      const ValueId other = rw.operand(root, 1 - k);
      rw.replace_op(root, rw.insert_before(root, OpCode::Add, {other, rw.operand(n, 0)}, rw.type_id(rw.result(root))));
      return true;
    }
    return rw.notify_match_failure("no neg operand");
  }
  std::span<const OpCode> produces() const override { return kOnly<OpCode::Add>; }
};

/// Template add(neg(%x) as %n, %n) => neg(add(%x, %x)); the code checks that both operands are neg
/// ops, not that they are one value (wrong for add(neg(a), neg(b))).
class AddSharedNeg final : public Pattern {
 public:
  AddSharedNeg() : Pattern("outside_add_shared_neg", kOnly<OpCode::Add>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId a = rw.program().def_inst(rw.operand(root, 0)), b = rw.program().def_inst(rw.operand(root, 1));
    if (a == kNone || b == kNone || rw.op(a) != OpCode::Neg || rw.op(b) != OpCode::Neg)
      return rw.notify_match_failure("operands are not neg");
    const ValueId x = rw.operand(a, 0);
    const TypeId t = rw.type_id(rw.result(root));
    rw.replace_op(root, rw.insert_before(root, OpCode::Neg, {rw.insert_before(root, OpCode::Add, {x, x}, t)}, t));
    return true;
  }
  std::span<const OpCode> produces() const override {
    static const OpCode o[] = {OpCode::Add, OpCode::Neg};
    return o;
  }
};

/// Template neg(neg(%x)) => %x; the code treats a constant %x as already negated (wrong).
class NegNegConstant final : public Pattern {
 public:
  NegNegConstant() : Pattern("outside_negneg_constant", kOnly<OpCode::Neg>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId d = rw.program().def_inst(rw.operand(root, 0));
    if (d == kNone || rw.op(d) != OpCode::Neg) return rw.notify_match_failure("operand is not neg");
    const ValueId x = rw.operand(d, 0);
    rw.replace_op(root, rw.program().constant_of(x) ? rw.operand(root, 0) : x);
    return true;
  }
};

}  // namespace

PTIR_PLUGIN("outside_template", registry) {
  registry.add_pattern<NegNegAlsoAbs>();
  registry.add_template("outside_negneg_also_abs", "neg(neg(%x))");
  registry.add_pattern<DivNegAnyDtype>();
  registry.add_template("outside_div_neg_any_dtype", "div(neg(%x), %y) where is_float(%x)");
  registry.add_pattern<NegNegAnyDtype>();
  registry.add_template("outside_negneg_any_dtype", "neg(neg(%x)) where is_float(%x)");
  registry.add_pattern<SelectLtAnyDir>();
  registry.add_template("outside_select_lt_any_dir", "select(compare(%x, %y) {dir = lt}, %x, %y) where is_int(%x)");
  registry.add_pattern<SubNegEitherSide>();
  registry.add_template("outside_sub_neg_either_side", "sub(%x, neg(%y))");
  registry.add_pattern<AddSharedNeg>();
  registry.add_template("outside_add_shared_neg", "add(neg(%x) as %n, %n)");
  registry.add_pattern<NegNegConstant>();
  registry.add_template("outside_negneg_constant", "neg(neg(%x))");
}
