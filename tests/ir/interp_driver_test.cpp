// The interpreter's driver: opaque kernels, eval_inst, input checking, returns, and programs the verifier
// would reject (wrong shapes, bad attributes) giving RunStatus::Error instead of crashing.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

/// custom_call without a registered kernel reports "no kernel for TARGET".
TEST(InterpDriver, OpaqueWithoutKernel) {
  RunResult r = run_op("custom_call %a target[\"ns.twice.v1\"]", "tensor<f32, 2>", {lit("dense<1.0> : tensor<f32, 2>")});
  EXPECT_EQ(r.status, RunStatus::Error);
  EXPECT_NE(r.message.find("no kernel for ns.twice.v1"), std::string::npos) << r.message;
  r = run_op("quantize %a, %b, %c", "tensor<si8, 2>",
             {lit("dense<1.0> : tensor<f32, 2>"), lit("dense<0.5> : tensor<f32>"), lit("dense<0> : tensor<si8>")});
  EXPECT_NE(r.message.find("no kernel for quantize"), std::string::npos) << r.message;
}

/// Registered kernels run by target (custom_call) or mnemonic (quantize) and see the attributes.
TEST(InterpDriver, OpaqueWithKernel) {
  KernelRegistry reg;
  reg.add("ns.twice.v1", [](std::span<const Tensor> args, const AttrSet& attrs, std::span<const TensorType> types,
                            std::vector<Tensor>& results, std::string& error) {
    Tensor out(types[0]);
    const int64_t factor = attrs.int_or("factor", 2);
    for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, static_cast<uint64_t>(args[0].as_int(i) * factor));
    results.push_back(out);
    return true;
  });
  reg.add("quantize", [](std::span<const Tensor>, const AttrSet&, std::span<const TensorType> types,
                         std::vector<Tensor>& results, std::string& error) {
    error = "scale must be positive";
    return false;
  });
  InterpOptions opts{.kernels = &reg};
  RunResult r = run_op("custom_call %a target[\"ns.twice.v1\"] factor[3]", "tensor<si32, 2>",
                       {lit("dense<[1, 5]> : tensor<si32, 2>")}, opts);
  EXPECT_EQ(ok_bits(r), (Bits{3, 15}));
  r = run_op("quantize %a, %b, %c", "tensor<si8, 2>",
             {lit("dense<1.0> : tensor<f32, 2>"), lit("dense<0.5> : tensor<f32>"), lit("dense<0> : tensor<si8>")}, opts);
  EXPECT_EQ(r.status, RunStatus::Error);
  EXPECT_NE(r.message.find("scale must be positive"), std::string::npos) << r.message;
}

/// A kernel returning the wrong type is caught.
TEST(InterpDriver, OpaqueKernelWrongType) {
  KernelRegistry reg;
  reg.add("ns.bad.v1", [](std::span<const Tensor>, const AttrSet&, std::span<const TensorType>,
                          std::vector<Tensor>& results, std::string&) {
    results.emplace_back(TensorType{DType::F64, {7}});
    return true;
  });
  RunResult r = run_op("custom_call %a target[\"ns.bad.v1\"]", "tensor<f32, 2>", {lit("dense<1.0> : tensor<f32, 2>")},
                       {.kernels = &reg});
  EXPECT_EQ(r.status, RunStatus::Error);
}

/// eval_inst computes one instruction from given operand values, and checks them.
TEST(InterpDriver, EvalInst) {
  ParseResult pr = parse_program(R"(
func @main(%a: tensor<si32, 2>, %b: tensor<si32, 2>) -> tensor<si32, 2> {
  %r = sub %a, %b -> tensor<si32, 2>
  return %r
}
)");
  ASSERT_TRUE(pr.ok()) << pr.error;
  const Program& p = *pr.program;
  InstId sub = p.body(p.entry()).first;
  std::vector<Tensor> ops{lit("dense<[5, -1]> : tensor<si32, 2>"), lit("dense<[7, 1]> : tensor<si32, 2>")};
  RunResult r = eval_inst(p, sub, ops);
  EXPECT_EQ(ok_bits(r), (Bits{0xFFFFFFFE, 0xFFFFFFFE}));
  EXPECT_EQ(eval_inst(p, sub, std::span<const Tensor>(ops.data(), 1)).status, RunStatus::Error);
  ops[1] = lit("dense<[7, 1]> : tensor<si64, 2>");
  EXPECT_EQ(eval_inst(p, sub, ops).status, RunStatus::Error);
}

/// run_body checks the number and types of inputs; it also runs a region directly.
TEST(InterpDriver, InputsAreChecked) {
  ParseResult pr = parse_program(R"(
region ^sq(%a: tensor<f32>) -> tensor<f32> {
  %r = mul %a, %a -> tensor<f32>
  return %r
}
func @main(%a: tensor<f32>) -> tensor<f32> {
  return %a
}
)");
  ASSERT_TRUE(pr.ok()) << pr.error;
  const Program& p = *pr.program;
  std::vector<Tensor> none;
  EXPECT_EQ(run_program(p, none).status, RunStatus::Error);
  Tensor wrong = lit("dense<1.0> : tensor<f64>");
  EXPECT_EQ(run_program(p, std::span<const Tensor>(&wrong, 1)).status, RunStatus::Error);
  Tensor three = lit("dense<3.0> : tensor<f32>");
  EXPECT_EQ(ok_bits(run_body(p, p.find_body("sq", true), std::span<const Tensor>(&three, 1))), (Bits{0x41100000}));
}

