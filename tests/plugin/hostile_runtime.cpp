// Plugin patterns that misbehave at run time rather than break the contract: one throws a
// std::exception, one throws an int, one grows the program without end. Each must end `ptir opt` and
// `ptir prove` with an error naming it, never a crash or a run until memory is gone
// (tests/golden/plugin/hostile_runtime.ptir).
#include <stdexcept>

#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

class Throws final : public Pattern {
 public:
  Throws() : Pattern("hostile_throws", kOnly<OpCode::Exp>, 1) {}
  bool match_and_rewrite(InstId, ProgramRewriter&) const override { throw std::runtime_error("hostile boom"); }
};

class ThrowsInt final : public Pattern {
 public:
  ThrowsInt() : Pattern("hostile_throws_int", kOnly<OpCode::Log>, 1) {}
  bool match_and_rewrite(InstId, ProgramRewriter&) const override { throw 42; }
};

/// neg(x) ==> neg(neg(neg(x))): exact (each rewrite passes the expensive checks' replays), but every new
/// neg matches again; produces() says nothing, so the set's termination check cannot see it.
class Grows final : public Pattern {
 public:
  Grows() : Pattern("hostile_grows", kOnly<OpCode::Neg>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const TypeId t = rw.type_id(rw.result(root));
    ValueId v = rw.operand(root, 0);
    for (int k = 0; k < 3; ++k) v = rw.insert_before(root, OpCode::Neg, {v}, t, 0);
    rw.replace_op(root, v);
    return true;
  }
};

}  // namespace

PTIR_PLUGIN("hostile_runtime", registry) {
  registry.add_pattern<Throws>();
  registry.add_template("hostile_throws", "exp(%x)");
  registry.add_pattern<ThrowsInt>();
  registry.add_template("hostile_throws_int", "log(%x)");
  registry.add_pattern<Grows>();
  registry.add_template("hostile_grows", "neg(%x)");
}
