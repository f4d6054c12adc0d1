// Plugin patterns that break the rules of the game, for `ptir prove --load-plugin`: each must be
// REFUTED with the contract's message, never PROVED and never a crash (tests/golden/plugin/hostile.ptir).
#include <vector>

#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

/// neg(x) ==> neg(abs(x)) with abs typed one axis too many: an invalid program (neg's operand and
/// result types differ), which an unverified interpreter would run out of bounds.
class WrongResultType final : public Pattern {
 public:
  WrongResultType() : Pattern("hostile_wrong_result_type", kOnly<OpCode::Neg>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId x = rw.operand(root, 0);
    if (const InstId d = rw.program().def_inst(x); d != kNone && rw.op(d) == OpCode::Abs)
      return rw.notify_match_failure("already rewritten");
    TensorType t = rw.type_of(x);
    t.dims.push_back(2);
    const ValueId bad = rw.insert_before(root, OpCode::Abs, {x}, rw.intern_type(t));
    rw.update_in_place(root, [&] { rw.set_operand(root, 0, bad); });
    return true;
  }
  std::span<const OpCode> produces() const override { return kOnly<OpCode::Abs>; }
};

/// abs(abs(x)): swaps the root's operand for x (a correct rewrite) and then reports failure.
class ChangedButFailed final : public Pattern {
 public:
  ChangedButFailed() : Pattern("hostile_changed_but_failed", kOnly<OpCode::Abs>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId in = rw.operand(root, 0);
    const InstId def = rw.program().def_inst(in);
    if (def == kNone || rw.op(def) != OpCode::Abs) return rw.notify_match_failure("operand is not abs");
    rw.update_in_place(root, [&] { rw.set_operand(root, 0, rw.operand(def, 0)); });
    return false;
  }
};

}  // namespace

PTIR_PLUGIN("hostile", registry) {
  registry.add_pattern<WrongResultType>();
  registry.add_template("hostile_wrong_result_type", "neg(%x)");
  registry.add_pattern<ChangedButFailed>();
  registry.add_template("hostile_changed_but_failed", "abs(abs(%x))");
}
