// `ptir tv` on outputs edited by hand (the "tool" prints Inputs/tv_hand_edited_out.txt), each of which
// it PROVED before an adversarial review: an insert_slice offset of 2^63 - 1 (its bounds check
// overflowed, and the clamping of dynamic_update_slice put the slice back), nsz on arith.truncf and
// arith.extf in the output (imported without it), a tosa.slice whose size is not its result's, and a
// signature whose MLIR types changed where the PTIR types did not. A changed signature is an ERROR (exit
// 3); the others are NOT IMPORTABLE. A module MLIR 19's own verifier crashes on (tosa.concat with axis
// -1) is refused with a located error.
// RUN: ptir tv %s -- sh -c 'cat "$0"' %S/Inputs/tv_hand_edited_out.txt > %t.out; test $? -eq 3
// RUN: FileCheck %s < %t.out
// CHECK: @is NOT IMPORTABLE output: {{.*}}cannot import 'tensor.insert_slice': the slice is not inside the destination
// CHECK: @trunc NOT IMPORTABLE output: {{.*}}cannot import 'arith.truncf': fast-math nsz/reassoc on the output of a check
// CHECK: @ext NOT IMPORTABLE output: {{.*}}cannot import 'arith.extf': fast-math nsz/reassoc on the output of a check
// CHECK: @sl NOT IMPORTABLE output: {{.*}}cannot import 'tosa.slice': its size attribute is not the result's dims
// CHECK: @sig ERROR the tool changed the signature of @sig: (f32, i8) -> f32 became (tensor<f32>, tensor<si8>) -> tensor<f32>
// CHECK: summary: 0 PROVED, 0 REFUTED, 0 UNKNOWN, 4 NOT IMPORTABLE, 1 ERROR
// RUN: not ptir import %S/Inputs/tosa_concat_axis_out_of_range.txt 2>&1 | FileCheck %s --check-prefix=CONCAT
// CONCAT: tosa_concat_axis_out_of_range.txt:2:8: error: tosa.concat: the axis must be in [0, rank) of a ranked result
func.func @is(%x: tensor<6xf32>, %y: tensor<2xf32>) -> tensor<6xf32> {
  %r = tensor.insert_slice %y into %x[4] [2] [1] : tensor<2xf32> into tensor<6xf32>
  return %r : tensor<6xf32>
}
func.func @trunc(%x: tensor<4xf32>) -> tensor<4xf16> {
  %r = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  return %r : tensor<4xf16>
}
func.func @ext(%x: tensor<4xf16>) -> tensor<4xf32> {
  %r = arith.extf %x : tensor<4xf16> to tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @sl(%x: tensor<6xf32>) -> tensor<3xf32> {
  %r = tosa.slice %x {start = array<i64: 1>, size = array<i64: 3>} : (tensor<6xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @sig(%x: f32, %y: i8) -> f32 {
  %r = arith.negf %x : f32
  return %r : f32
}
