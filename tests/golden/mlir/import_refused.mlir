// `ptir import` refuses what PTIR cannot state exactly, naming the op at its MLIR location, and imports
// the rest; `ptir tv` reports such a function NOT IMPORTABLE (exit 2).
// RUN: not ptir import %s 2> %t.err
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// RUN: ptir tv %s -- mlir-opt-19 > %t.tv; test $? -eq 2
// RUN: FileCheck --check-prefix=TV %s < %t.tv
// ERR: import_refused.mlir:[[@LINE+13]]:8: error: cannot import 'arith.maxnumf': for -0.0 and +0.0 its result is either zero
// ERR-NEXT: import_refused.mlir:[[@LINE+16]]:8: error: cannot import 'arith.addi': nsw/nuw make an overflow poison
// ERR-NEXT: import_refused.mlir:[[@LINE+19]]:8: error: cannot import 'tosa.negate': integer tosa.negate: MLIR 19 lowers it to 0 - x
// ERR-NEXT: import_refused.mlir:[[@LINE+22]]:8: error: cannot import 'arith.fptosi': an out-of-range value is poison
// ERR-NEXT: import_refused.mlir:[[@LINE+25]]:8: error: cannot import 'arith.addf': fast-math nnan/ninf
// TV: @maxnum NOT IMPORTABLE  input: {{.*}}import_refused.mlir:[[@LINE+8]]:8: error: cannot import 'arith.maxnumf'
// TV: @nsw NOT IMPORTABLE
// TV: @neg NOT IMPORTABLE
// TV: @fptosi NOT IMPORTABLE
// TV: @nnan NOT IMPORTABLE
// TV: @ok PROVED
// TV: summary: 1 PROVED, 0 REFUTED, 0 UNKNOWN, 5 NOT IMPORTABLE, 0 ERROR
func.func @maxnum(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.maxnumf %x, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @nsw(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.addi %x, %y overflow<nsw> : tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func @neg(%x: tensor<4xi32>) -> tensor<4xi32> {
  %r = tosa.negate %x : (tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func @fptosi(%x: tensor<4xf32>) -> tensor<4xi32> {
  %r = arith.fptosi %x : tensor<4xf32> to tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func @nnan(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x fastmath<nnan> : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.mulf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