/// A body may return a parameter, a literal, and the same value twice.
TEST(InterpDriver, Returns) {
  RunResult r = run_text(R"(
func @main(%a: tensor<si8>) -> (tensor<si8>, tensor<si8>, tensor<si8>, tensor<si8>) {
  %n = neg %a -> tensor<si8>
  return %a, %n, %n, dense<9> : tensor<si8>
}
)", {lit("dense<4> : tensor<si8>")});
  EXPECT_EQ(ok_bits(r, 0), (Bits{4}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{0xFC}));
  EXPECT_EQ(ok_bits(r, 2), (Bits{0xFC}));
  EXPECT_EQ(ok_bits(r, 3), (Bits{9}));
}

/// The function's inputs are read in place, not copied into its frame: a parameter returned twice, used
/// after its last use elsewhere and as a splat gives the same results as before, the caller's tensors are
/// untouched (a splat stays one), and the memory budget still counts them.
TEST(InterpDriver, InputsAreReadInPlace) {
  const char* text = R"(
func @main(%a: tensor<f32, 4>, %b: tensor<f32, 4>) -> (tensor<f32, 4>, tensor<f32, 4>, tensor<f32, 4>) {
  %s = add %a, %b -> tensor<f32, 4>
  return %b, %s, %b
}
)";
  std::vector<Tensor> in{lit("dense<[1.0, 2.0, 3.0, 4.0]> : tensor<f32, 4>"), Tensor::filled(TensorType{DType::F32, {4}}, 0x3F800000)};
  ASSERT_TRUE(in[1].splat);
  const std::vector<Tensor> before = in;
  RunResult r = run_text(text, in);
  EXPECT_EQ(ok_bits(r, 0), (Bits{0x3F800000, 0x3F800000, 0x3F800000, 0x3F800000}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{0x40000000, 0x40400000, 0x40800000, 0x40A00000}));
  EXPECT_EQ(ok_bits(r, 2), ok_bits(r, 0));
  ASSERT_EQ(in.size(), before.size());
  for (size_t k = 0; k < in.size(); ++k) {
    EXPECT_TRUE(in[k] == before[k]);
    EXPECT_EQ(in[k].splat, before[k].splat);
  }
  // 16 bytes of %a held from the start: a budget below the inputs and the sum stops the run.
  RunResult small = run_text(text, in, {.max_bytes = 20});
  EXPECT_EQ(small.status, RunStatus::Error) << small.message;
  EXPECT_NE(small.message.find("memory budget"), std::string::npos) << small.message;
}

/// Programs the verifier rejects give RunStatus::Error, never an out-of-bounds read.
TEST(InterpDriver, MalformedProgramsAreErrors) {
  struct Case { const char* stmt; const char* result; std::vector<const char*> inputs; };
  const std::vector<Case> cases = {
      {"add %a, %b", "tensor<f32, 3>", {"dense<1.0> : tensor<f32, 2>", "dense<1.0> : tensor<f32, 3>"}},
      {"transpose %a perm[0, 0]", "tensor<f32, 2x2>", {"dense<1.0> : tensor<f32, 2x2>"}},
      {"reshape %a", "tensor<f32, 5>", {"dense<1.0> : tensor<f32, 2x2>"}},
      {"slice %a starts[2]", "tensor<f32, 2>", {"dense<1.0> : tensor<f32, 3>"}},
      {"take %a, %b", "tensor<f32, 2>", {"dense<1.0> : tensor<f32, 3>", "dense<1.0> : tensor<f32, 2>"}},
      {"broadcast_to %a", "tensor<f32, 3>", {"dense<1.0> : tensor<f32, 2>"}},
      {"reduce_sum %a axes[1]", "tensor<f32>", {"dense<1.0> : tensor<f32, 2>"}},
      {"dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<f32>", {"dense<1.0> : tensor<f32, 2>", "dense<1.0> : tensor<f32, 3>"}},
      {"gather %a, %b axis[0]", "tensor<f32, 4>", {"dense<1.0> : tensor<f32, 3>", "dense<0> : tensor<si32, 4x1>"}},
      {"concat %a, %b axis[0]", "tensor<f32, 9>", {"dense<1.0> : tensor<f32, 2>", "dense<1.0> : tensor<f32, 3>"}},
      {"pad %a low[1] high[1]", "tensor<f32, 3>", {"dense<1.0> : tensor<f32, 2>"}},
      {"extract_patches %a window[3]", "tensor<f32, 1x3>", {"dense<1.0> : tensor<f32, 2>"}},
      {"reduce_window %a kind[sum] window[0]", "tensor<f32, 3>", {"dense<1.0> : tensor<f32, 2>"}},
      {"dynamic_slice %a, %b", "tensor<f32, 4>", {"dense<1.0> : tensor<f32, 3>", "dense<0> : tensor<si32, 1>"}},
      {"scatter_add %a, %b, %c update_window_dims[] inserted_window_dims[0] scatter_dims_to_operand_dims[0] "
       "index_vector_dim[1]", "tensor<f32, 4>", {"dense<1.0> : tensor<f32, 4>", "dense<0> : tensor<si32, 2x1>", "dense<1.0> : tensor<f32, 3>"}},
      {"segment_reduce %a, %b kind[sum] num_segments[2]", "tensor<f32, 2>", {"dense<1.0> : tensor<f32, 3>", "dense<0> : tensor<si32, 2>"}},
      {"iota axis[3]", "tensor<f32, 2>", {}},
      {"sqrt %a", "tensor<si32, 2>", {"dense<4> : tensor<si32, 2>"}},
      {"rng_normal seed[1]", "tensor<si8, 2>", {}},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> in;
    for (const char* t : c.inputs) in.push_back(lit(t));
    RunResult r = run_op(c.stmt, c.result, in);
    EXPECT_EQ(r.status, RunStatus::Error) << c.stmt << ": " << r.message;
    EXPECT_FALSE(r.message.empty()) << c.stmt;
  }
}

}  // namespace
}  // namespace ptir::test
