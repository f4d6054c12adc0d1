/// Verifier rules of the indexing family: take, gather, scatter_reduce, scatter_add (XLA scatter
/// dimension numbers), dynamic_slice and dynamic_update_slice.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::op_error;

TEST(VerifierIndex, TakeSelectsRowsOfAxisZero) {
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2x4>", "take %x, %i -> tensor<f32, 2x4x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 5>, %i: tensor<ui8>", "take %x, %i -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x2>, %i: tensor<si64, 0>", "take %x, %i -> tensor<f32, 0x2>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2>", "take %x, %i -> tensor<f32, 2>"),
            "take: result has type tensor<f32, 2>, expected tensor<f32, 2x3>");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<f32, 2>", "take %x, %i -> tensor<f32, 2x3>"),
            "take: operand 1 (idx) has dtype f32, expected an integer dtype");
  EXPECT_EQ(op_error("%x: tensor<f32>, %i: tensor<si32, 2>", "take %x, %i -> tensor<f32, 2>"),
            "take: operand 0 has type tensor<f32>, expected rank >= 1");
}

TEST(VerifierIndex, GatherHasTheIndexShape) {
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 2x3>", "gather %x, %i axis[0] -> tensor<f32, 2x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 4x7>", "gather %x, %i axis[1] -> tensor<f32, 4x7>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 0x3>", "gather %x, %i axis[0] -> tensor<f32, 0x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 2x4>", "gather %x, %i axis[0] -> tensor<f32, 2x4>"),
            "gather: operand 1 (idx) dim 1 has size 4, more than operand 0's 3");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 2>", "gather %x, %i axis[0] -> tensor<f32, 2>"),
            "gather: operand 1 (idx) has rank 1, expected 2 (the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 2x3>", "gather %x, %i axis[0] -> tensor<f32, 3x3>"),
            "gather: result has type tensor<f32, 3x3>, expected tensor<f32, 2x3>");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<i1, 2x3>", "gather %x, %i axis[0] -> tensor<f32, 2x3>"),
            "gather: operand 1 (idx) has dtype i1, expected an integer dtype");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 2x3>", "gather %x, %i axis[5] -> tensor<f32, 2x3>"),
            "gather: axis[5] is out of range for rank 2");
}

TEST(VerifierIndex, ScatterReduceWritesSrcAtIdx) {
  const char* p = "%x: tensor<f32, 4x3>, %i: tensor<si32, 2x3>, %s: tensor<f32, 2x3>";
  EXPECT_EQ(op_error(p, "scatter_reduce %x, %i, %s axis[0] reduce[add] -> tensor<f32, 4x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<i1, 2>, %i: tensor<si32, 1>, %s: tensor<i1, 1>",
                     "scatter_reduce %x, %i, %s axis[0] reduce[replace] -> tensor<i1, 2>"),
            "");
  EXPECT_EQ(op_error("%x: tensor<i1, 2>, %i: tensor<si32, 1>, %s: tensor<i1, 1>",
                     "scatter_reduce %x, %i, %s axis[0] reduce[max] -> tensor<i1, 2>"),
            "scatter_reduce: operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x3>, %i: tensor<si32, 2x3>, %s: tensor<f32, 3x3>",
                     "scatter_reduce %x, %i, %s axis[0] reduce[min] -> tensor<f32, 4x3>"),
            "scatter_reduce: operand 2 (src) has type tensor<f32, 3x3>, expected tensor<f32, 2x3> (the dims of idx, the "
            "dtype of operand 0)");
  EXPECT_EQ(op_error(p, "scatter_reduce %x, %i, %s axis[0] reduce[add] -> tensor<f32, 2x3>"),
            "scatter_reduce: operand 0 has type tensor<f32, 4x3>, expected tensor<f32, 2x3> (the result type)");
  EXPECT_EQ(op_error(p, "scatter_reduce %x, %i, %s axis[-1] reduce[add] -> tensor<f32, 4x3>"),
            "scatter_reduce: axis[-1] is out of range for rank 2");
}

