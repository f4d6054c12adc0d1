// TOSA folders and canonicalization patterns of MLIR 19 over the ops ptir imports since issue 18's second
// step (negate, abs, maximum/minimum, clamp, integer reduce_max/min, cast), from
// mlir/lib/Dialect/Tosa/IR/TosaCanonicalizations.cpp (functions written for ptir; docs/mlir.md "Corpus").

// NegateOp::fold: negate(negate(x)) -> x (floats: a double sign flip)
func.func @negate_negate(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tosa.negate %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.negate %a : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
// ClampIsNoOp: an integer clamp to the whole type range -> x
func.func @clamp_noop_int(%x: tensor<4xi8>) -> tensor<4xi8> {
  %r = tosa.clamp %x {min_int = -128 : i64, max_int = 127 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32} : (tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}
// ClampIsNoOp: a float clamp to [-inf, +inf] -> x (NaN passes either way)
func.func @clamp_noop_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.clamp %x {min_int = -128 : i64, max_int = 127 : i64, min_fp = 0xFF800000 : f32, max_fp = 0x7F800000 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// ClampClampOptimization: two nested clamps -> one with the intersected bounds
func.func @clamp_clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tosa.clamp %x {min_int = 0 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.clamp %a {min_int = 0 : i64, max_int = 1 : i64, min_fp = -0.5 : f32, max_fp = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
// ClampClampOptimization with disjoint ranges: the merged clamp has min_fp 2.0 above max_fp 1.0, where the
// TOSA specification (max first: 1.0) and MLIR 19's lowering (min first: 2.0) differ; ptir refuses it
func.func @clamp_clamp_disjoint(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tosa.clamp %x {min_int = 0 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.clamp %a {min_int = 0 : i64, max_int = 1 : i64, min_fp = 2.0 : f32, max_fp = 3.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
// ClampClampOptimization on integers
func.func @clamp_clamp_int(%x: tensor<4xi16>) -> tensor<4xi16> {
  %a = tosa.clamp %x {min_int = -5 : i64, max_int = 10 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32} : (tensor<4xi16>) -> tensor<4xi16>
  %b = tosa.clamp %a {min_int = 0 : i64, max_int = 20 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32} : (tensor<4xi16>) -> tensor<4xi16>
  return %b : tensor<4xi16>
}
// ReduceMaxOp::fold: a size-1 axis -> x
func.func @reduce_max_unit_axis(%x: tensor<1x3xi8>) -> tensor<1x3xi8> {
  %r = tosa.reduce_max %x {axis = 0 : i32} : (tensor<1x3xi8>) -> tensor<1x3xi8>
  return %r : tensor<1x3xi8>
}
// ReduceMinOp::fold: a size-1 axis -> x
func.func @reduce_min_unit_axis(%x: tensor<3x1xi32>) -> tensor<3x1xi32> {
  %r = tosa.reduce_min %x {axis = 1 : i32} : (tensor<3x1xi32>) -> tensor<3x1xi32>
  return %r : tensor<3x1xi32>
}
// CastOp::fold: a cast to the same type -> x
func.func @cast_same(%x: tensor<4xi16>) -> tensor<4xi16> {
  %r = tosa.cast %x : (tensor<4xi16>) -> tensor<4xi16>
  return %r : tensor<4xi16>
}
// CastOp::fold of a splat integer constant, narrowing (wraps: 300 -> 44)
func.func @cast_const_narrow() -> tensor<3xi8> {
  %c = "tosa.const"() {value = dense<300> : tensor<3xi32>} : () -> tensor<3xi32>
  %a = tosa.cast %c : (tensor<3xi32>) -> tensor<3xi8>
  return %a : tensor<3xi8>
}
// CastOp::fold of a splat float constant to f16 (65520.0 rounds to +inf)
func.func @cast_const_f16() -> tensor<3xf16> {
  %c = "tosa.const"() {value = dense<65520.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %a = tosa.cast %c : (tensor<3xf32>) -> tensor<3xf16>
  return %a : tensor<3xf16>
}
// CastOp::fold of a splat -0.0 to i1 (false: -0.0 is zero)
func.func @cast_const_bool() -> tensor<3xi1> {
  %c = "tosa.const"() {value = dense<-0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %a = tosa.cast %c : (tensor<3xf32>) -> tensor<3xi1>
  return %a : tensor<3xi1>
}
// CastOp::fold of a splat i32 constant to f32 (2^24 + 1 rounds to even: 2^24)
func.func @cast_const_int_float() -> tensor<2xf32> {
  %c = "tosa.const"() {value = dense<16777217> : tensor<2xi32>} : () -> tensor<2xi32>
  %a = tosa.cast %c : (tensor<2xi32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}
// no folder: maximum(x, x) is kept (checks the import of both sides)
func.func @maximum_self(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.maximum %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// CastOp::fold of a splat i1 constant to i8: the folder sign-extends true to -1; the TOSA spec and
// MLIR 19's lowering (extui) give 1 (found by an adversarial review of ptir tv, 2026-12-07)
func.func @cast_const_bool_int() -> tensor<2xi8> {
  %c = "tosa.const"() {value = dense<true> : tensor<2xi1>} : () -> tensor<2xi1>
  %r = tosa.cast %c : (tensor<2xi1>) -> tensor<2xi8>
  return %r : tensor<2xi8>
}
// CastOp::fold of a splat i1 constant to f32: -1.0 where the spec and the lowering (uitofp) give 1.0
func.func @cast_const_bool_float() -> tensor<2xf32> {
  %c = "tosa.const"() {value = dense<true> : tensor<2xi1>} : () -> tensor<2xi1>
  %r = tosa.cast %c : (tensor<2xi1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
// CastOp::fold of a splat f32 constant 0.5 to i1: false (it converts to an integer first); the spec and
// the lowering (cmpf une 0.0) give true
func.func @cast_const_float_bool() -> tensor<2xi1> {
  %c = "tosa.const"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32>
  %r = tosa.cast %c : (tensor<2xf32>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}
// CastOp::fold of a splat i8 constant 2 to i1: false (it truncates to the low bit); the spec and the
// lowering (cmpi ne 0) give true
func.func @cast_const_int_bool() -> tensor<2xi1> {
  %c = "tosa.const"() {value = dense<2> : tensor<2xi8>} : () -> tensor<2xi8>
  %r = tosa.cast %c : (tensor<2xi8>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}
