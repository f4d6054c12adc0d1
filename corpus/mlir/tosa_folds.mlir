// TOSA folders and canonicalization patterns of MLIR 19, mlir/lib/Dialect/Tosa/IR/TosaCanonicalizations.cpp
// (functions written for ptir; `ptir tv FILE -- mlir-opt-19 --canonicalize`, docs/mlir.md "Corpus").

// AddOp::fold: x + splat 0 -> x (wrong at x = -0.0: issue 18)
func.func @add_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// AddOp::fold with the zero on the left
func.func @zero_add(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.add %z, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// AddOp::fold: x + splat -0.0 (the identity of IEEE addition)
func.func @add_negzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<-0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// SubOp::fold: x - splat 0 -> x
func.func @sub_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.sub %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// SubOp::fold: x - splat -0.0 -> x (found by the random campaign: wrong at x = -0.0, IEEE gives +0.0)
func.func @sub_negzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<-0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.sub %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// MulOp::fold: x * splat 1 -> x
func.func @mul_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %o = "tosa.const"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.mul %x, %o {shift = 0 : i8} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// MulOp::fold: x * splat 0
func.func @mul_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.mul %x, %z {shift = 0 : i8} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// AddOp::fold constant folding of two splats (APFloat addition)
func.func @add_consts() -> tensor<4xf32> {
  %a = "tosa.const"() {value = dense<1.0e-8> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = "tosa.const"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// ReshapeOp::fold / canonicalization: reshape of a reshape becomes one reshape; identity reshape removed
func.func @reshape_reshape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tosa.reshape %x {new_shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = tosa.reshape %a {new_shape = array<i64: 3, 2>} : (tensor<6xf32>) -> tensor<3x2xf32>
  %c = tosa.reshape %b {new_shape = array<i64: 2, 3>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}
// TransposeOp::fold: identity permutation
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = "tosa.const"() {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %r = tosa.transpose %x, %p : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
// ConsolidateTransposeOptimization: transpose of a transpose becomes one transpose
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %p = "tosa.const"() {value = dense<[1, 2, 0]> : tensor<3xi32>} : () -> tensor<3xi32>
  %q = "tosa.const"() {value = dense<[1, 0, 2]> : tensor<3xi32>} : () -> tensor<3xi32>
  %a = tosa.transpose %x, %p : (tensor<2x3x4xf32>, tensor<3xi32>) -> tensor<3x4x2xf32>
  %b = tosa.transpose %a, %q : (tensor<3x4x2xf32>, tensor<3xi32>) -> tensor<4x3x2xf32>
  %r = tosa.transpose %b, %q : (tensor<4x3x2xf32>, tensor<3xi32>) -> tensor<3x4x2xf32>
  %s = tosa.transpose %r, %q : (tensor<3x4x2xf32>, tensor<3xi32>) -> tensor<4x3x2xf32>
  %t = "tosa.const"() {value = dense<[0, 2, 1]> : tensor<3xi32>} : () -> tensor<3xi32>
  %u = tosa.transpose %s, %t : (tensor<4x3x2xf32>, tensor<3xi32>) -> tensor<4x2x3xf32>
  return %u : tensor<4x2x3xf32>
}
// SliceOp::fold: a slice of the whole tensor
func.func @slice_full(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tosa.slice %x {start = array<i64: 0, 0>, size = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
// TileOp::fold: multiples all 1
func.func @tile_ones(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tosa.tile %x {multiples = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
// SelectOp::fold: equal branches
func.func @select_same(%c: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.select %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// SelectOp::fold: a constant predicate
func.func @select_true(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = "tosa.const"() {value = dense<true> : tensor<4xi1>} : () -> tensor<4xi1>
  %r = tosa.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// EqualOp::fold: x == x (true only when x is not NaN)
func.func @equal_self(%x: tensor<4xf32>) -> tensor<4xi1> {
  %r = tosa.equal %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}
// EqualOp::fold on integers: x == x -> true
func.func @equal_self_int(%x: tensor<4xi32>) -> tensor<4xi1> {
  %r = tosa.equal %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}
// GreaterOp / GreaterEqualOp::fold of constants
func.func @greater_consts() -> tensor<2xi1> {
  %a = "tosa.const"() {value = dense<[-0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "tosa.const"() {value = dense<[0.0, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %r = tosa.greater_equal %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}
// ConcatOp canonicalization: a concat of a concat along the same axis is one concat
func.func @concat_concat(%x: tensor<1x2xf32>, %y: tensor<1x2xf32>) -> tensor<3x2xf32> {
  %a = tosa.concat %x, %y {axis = 0 : i32} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %b = tosa.concat %a, %x {axis = 0 : i32} : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %b : tensor<3x2xf32>
}
