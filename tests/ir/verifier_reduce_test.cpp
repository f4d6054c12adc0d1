/// Verifier rules of the reduction family: reductions with keepdims and accum, argmax, dot_general
/// batch/contract pairing and result dims, top_k's two results, segment_reduce.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::first_error;
using testing_verifier::op_error;

TEST(VerifierReduce, ReductionsDropOrKeepTheirAxes) {
  for (const char* op : {"reduce_sum", "reduce_max", "reduce_min"}) {
    SCOPED_TRACE(op);
    std::string m = op;
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3x4>", m + " %x axes[0, 2] -> tensor<f32, 3>"), "");
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3x4>", m + " %x axes[2, 0] keepdims[true] -> tensor<f32, 1x3x1>"), "");
    EXPECT_EQ(op_error("%x: tensor<f16, 0x3>", m + " %x axes[0] accum[f32] -> tensor<f16, 3>"), "");
    EXPECT_EQ(op_error("%x: tensor<si32>", m + " %x axes[] -> tensor<si32>"), "");
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", m + " %x axes[1] -> tensor<f32, 3>"),
              m + ": result has type tensor<f32, 3>, expected tensor<f32, 2>");
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", m + " %x axes[1] keepdims[true] -> tensor<f32, 2>"),
              m + ": result has type tensor<f32, 2>, expected tensor<f32, 2x1>");
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", m + " %x axes[1, 1] -> tensor<f32, 2>"),
              m + ": axes[1, 1] repeats axis 1");
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", m + " %x axes[2] -> tensor<f32, 2>"),
              m + ": axes[2] has axis 2, out of range for rank 2");
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", m + " %x axes[-1] -> tensor<f32, 2>"),
              m + ": axes[-1] has axis -1, out of range for rank 2");
    EXPECT_EQ(op_error("%x: tensor<i1, 2>", m + " %x axes[0] -> tensor<i1>"),
              m + ": operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
    EXPECT_EQ(op_error("%x: tensor<f32, 2>", m + " %x axes[0] accum[si32] -> tensor<f32>"),
              m + ": accum[si32] must be a float dtype like the element dtype f32");
  }
}

TEST(VerifierReduce, ArgmaxGivesAnIntegerIndexThatFits) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "argmax %x axis[1] -> tensor<si32, 2>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "argmax %x axis[0] keepdims[true] -> tensor<ui8, 1x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x3>", "argmax %x axis[0] -> tensor<si64, 3>"),
            "argmax: axis 0 has size 0, so there is no maximum for the non-empty result");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x0>", "argmax %x axis[0] -> tensor<si64, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x0>", "argmax %x axis[0] -> tensor<si64, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "argmax %x axis[1] -> tensor<f32, 2>"),
            "argmax: result has dtype f32, expected an integer dtype");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "argmax %x axis[1] -> tensor<si32, 3>"),
            "argmax: result has type tensor<si32, 3>, expected tensor<si32, 2>");
  EXPECT_EQ(op_error("%x: tensor<f32>", "argmax %x axis[0] -> tensor<si32>"), "argmax: axis[0] is out of range for rank 0");
  EXPECT_EQ(op_error("%x: tensor<f32, 300>", "argmax %x axis[0] -> tensor<si8>"),
            "argmax: result dtype si8 cannot hold index 299 exactly");
}

