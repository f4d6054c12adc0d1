// A REFUTED function decides `ptir tv`'s exit code (1) whatever the other functions are, short of an
// error: here @nsz_add is NOT IMPORTABLE (an nsz flag on the output side), which alone would exit 2.
// RUN: ptir tv --no-shrink %s -- mlir-opt-19 --canonicalize > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// CHECK: @add0 REFUTED
// CHECK: @nsz_add NOT IMPORTABLE
// CHECK: summary: 0 PROVED, 1 REFUTED, 0 UNKNOWN, 1 NOT IMPORTABLE, 0 ERROR
func.func @add0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = tosa.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @nsz_add(%x: f32) -> f32 {
  %0 = arith.addf %x, %x fastmath<nsz> : f32
  return %0 : f32
}
