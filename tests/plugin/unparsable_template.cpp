// A plugin whose template constrains a capture its DAG never binds: refused when loaded, with the
// template's line and a caret.
#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

class NegNeg final : public ptir::Pattern {
 public:
  NegNeg() : Pattern("plugin_neg_neg", ptir::kOnly<ptir::OpCode::Neg>, 1) {}
  bool match_and_rewrite(ptir::InstId, ptir::ProgramRewriter&) const override { return false; }
};

}  // namespace

PTIR_PLUGIN("unparsable_template", registry) {
  registry.add_pattern<NegNeg>();
  registry.add_template("plugin_neg_neg", "neg(neg(%y)) where is_float(%x)");
}
