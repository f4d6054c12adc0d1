// --debug-rewrites: the tree shows each op processed, the patterns tried, why they failed, and edits.
#include "rewriter/debug_log.h"

#include <gtest/gtest.h>

#include "patterns/seed.h"
#include "rewriter/greedy.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {

TEST(DebugLogger, PrintsTheRewriteTree) {
  auto p = testing::parse(R"(
func @main(%x: tensor<f32, 2x3>) -> tensor<f32, 2x3> {
  %t1 = transpose %x perm[1, 0] -> tensor<f32, 3x2>
  %t2 = transpose %t1 perm[1, 0] -> tensor<f32, 2x3>
  return %t2
}
)");
  PatternSet s;
  populate_seed_patterns(s);
  FrozenPatternSet set = std::move(s).freeze();
  ProgramRewriter rw(*p);
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  DebugLogger log(rw, mem);
  rw.add_listener(&log);
  apply_patterns_and_fold_greedily(rw, set, GreedyConfig{.expensive_checks = false});
  std::fclose(mem);
  std::string out(buf, len);
  std::free(buf);
  const char* want =
      "//===-------------------------------------------===//\n"
      "Processing operation : 'transpose'(inst 1) {\n"
      "  %t2 = transpose %t1 perm[1, 0] -> tensor<f32, 2x3>\n"
      "\n"
      "  * Pattern fold_transpose_pair : 'transpose' {\n"
      "    ** Replace : 'transpose'(inst 1) with a parameter\n"
      "    ** Modified: 'return'(inst 2)  return %x\n"
      "    ** Erase   : 'transpose'(inst 1)\n"
      "  } -> success : pattern applied successfully\n"
      "} -> success : pattern matched\n"
      "//===-------------------------------------------===//\n"
      "//===-------------------------------------------===//\n"
      "Processing operation : 'transpose'(inst 0) {\n"
      "  %t1 = transpose %x perm[1, 0] -> tensor<f32, 3x2>\n"
      "\n"
      "  * Pattern dce : 'transpose' {\n"
      "    ** Erase   : 'transpose'(inst 0)\n"
      "  } -> success : pattern applied successfully\n"
      "} -> success : erased as dead\n";
  EXPECT_EQ(out.substr(0, std::string(want).size()), want) << out;
}

TEST(DebugLogger, ShowsWhyPatternsFailed) {
  auto p = testing::parse(R"(
func @main(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %y = add %x, dense<0.0> : tensor<f32, 2> -> tensor<f32, 2>
  return %y
}
)");
  PatternSet s;
  populate_seed_patterns(s);
  FrozenPatternSet set = std::move(s).freeze();
  ProgramRewriter rw(*p);
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  DebugLogger log(rw, mem);
  rw.add_listener(&log);
  apply_patterns_and_fold_greedily(rw, set, GreedyConfig{.expensive_checks = false});
  std::fclose(mem);
  std::string out(buf, len);
  std::free(buf);
  EXPECT_NE(out.find("  * Pattern fold_add_neg_zero : 'add' {\n"
                     "    ** Failure : neither operand is a splat of -0.0\n"
                     "  } -> failure : pattern failed to match\n"
                     "} -> failure : no pattern matched\n"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace ptir
