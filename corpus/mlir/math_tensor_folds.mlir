// math and tensor folders of MLIR 19: mlir/lib/Dialect/Math/IR/MathOps.cpp, mlir/lib/Dialect/Tensor/IR/TensorOps.cpp.
// Functions written for ptir.

// AbsFOp::fold: constant folding of |-0.0| and |-2.5|
func.func @absf_consts() -> tensor<2xf32> {
  %a = arith.constant dense<[-0.0, -2.5]> : tensor<2xf32>
  %r = math.absf %a : tensor<2xf32>
  return %r : tensor<2xf32>
}
// SqrtOp::fold: constant folding (correctly rounded)
func.func @sqrt_const() -> tensor<2xf32> {
  %a = arith.constant dense<[2.0, -0.0]> : tensor<2xf32>
  %r = math.sqrt %a : tensor<2xf32>
  return %r : tensor<2xf32>
}
// ExpOp::fold: constant folding with the host's libm
func.func @exp_const() -> tensor<f32> {
  %a = arith.constant dense<1.0> : tensor<f32>
  %r = math.exp %a : tensor<f32>
  return %r : tensor<f32>
}
// CollapseShapeOp / ExpandShapeOp folding: expand(collapse(x)) -> x
func.func @collapse_expand(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  return %e : tensor<2x3xf32>
}
// ExtractSliceOp::fold: a slice of the whole tensor
func.func @extract_full(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = tensor.extract_slice %x[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
// FoldInsertOfRangeOp-like: insert_slice of the whole destination -> the source
func.func @insert_full(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = tensor.insert_slice %y into %x[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
// ExtractSliceOp of an insert_slice at the same place -> the inserted tensor
func.func @extract_of_insert(%x: tensor<4x4xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %i = tensor.insert_slice %y into %x[1, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %s = tensor.extract_slice %i[1, 2] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
// ConcatOp::fold: a concat of one tensor
func.func @concat_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tensor.concat dim(0) %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
