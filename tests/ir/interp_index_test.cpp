// Indexing ops: take, gather, scatter_reduce (UB on out-of-range indices), scatter_add (XLA: windows
// that do not fit are skipped), dynamic_slice and dynamic_update_slice (starts clamped, never UB).
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

const char* kRows = "dense<[[1, 2], [3, 4], [5, 6]]> : tensor<si32, 3x2>";

/// take selects rows; the index tensor's dims come first.
TEST(InterpIndex, Take) {
  EXPECT_EQ(ok_bits(run_op("take %a, %b", "tensor<si32, 2x2>", {lit(kRows), lit("dense<[2, 0]> : tensor<si32, 2>")})),
            lit_bits("dense<[[5, 6], [1, 2]]> : tensor<si32, 2x2>"));
  EXPECT_EQ(ok_bits(run_op("take %a, %b", "tensor<si32, 2x1x2>", {lit(kRows), lit("dense<[[1], [1]]> : tensor<ui8, 2x1>")})),
            lit_bits("dense<[[[3, 4]], [[3, 4]]]> : tensor<si32, 2x1x2>"));
  EXPECT_EQ(ok_bits(run_op("take %a, %b", "tensor<si32, 0x2>", {lit(kRows), lit("dense<[]> : tensor<si64, 0>")})), (Bits{}));
}