TEST(VerifierReduce, DotGeneralResultIsBatchThenLhsFreeThenRhsFree) {
  EXPECT_EQ(op_error("%a: tensor<f32, 2x3>, %b: tensor<f32, 3x4>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] -> tensor<f32, 2x4>"),
            "");
  EXPECT_EQ(op_error("%a: tensor<f32, 5x2x3>, %b: tensor<f32, 4x5x3>",
                     "dot_general %a, %b batch_lhs[0] batch_rhs[1] contract_lhs[2] contract_rhs[2] -> tensor<f32, 5x2x4>"),
            "");
  EXPECT_EQ(op_error("%a: tensor<bf16, 2>, %b: tensor<bf16, 3>",
                     "dot_general %a, %b contract_lhs[] contract_rhs[] accum[f32] -> tensor<bf16, 2x3>"),
            "");
  EXPECT_EQ(op_error("%a: tensor<si8, 0x3>, %b: tensor<si8, 3>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] accum[si32] -> tensor<si8, 0>"),
            "");
  EXPECT_EQ(op_error("%a: tensor<f32, 2x4>, %b: tensor<f32, 5x3>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] -> tensor<f32, 2x3>"),
            "dot_general: contracting dims lhs[1]=4 and rhs[0]=5 differ");
  EXPECT_EQ(op_error("%a: tensor<f32, 2x3>, %b: tensor<f32, 4x3>",
                     "dot_general %a, %b batch_lhs[0] batch_rhs[0] contract_lhs[1] contract_rhs[1] -> tensor<f32, 2>"),
            "dot_general: batch dims lhs[0]=2 and rhs[0]=4 differ");
  EXPECT_EQ(op_error("%a: tensor<f32, 2x3>, %b: tensor<f32, 3x4>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] -> tensor<f32, 4x2>"),
            "dot_general: result has type tensor<f32, 4x2>, expected tensor<f32, 2x4>");
  EXPECT_EQ(op_error("%a: tensor<f32, 2x3>, %b: tensor<f32, 3x4>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0, 1] -> tensor<f32, 2>"),
            "dot_general: contract_lhs[1] and contract_rhs[0, 1] have different lengths");
  EXPECT_EQ(op_error("%a: tensor<f32, 2x3>, %b: tensor<f32, 3x4>",
                     "dot_general %a, %b contract_lhs[2] contract_rhs[0] -> tensor<f32, 2x4>"),
            "dot_general: contract_lhs[2] has axis 2, out of range for rank 2");
  EXPECT_EQ(op_error("%a: tensor<f32, 3x3>, %b: tensor<f32, 3x3>",
                     "dot_general %a, %b batch_lhs[0] batch_rhs[1] contract_lhs[0] contract_rhs[0] -> tensor<f32, 3x3>"),
            "dot_general: lhs dim 0 is both a batch and a contracting dim");
  EXPECT_EQ(op_error("%a: tensor<f32, 2x3>, %b: tensor<f16, 3x4>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] -> tensor<f32, 2x4>"),
            "dot_general: operand 1 has dtype f16, expected f32 (the result dtype)");
  EXPECT_EQ(op_error("%a: tensor<i1, 2x3>, %b: tensor<i1, 3x4>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] -> tensor<i1, 2x4>"),
            "dot_general: operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
  EXPECT_EQ(op_error("%a: tensor<si32, 2x3>, %b: tensor<si32, 3x4>",
                     "dot_general %a, %b contract_lhs[1] contract_rhs[0] accum[i1] -> tensor<si32, 2x4>"),
            "dot_general: accum[i1] must be an integer dtype like the element dtype si32");
}

TEST(VerifierReduce, TopKHasValuesAndIndicesOfSizeK) {
  const char* text = R"(
func @f(%x: tensor<f32, 2x5>) -> (tensor<f32, 2x3>, tensor<si32, 2x3>) {
  %v, %i = top_k %x k[3] -> (tensor<f32, 2x3>, tensor<si32, 2x3>)
  return %v, %i
})";
  EXPECT_EQ(first_error(text), "");
  auto top_k = [](const std::string& x, const std::string& attrs, const std::string& v, const std::string& i) {
    return first_error("func @f(%x: " + x + ") -> (" + v + ", " + i + ") {\n  %v, %i = top_k %x " + attrs + " -> (" +
                       v + ", " + i + ")\n  return %v, %i\n}\n");
  };
  EXPECT_EQ(top_k("tensor<f32, 4x2>", "k[1] axis[0] largest[false]", "tensor<f32, 1x2>", "tensor<ui8, 1x2>"), "");
  EXPECT_EQ(top_k("tensor<f32, 0>", "k[0]", "tensor<f32, 0>", "tensor<si32, 0>"), "");
  EXPECT_EQ(top_k("tensor<f32, 2x5>", "k[6]", "tensor<f32, 2x6>", "tensor<si32, 2x6>"),
            "top_k: k[6] is larger than dim 1 of size 5");
  EXPECT_EQ(top_k("tensor<f32, 2x5>", "k[-1]", "tensor<f32, 2x5>", "tensor<si32, 2x5>"), "top_k: k[-1] must be >= 0");
  EXPECT_EQ(top_k("tensor<f32, 2x5>", "k[3]", "tensor<f32, 3x3>", "tensor<si32, 2x3>"),
            "top_k: result 0 has type tensor<f32, 3x3>, expected tensor<f32, 2x3>");
  EXPECT_EQ(top_k("tensor<f32, 2x5>", "k[3]", "tensor<f32, 2x3>", "tensor<f32, 2x3>"),
            "top_k: result 1 (indices) has dtype f32, expected an integer dtype");
  EXPECT_EQ(top_k("tensor<f32, 2x5>", "k[3]", "tensor<f32, 2x3>", "tensor<si32, 2x2>"),
            "top_k: result 1 has type tensor<si32, 2x2>, expected tensor<si32, 2x3>");
  EXPECT_EQ(top_k("tensor<f32, 2x5>", "k[3] axis[2]", "tensor<f32, 2x3>", "tensor<si32, 2x3>"),
            "top_k: axis[2] is out of range for rank 2");
  EXPECT_EQ(top_k("tensor<f32>", "k[0]", "tensor<f32>", "tensor<si32>"),
            "top_k: operand 0 has type tensor<f32>, expected rank >= 1");
}

