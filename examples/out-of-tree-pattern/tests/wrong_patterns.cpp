// A deliberately wrong variant of example_concat_same_to_tile, for the example's tests: it forgets to
// check that the concat's operands are the same value. `ptir prove --load-plugin` must REFUTE it (the
// near misses split the repeated %x into two values) and exit 1.
#include <vector>

#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

/// concat(x, y) axis[k] ==> tile(x) repeats[.., 2, ..]   WRONG when y is not x
class ConcatAnyToTile final : public Pattern {
 public:
  ConcatAnyToTile() : Pattern("example_concat_any_to_tile_wrong", kOnly<OpCode::Concat>, 2) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const OperandRange ops = rw.operands(root);
    if (ops.size() < 2) return rw.notify_match_failure("fewer than two operands");
    const TensorType& t = rw.type_of(rw.result(root));
    const int64_t axis = rw.attrs(root).int_or("axis", 0);
    if (axis < 0 || axis >= t.rank()) return rw.notify_match_failure("axis out of range");
    std::vector<int64_t> repeats(t.rank(), 1);
    repeats[axis] = static_cast<int64_t>(ops.size());
    for (ValueId v : ops)
      if (rw.type_id(v) != rw.type_id(ops[0])) return rw.notify_match_failure("operand types differ");
    AttrSet attrs;
    attrs.attrs.push_back(Attr{"repeats", AttrValue{AttrKind::Ints, std::move(repeats), {}, {}}});
    rw.replace_op(root, rw.insert_before(root, OpCode::Tile, {ops[0]}, rw.type_id(rw.result(root)),
                                         rw.intern_attrs(attrs)));
    return true;
  }
  std::span<const OpCode> produces() const override { return kOnly<OpCode::Tile>; }
};

}  // namespace

PTIR_PLUGIN("example_patterns_wrong", registry) {
  registry.add_pattern<ConcatAnyToTile>();
  registry.add_template("example_concat_any_to_tile_wrong", "concat(%x, %x)");
}
