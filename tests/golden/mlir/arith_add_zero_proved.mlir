// The arith twin of tosa_add_zero_refuted.mlir: arith's addf folder only drops an added -0.0, so
// mlir-opt-19 keeps x + 0.0 and `ptir tv` proves the output (exit 0). A second function adds -0.0,
// which arith folds to x: also PROVED (x + -0.0 is x for every x, -0.0 and NaN included).
// RUN: ptir tv %s -- mlir-opt-19 --canonicalize | FileCheck %s
// CHECK: tv {{.*}} 2 functions
// CHECK-NEXT: @f PROVED
// CHECK-NEXT: @g PROVED
// CHECK-NEXT: summary: 2 PROVED, 0 REFUTED, 0 UNKNOWN, 0 NOT IMPORTABLE, 0 ERROR
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %r = arith.addf %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<-0.0> : tensor<4xf32>
  %r = arith.addf %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}
