// Random inputs: deterministic from the seed, edge values included, and in-range indices and safe divisors
// for parameters that feed take/gather/scatter_reduce/segment_reduce indices and integer div directly.
#include <cmath>
#include <set>

#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

/// The same seed gives the same tensor; another seed gives another.
TEST(InterpRandom, Deterministic) {
  TensorType t{DType::F32, {64}};
  EXPECT_EQ(bits(random_tensor(t, 42)), bits(random_tensor(t, 42)));
  EXPECT_NE(bits(random_tensor(t, 42)), bits(random_tensor(t, 43)));
}

/// With a high edge bias every float edge value shows up: ±0, ±inf, NaN, subnormal extremes, ±1, max.
TEST(InterpRandom, FloatEdgeValues) {
  const Bits all = bits(random_tensor(TensorType{DType::F16, {4000}}, 1, 0.9));
  const std::set<uint64_t> seen(all.begin(), all.end());
  for (uint64_t e : Bits{0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x03FF, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF})
    EXPECT_TRUE(seen.count(e)) << std::hex << e;
}

/// Integer edges: 0, ±1, MIN, MAX.
TEST(InterpRandom, IntegerEdgeValues) {
  const Bits all = bits(random_tensor(TensorType{DType::SI32, {4000}}, 2, 0.9));
  const std::set<uint64_t> seen(all.begin(), all.end());
  for (uint64_t e : Bits{0x0, 0x1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF}) EXPECT_TRUE(seen.count(e)) << std::hex << e;
  Tensor b = random_tensor(TensorType{DType::I1, {100}}, 3);
  for (uint64_t v : bits(b)) EXPECT_LE(v, 1u);
}

/// random_inputs gives one tensor per parameter with its type.
TEST(InterpRandom, InputsMatchParameters) {
  ParseResult pr = parse_program("func @main(%a: tensor<bf16, 2x3>, %b: tensor<ui64>) -> tensor<ui64> {\n return %b\n}\n");
  ASSERT_TRUE(pr.ok()) << pr.error;
  std::vector<Tensor> in = random_inputs(*pr.program, pr.program->entry(), 9);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(to_string(in[0].type), "tensor<bf16, 2x3>");
  EXPECT_EQ(to_string(in[1].type), "tensor<ui64>");
}

/// Index parameters get in-range values and divisors avoid 0 and -1: the program runs without UB.
TEST(InterpRandom, AvoidingUB) {
  ParseResult pr = parse_program(R"(
func @main(%x: tensor<f32, 5x2>, %i: tensor<si32, 7>, %g: tensor<si64, 5x2>, %s: tensor<ui8, 5>,
           %n: tensor<si8, 16>, %d: tensor<si8, 16>, %st: tensor<si32, 2>) -> (tensor<f32, 7x2>, tensor<f32, 5x2>, tensor<f32, 3x2>, tensor<si8, 16>, tensor<f32, 2x1>) {
  %t = take %x, %i -> tensor<f32, 7x2>
  %h = gather %x, %g axis[1] -> tensor<f32, 5x2>
  %r = segment_reduce %x, %s kind[sum] num_segments[3] -> tensor<f32, 3x2>
  %q = div %n, %d -> tensor<si8, 16>
  %y = dynamic_slice %x, %st -> tensor<f32, 2x1>
  return %t, %h, %r, %q, %y
}
)");
  ASSERT_TRUE(pr.ok()) << pr.error;
  const Program& p = *pr.program;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::vector<Tensor> in = random_inputs_avoiding_ub(p, p.entry(), seed);
    RunResult r = run_program(p, in);
    ASSERT_EQ(r.status, RunStatus::Ok) << "seed " << seed << ": " << r.message;
    for (int64_t k = 0; k < 2; ++k) EXPECT_LE(in[6].as_int(k), k == 0 ? 3 : 1);
  }
}

}  // namespace
}  // namespace ptir::test
