// Issue 18: MLIR 19's tosa.add folder rewrites x + 0.0 to x, which is wrong at x = -0.0 (IEEE gives
// -0.0 + 0.0 = +0.0). `ptir tv` refutes it with -0.0 as the counterexample and shrinks it to this one
// function; the same function written with arith.addf is kept by arith's folder (it checks the zero's
// sign) and is PROVED (arith_add_zero_proved.mlir).
// RUN: ptir tv %s -- mlir-opt-19 --canonicalize > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: ptir tv --json %s -- mlir-opt-19 --canonicalize > %t.json; test $? -eq 1
// RUN: FileCheck --check-prefix=JSON %s < %t.json
// CHECK: tv {{.*}}tosa_add_zero_refuted.mlir through 'mlir-opt-19 --canonicalize': 1 function
// CHECK-NEXT: @f REFUTED
// CHECK-NEXT: %x = dense<{{.*}}-0.0{{.*}}> : tensor<4xf32>
// CHECK-NEXT: input  result 0: dense<{{.*}}> : tensor<4xf32>
// CHECK-NEXT: output result 0: dense<{{.*}}-0.0{{.*}}> : tensor<4xf32>
// CHECK-NEXT: they differ at result 0 element
// CHECK-NEXT: shrunk to 2 ops (from 2; {{[0-9]+}} tool runs), still REFUTED:
// CHECK-NEXT: | module {
// CHECK-NEXT: |   func.func @f(
// CHECK-NEXT: |     %0 = "tosa.const"()
// CHECK-NEXT: |     %1 = tosa.add %arg0, %0
// CHECK-NEXT: |     return %1
// CHECK: summary: 0 PROVED, 1 REFUTED, 0 UNKNOWN, 0 NOT IMPORTABLE, 0 ERROR
// JSON: {"file": "{{.*}}", "tool": "mlir-opt-19 --canonicalize", "functions": [{"name": "f", "verdict": "REFUTED", {{.*}}"counterexample": ["%x = dense<{{.*}}-0.0{{.*}}", {{.*}}"shrunk_ops": 2, {{.*}}"refuted": 1,
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %r = "tosa.add"(%x, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
