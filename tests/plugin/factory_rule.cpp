// A plugin whose pattern factory returns a rule pattern (rules::RulePattern built by the plugin's own
// code): refused, since a factory may return another object on each call while a rule is proved and
// certified for all shapes (docs/embedding.md). By default the first call (the loader's) returns the
// rule; with PTIR_TEST_FACTORY_RULE_LATER set, the first call returns a C++ pattern and later calls
// (the pattern sets `ptir opt` builds) the rule.
#include <cstdlib>
#include <stdexcept>

#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

class NegNeg final : public Pattern {
 public:
  NegNeg() : Pattern("fr_negneg", kOnly<OpCode::Neg>, 1) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId d = rw.inst_of(rw.operand(root, 0));
    if (d == kNone || rw.op(d) != OpCode::Neg) return false;
    rw.replace_op(root, rw.operand(d, 0));
    return true;
  }
};

std::unique_ptr<Pattern> rule_pattern() {
  auto loaded = rules::load_rule_text("rule fr_negneg : neg(neg(%x)) => %x\n", "factory_rule.rules");
  if (!std::holds_alternative<rules::RuleFile>(loaded)) throw std::runtime_error("the test rule does not load");
  auto file = std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded)));
  PatternSet set;
  rules::add_rule_patterns(set, file);
  // Taken out of a set the plugin owns (the only way to hold a RulePattern alone).
  auto& all = const_cast<std::vector<std::unique_ptr<Pattern>>&>(set.patterns());
  return std::move(all.at(0));
}

int calls = 0;

}  // namespace

PTIR_PLUGIN("factory_rule", registry) {
  registry.add_pattern_factory([]() -> std::unique_ptr<Pattern> {
    const bool later = std::getenv("PTIR_TEST_FACTORY_RULE_LATER") != nullptr;
    if (later && ++calls == 1) return std::make_unique<NegNeg>();
    return rule_pattern();
  });
  registry.add_template("fr_negneg", "neg(neg(%x))");
}
