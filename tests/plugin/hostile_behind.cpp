// Plugin patterns that edit the program behind the ProgramRewriter, or hand it ids and tensors that do
// not exist or are malformed. Each must end `ptir opt` (with or without --certify) and `ptir prove` with
// an error naming what happened, never a crash and never CERTIFIED (tests/golden/plugin/hostile_behind.ptir).
// Found by red teams on 2026-12-07: behind_neg was CERTIFIED with a wrong output; the other three
// crashed ptir opt and ptir prove.
#include "ir/program.h"
#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

/// neg(neg(x)) -> neg(x) (wrong), made through the Program itself, then reports failure.
class BehindNeg final : public Pattern {
 public:
  BehindNeg() : Pattern("behind_neg", kOnly<OpCode::Neg>, 100) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId d = rw.inst_of(rw.operand(root, 0));
    if (d == kNone || rw.op(d) != OpCode::Neg) return rw.notify_match_failure("not neg(neg(x))");
    const_cast<Program&>(rw.program()).set_operand(root, 0, rw.operand(d, 0));
    return false;
  }
};

/// materialize_constant before no instruction.
class ConstantBeforeNothing final : public Pattern {
 public:
  ConstantBeforeNothing() : Pattern("behind_constant_at_nothing", kOnly<OpCode::Abs>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId c = rw.materialize_constant(kNone, Tensor(rw.type_of(rw.result(root))));
    if (c != kNone) rw.replace_op(root, c);
    return c != kNone;
  }
};

/// A literal operand from a default Tensor (no data for its one f32 element).
class EmptyLiteral final : public Pattern {
 public:
  EmptyLiteral() : Pattern("behind_empty_literal", kOnly<OpCode::Exp>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    return rw.literal_value(Tensor{}) != kNone;
  }
};

/// A constant whose data is one element short of its type.
class ShortConstant final : public Pattern {
 public:
  ShortConstant() : Pattern("behind_short_constant", kOnly<OpCode::Tanh>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    Tensor t(rw.type_of(rw.result(root)));
    if (t.data.empty()) return false;
    t.data.resize(t.data.size() - 1);
    const ValueId c = rw.materialize_constant(root, t);
    if (c != kNone) rw.replace_op(root, c);
    return c != kNone;
  }
};

}  // namespace

PTIR_PLUGIN("hostile_behind", registry) {
  registry.add_pattern<BehindNeg>();
  registry.add_template("behind_neg", "neg(neg(%x))");
  registry.add_pattern<ConstantBeforeNothing>();
  registry.add_template("behind_constant_at_nothing", "abs(%x)");
  registry.add_pattern<EmptyLiteral>();
  registry.add_template("behind_empty_literal", "exp(%x)");
  registry.add_pattern<ShortConstant>();
  registry.add_template("behind_short_constant", "tanh(%x)");
}
