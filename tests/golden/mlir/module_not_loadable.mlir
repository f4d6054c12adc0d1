// `ptir import`, `export` and `tv` run in the module ptir-mlir.so (docs/mlir.md "Building"). A module
// that is missing or is not a loadable library is an error that says so, with the command's failure
// code (import/export 1, tv 3), never a crash.
// RUN: env PTIR_MLIR_MODULE=%t.missing.so ptir import %s > %t.out 2> %t.err; test $? -eq 1
// RUN: FileCheck --check-prefix=MISSING %s < %t.err
// MISSING: ptir import: error: cannot load the MLIR front end: ptir-mlir.so not found (looked for {{.*}}missing.so; PTIR_MLIR_MODULE=PATH names it)
// RUN: echo 'not a library' > %t.bad.so
// RUN: env PTIR_MLIR_MODULE=%t.bad.so ptir tv %s -- cat > %t.out 2> %t.err; test $? -eq 3
// RUN: FileCheck --check-prefix=BAD %s < %t.err
// BAD: ptir tv: error: cannot load the MLIR front end: {{.*}}bad.so: {{.*}}
// And the module found next to the executable works (what every other golden here relies on):
// RUN: ptir import %s | FileCheck --check-prefix=OK %s
// OK: func @f(%a0: tensor<f32, 4>) -> tensor<f32, 4> {
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
