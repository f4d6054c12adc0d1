// libFuzzer target: any bytes -> the rule-file loader (parser + load-time checker) of the pattern
// library. Must never crash, hang or trip a sanitizer: every input is a checked RuleFile or one
// FILE:LINE:COL error. An accepted file is also compiled into patterns and checked for cycles, and its
// patterns are run once on a small program, so the matcher and builder see what the parser accepts.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "ir/text.h"
#include "rewriter/greedy.h"
#include "rewriter/rules/rules.h"
#include "rewriter/rules/termination.h"

namespace {

const char* kProgram = R"(func @main(%x: tensor<f32, 2x3>, %y: tensor<si32, 3>, %p: tensor<i1, 2x3>) -> (tensor<f32, 3x2>, tensor<si32, 3>) {
  %a = mul %x, dense<1.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %b = neg %a -> tensor<f32, 2x3>
  %c = neg %b -> tensor<f32, 2x3>
  %d = select %p, %c, %x -> tensor<f32, 2x3>
  %t = transpose %d perm[1, 0] -> tensor<f32, 3x2>
  %u = transpose %t perm[1, 0] -> tensor<f32, 2x3>
  %v = transpose %u perm[1, 0] -> tensor<f32, 3x2>
  %i = add %y, dense<0> : tensor<si32, 3> -> tensor<si32, 3>
  %j = sub %i, %i -> tensor<si32, 3>
  return %v, %j
}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = ptir::rules::load_rule_text(text, "fuzz.rules");
  if (auto* e = std::get_if<ptir::rules::RuleError>(&loaded)) {
    if (e->message.empty()) __builtin_trap();  // an error must say what is wrong
    return 0;
  }
  auto file = std::make_shared<const ptir::rules::RuleFile>(std::move(std::get<ptir::rules::RuleFile>(loaded)));
  ptir::PatternSet set;
  ptir::rules::add_rule_patterns(set, file);
  ptir::FrozenPatternSet frozen = std::move(set).freeze();
  (void)ptir::rules::find_rule_cycles(frozen.all());
  ptir::ParseResult parsed = ptir::parse_program(kProgram);
  if (!parsed.ok()) __builtin_trap();
  ptir::GreedyConfig cfg;
  cfg.max_iterations = 4;
  cfg.max_num_rewrites = 64;
  cfg.expensive_checks = false;
  ptir::ProgramRewriter rw(*parsed.program);
  ptir::apply_patterns_and_fold_greedily(rw, frozen, cfg);
  return 0;
}