TEST(VerifierReduce, SegmentReduceHasNumSegmentsRows) {
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %s: tensor<si32, 4>", "segment_reduce %x, %s kind[sum] num_segments[2] -> tensor<f32, 2x3>"),
            "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0>, %s: tensor<ui8, 0>", "segment_reduce %x, %s kind[max] num_segments[0] -> tensor<f32, 0>"),
            "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %s: tensor<si32, 3>", "segment_reduce %x, %s kind[sum] num_segments[2] -> tensor<f32, 2x3>"),
            "segment_reduce: operand 1 (segment_ids) has type tensor<si32, 3>, expected a 1-D integer tensor of length 4 "
            "(dim 0 of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %s: tensor<f32, 4>", "segment_reduce %x, %s kind[sum] num_segments[2] -> tensor<f32, 2x3>"),
            "segment_reduce: operand 1 (segment_ids) has type tensor<f32, 4>, expected a 1-D integer tensor of length 4 "
            "(dim 0 of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %s: tensor<si32, 4>", "segment_reduce %x, %s kind[sum] num_segments[3] -> tensor<f32, 2x3>"),
            "segment_reduce: result has type tensor<f32, 2x3>, expected tensor<f32, 3x3>");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %s: tensor<si32, 4>", "segment_reduce %x, %s kind[sum] num_segments[-2] -> tensor<f32, 2x3>"),
            "segment_reduce: num_segments[-2] must be >= 0");
  EXPECT_EQ(op_error("%x: tensor<f32>, %s: tensor<si32, 1>", "segment_reduce %x, %s kind[sum] num_segments[1] -> tensor<f32, 1>"),
            "segment_reduce: operand 0 has type tensor<f32>, expected rank >= 1");
  EXPECT_EQ(op_error("%x: tensor<i1, 4>, %s: tensor<si32, 4>", "segment_reduce %x, %s kind[max] num_segments[1] -> tensor<i1, 1>"),
            "segment_reduce: operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
}

}  // namespace
}  // namespace ptir