TEST(VerifierIndex, ScatterAddFollowsXlaDimensionNumbers) {
  const char* p = "%x: tensor<f32, 5x3>, %i: tensor<si32, 2x1>, %u: tensor<f32, 2x3>";
  const char* dn = "update_window_dims[1] inserted_window_dims[0] scatter_dims_to_operand_dims[0]";
  auto stmt = [&](const std::string& dims, const std::string& ivd, const std::string& r) {
    return "scatter_add %x, %i, %u " + dims + " index_vector_dim[" + ivd + "] -> " + r;
  };
  EXPECT_EQ(op_error(p, stmt(dn, "1", "tensor<f32, 5x3>")), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2>, %u: tensor<f32, 2x3>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "");  // index_vector_dim == rank: an implicit trailing 1
  EXPECT_EQ(op_error("%x: tensor<f32>, %i: tensor<si32, 3x0>, %u: tensor<f32, 3>",
                     stmt("update_window_dims[] inserted_window_dims[] scatter_dims_to_operand_dims[]", "1",
                          "tensor<f32>")),
            "");
  EXPECT_EQ(op_error(p, stmt(dn, "3", "tensor<f32, 5x3>")),
            "scatter_add: index_vector_dim[3] is out of range [0, 2] for operand 1");
  EXPECT_EQ(op_error(p, stmt(dn, "-1", "tensor<f32, 5x3>")),
            "scatter_add: index_vector_dim[-1] is out of range [0, 2] for operand 1");
  EXPECT_EQ(op_error(p, stmt(dn, "0", "tensor<f32, 5x3>")),
            "scatter_add: scatter_dims_to_operand_dims has 1 entry, expected 2 (the size of index_vector_dim 0 of "
            "operand 1)");
  EXPECT_EQ(op_error(p, stmt("update_window_dims[1] inserted_window_dims[] scatter_dims_to_operand_dims[0]", "1",
                             "tensor<f32, 5x3>")),
            "scatter_add: update_window_dims and inserted_window_dims have 1 + 0 entries, expected 2 (the rank of "
            "operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2x1>, %u: tensor<f32, 2x4>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "scatter_add: operand 2 (updates) window dim 1 has size 4, more than operand 0 dim 1 of size 3");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2x1>, %u: tensor<f32, 7x3>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "scatter_add: operand 2 (updates) scatter dim 0 has size 7, expected 2 (dim 0 of operand 1)");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2x1>, %u: tensor<f32, 3>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "scatter_add: update_window_dims[1] has axis 1, out of range for rank 1");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2x1>, %u: tensor<f32, 2x3x1>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "scatter_add: operand 2 (updates) has rank 3, expected 2 (1 scatter dims + 1 update_window_dims)");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3x2>, %i: tensor<si32, 2x1>, %u: tensor<f32, 2x3x2>",
                     stmt("update_window_dims[2, 1] inserted_window_dims[0] scatter_dims_to_operand_dims[0]", "1",
                          "tensor<f32, 5x3x2>")),
            "scatter_add: update_window_dims[2, 1] must be sorted");
  EXPECT_EQ(op_error(p, stmt("update_window_dims[1] inserted_window_dims[0] scatter_dims_to_operand_dims[2]", "1",
                             "tensor<f32, 5x3>")),
            "scatter_add: scatter_dims_to_operand_dims[2] has axis 2, out of range for rank 2");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<f32, 2x1>, %u: tensor<f32, 2x3>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "scatter_add: operand 1 (indices) has dtype f32, expected an integer dtype");
  EXPECT_EQ(op_error("%x: tensor<f32, 5x3>, %i: tensor<si32, 2x1>, %u: tensor<f16, 2x3>",
                     stmt(dn, "1", "tensor<f32, 5x3>")),
            "scatter_add: operand 2 (updates) has dtype f16, expected f32 (the dtype of operand 0)");
  EXPECT_EQ(op_error(p, stmt(dn, "1", "tensor<f32, 3x5>")),
            "scatter_add: operand 0 has type tensor<f32, 5x3>, expected tensor<f32, 3x5> (the result type)");
}

TEST(VerifierIndex, DynamicSliceTakesAStartVectorAndAFittingWindow) {
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %s: tensor<si32, 2>", "dynamic_slice %x, %s -> tensor<f32, 2x5>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>, %s: tensor<si64, 0>", "dynamic_slice %x, %s -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %s: tensor<si32, 2>", "dynamic_slice %x, %s -> tensor<f32, 0x0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %s: tensor<si32, 2>", "dynamic_slice %x, %s -> tensor<f32, 2x6>"),
            "dynamic_slice: result dim 1 has size 6, more than operand 0's 5");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %s: tensor<ui32, 2>", "dynamic_slice %x, %s -> tensor<f32, 2x5>"),
            "dynamic_slice: operand 1 (start) has type tensor<ui32, 2>, expected a 1-D si32 or si64 tensor of length 2 "
            "(the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %s: tensor<si32, 3>", "dynamic_slice %x, %s -> tensor<f32, 2x5>"),
            "dynamic_slice: operand 1 (start) has type tensor<si32, 3>, expected a 1-D si32 or si64 tensor of length 2 "
            "(the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %s: tensor<si32, 2>", "dynamic_slice %x, %s -> tensor<f32, 5>"),
            "dynamic_slice: result has type tensor<f32, 5>, expected the dtype and rank of operand 0 (tensor<f32, 4x5>)");
}

TEST(VerifierIndex, DynamicUpdateSliceKeepsTheOperandType) {
  const char* p = "%x: tensor<f32, 4x5>, %u: tensor<f32, 2x5>, %s: tensor<si64, 2>";
  EXPECT_EQ(op_error(p, "dynamic_update_slice %x, %u, %s -> tensor<f32, 4x5>"), "");
  EXPECT_EQ(op_error("%x: tensor<si8>, %u: tensor<si8>, %s: tensor<si32, 0>",
                     "dynamic_update_slice %x, %u, %s -> tensor<si8>"),
            "");
  EXPECT_EQ(op_error(p, "dynamic_update_slice %x, %u, %s -> tensor<f32, 2x5>"),
            "dynamic_update_slice: operand 0 has type tensor<f32, 4x5>, expected tensor<f32, 2x5> (the result type)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %u: tensor<f32, 5x5>, %s: tensor<si64, 2>",
                     "dynamic_update_slice %x, %u, %s -> tensor<f32, 4x5>"),
            "dynamic_update_slice: operand 1 (update) dim 0 has size 5, more than operand 0's 4");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %u: tensor<f16, 2x5>, %s: tensor<si64, 2>",
                     "dynamic_update_slice %x, %u, %s -> tensor<f32, 4x5>"),
            "dynamic_update_slice: operand 1 (update) has type tensor<f16, 2x5>, expected the dtype and rank of operand "
            "0 (tensor<f32, 4x5>)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>, %u: tensor<f32, 2x5>, %s: tensor<si64, 2x1>",
                     "dynamic_update_slice %x, %u, %s -> tensor<f32, 4x5>"),
            "dynamic_update_slice: operand 2 (start) has type tensor<si64, 2x1>, expected a 1-D si32 or si64 tensor of "
            "length 2 (the rank of operand 0)");
}

}  // namespace
}  // namespace ptir