/// take with an index outside [0, dims[0]) is UB: 3, -1, and a ui64 above INT64_MAX.
TEST(InterpIndex, TakeOutOfRangeIsUB) {
  for (const char* idx : {"dense<[0, 3]> : tensor<si32, 2>", "dense<[0, -1]> : tensor<si8, 2>",
                          "dense<[0, 18446744073709551615]> : tensor<ui64, 2>"}) {
    RunResult r = run_op("take %a, %b", "tensor<si32, 2x2>", {lit(kRows), lit(idx)});
    EXPECT_EQ(r.status, RunStatus::UB) << idx;
    EXPECT_NE(r.message.find("take"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("[1]"), std::string::npos) << r.message;
  }
}

/// gather along axis 1 (torch.gather); the index may be smaller than x on the other dims.
TEST(InterpIndex, Gather) {
  Tensor x = lit("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<si8, 2x3>");
  EXPECT_EQ(ok_bits(run_op("gather %a, %b axis[1]", "tensor<si8, 2x2>", {x, lit("dense<[[2, 0], [1, 1]]> : tensor<si32, 2x2>")})),
            lit_bits("dense<[[3, 1], [5, 5]]> : tensor<si8, 2x2>"));
  EXPECT_EQ(ok_bits(run_op("gather %a, %b axis[0]", "tensor<si8, 1x1>", {x, lit("dense<[[1]]> : tensor<si64, 1x1>")})), (Bits{4}));
  RunResult r = run_op("gather %a, %b axis[1]", "tensor<si8, 1x1>", {x, lit("dense<[[3]]> : tensor<si32, 1x1>")});
  EXPECT_EQ(r.status, RunStatus::UB);
}

/// scatter_reduce with duplicate indices, include_self: add/max/min combine; replace: last writer wins.
TEST(InterpIndex, ScatterReduce) {
  Tensor x = lit("dense<[5.0, 5.0, 5.0]> : tensor<f32, 3>");
  Tensor idx = lit("dense<[0, 2, 0]> : tensor<si32, 3>");
  Tensor src = lit("dense<[9.0, 7.0, 1.0]> : tensor<f32, 3>");
  auto run = [&](const char* red) {
    return ok_bits(run_op(std::string("scatter_reduce %a, %b, %c axis[0] reduce[") + red + "]", "tensor<f32, 3>", {x, idx, src}));
  };
  EXPECT_EQ(run("add"), lit_bits("dense<[15.0, 5.0, 12.0]> : tensor<f32, 3>"));
  EXPECT_EQ(run("max"), lit_bits("dense<[9.0, 5.0, 7.0]> : tensor<f32, 3>"));
  EXPECT_EQ(run("min"), lit_bits("dense<[1.0, 5.0, 5.0]> : tensor<f32, 3>"));
  EXPECT_EQ(run("replace"), lit_bits("dense<[1.0, 5.0, 7.0]> : tensor<f32, 3>"));
}

/// scatter_reduce adds are rounded in x's dtype one at a time: f16 2048 + 1 + 1 stays 2048.
TEST(InterpIndex, ScatterReduceRoundsEachStep) {
  EXPECT_EQ(ok_bits(run_op("scatter_reduce %a, %b, %c axis[0] reduce[add]", "tensor<f16, 1>",
                           {from_bits("tensor<f16, 1>", {0x6800}), lit("dense<[0, 0]> : tensor<si32, 2>"),
                            from_bits("tensor<f16, 2>", {0x3C00, 0x3C00})})),
            (Bits{0x6800}));
}

/// scatter_reduce in 2-D along axis 0, and its UB on an out-of-range index.
TEST(InterpIndex, ScatterReduce2DAndUB) {
  Tensor x = lit("dense<0> : tensor<si32, 2x2>");
  EXPECT_EQ(ok_bits(run_op("scatter_reduce %a, %b, %c axis[0] reduce[replace]", "tensor<si32, 2x2>",
                           {x, lit("dense<[[1, 0]]> : tensor<si32, 1x2>"), lit("dense<[[5, 6]]> : tensor<si32, 1x2>")})),
            lit_bits("dense<[[0, 6], [5, 0]]> : tensor<si32, 2x2>"));
  RunResult r = run_op("scatter_reduce %a, %b, %c axis[0] reduce[add]", "tensor<si32, 2x2>",
                       {x, lit("dense<[[1, 2]]> : tensor<si32, 1x2>"), lit("dense<[[5, 6]]> : tensor<si32, 1x2>")});
  EXPECT_EQ(r.status, RunStatus::UB);
}

constexpr const char* kScatterPoint =
    "scatter_add %a, %b, %c update_window_dims[] inserted_window_dims[0] scatter_dims_to_operand_dims[0] "
    "index_vector_dim[1]";

/// scatter_add of scalars: duplicates accumulate in update order; out-of-bounds updates are skipped.
TEST(InterpIndex, ScatterAddPoints) {
  Tensor x = lit("dense<0> : tensor<si32, 4>");
  Tensor upd = lit("dense<[10, 20, 30]> : tensor<si32, 3>");
  EXPECT_EQ(ok_bits(run_op(kScatterPoint, "tensor<si32, 4>", {x, lit("dense<[[1], [3], [1]]> : tensor<si32, 3x1>"), upd})),
            (Bits{0, 40, 0, 20}));
  EXPECT_EQ(ok_bits(run_op(kScatterPoint, "tensor<si32, 4>", {x, lit("dense<[[4], [-1], [0]]> : tensor<si32, 3x1>"), upd})),
            (Bits{30, 0, 0, 0}));
}

/// index_vector_dim equal to the indices' rank means one index per position.
TEST(InterpIndex, ScatterAddImplicitIndexVector) {
  EXPECT_EQ(ok_bits(run_op("scatter_add %a, %b, %c update_window_dims[] inserted_window_dims[0] "
                           "scatter_dims_to_operand_dims[0] index_vector_dim[1]",
                           "tensor<f32, 4>",
                           {lit("dense<1.0> : tensor<f32, 4>"), lit("dense<[1, 3]> : tensor<si64, 2>"),
                            lit("dense<[10.0, 20.0]> : tensor<f32, 2>")})),
            lit_bits("dense<[1.0, 11.0, 1.0, 21.0]> : tensor<f32, 4>"));
}

/// scatter_add with windows: a row update, and a window that does not fit is skipped entirely.
TEST(InterpIndex, ScatterAddWindows) {
  EXPECT_EQ(ok_bits(run_op("scatter_add %a, %b, %c update_window_dims[1] inserted_window_dims[0] "
                           "scatter_dims_to_operand_dims[0] index_vector_dim[1]",
                           "tensor<f32, 3x2>",
                           {lit("dense<0.0> : tensor<f32, 3x2>"), lit("dense<[[1]]> : tensor<si32, 1x1>"),
                            lit("dense<[[1.5, 2.5]]> : tensor<f32, 1x2>")})),
            lit_bits("dense<[[0.0, 0.0], [1.5, 2.5], [0.0, 0.0]]> : tensor<f32, 3x2>"));
  EXPECT_EQ(ok_bits(run_op("scatter_add %a, %b, %c update_window_dims[1] inserted_window_dims[] "
                           "scatter_dims_to_operand_dims[0] index_vector_dim[1]",
                           "tensor<si8, 4>",
                           {lit("dense<0> : tensor<si8, 4>"), lit("dense<[[3], [1]]> : tensor<si32, 2x1>"),
                            lit("dense<[[1, 2], [3, 4]]> : tensor<si8, 2x2>")})),
            (Bits{0, 3, 4, 0}));
}

/// dynamic_slice clamps the start into [0, dim - size]: 4 -> 3, -2 -> 0, a huge ui32 -> the top.
TEST(InterpIndex, DynamicSliceClamps) {
  Tensor x = lit("dense<[0, 1, 2, 3, 4, 5]> : tensor<si32, 6>");
  EXPECT_EQ(ok_bits(run_op("dynamic_slice %a, %b", "tensor<si32, 3>", {x, lit("dense<[4]> : tensor<si32, 1>")})), (Bits{3, 4, 5}));
  EXPECT_EQ(ok_bits(run_op("dynamic_slice %a, %b", "tensor<si32, 3>", {x, lit("dense<[-2]> : tensor<si64, 1>")})), (Bits{0, 1, 2}));
  EXPECT_EQ(ok_bits(run_op("dynamic_slice %a, %b", "tensor<si32, 2x1>",
                           {lit("dense<[[1, 2], [3, 4], [5, 6]]> : tensor<si32, 3x2>"), lit("dense<[1, 4294967295]> : tensor<ui32, 2>")})),
            (Bits{4, 6}));
  EXPECT_EQ(ok_bits(run_op("dynamic_slice %a, %b", "tensor<si32, 0>", {x, lit("dense<[9]> : tensor<si32, 1>")})), (Bits{}));
}

/// dynamic_update_slice clamps the same way and writes the window.
TEST(InterpIndex, DynamicUpdateSliceClamps) {
  Tensor x = lit("dense<[0, 0, 0, 0]> : tensor<si32, 4>");
  Tensor u = lit("dense<[7, 8]> : tensor<si32, 2>");
  EXPECT_EQ(ok_bits(run_op("dynamic_update_slice %a, %b, %c", "tensor<si32, 4>", {x, u, lit("dense<[3]> : tensor<si32, 1>")})),
            (Bits{0, 0, 7, 8}));
  EXPECT_EQ(ok_bits(run_op("dynamic_update_slice %a, %b, %c", "tensor<si32, 4>", {x, u, lit("dense<[-5]> : tensor<si32, 1>")})),
            (Bits{7, 8, 0, 0}));
  EXPECT_EQ(ok_bits(run_op("dynamic_update_slice %a, %b, %c", "tensor<f32>",
                           {lit("dense<1.0> : tensor<f32>"), lit("dense<-0.0> : tensor<f32>"), lit("dense<[]> : tensor<si32, 0>")})),
            (Bits{0x80000000}));
}

}  // namespace
}  // namespace ptir::test
