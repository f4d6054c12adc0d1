// `ptir export` writes MLIR that mlir-opt-19 parses and verifies, and that `ptir import` reads back to a
// program that check-equiv proves equal to the original both ways. --to=arith has no transpose: the
// error names the instruction's op.
// RUN: ptir export --to=tosa %S/Inputs/export_sample.txt -o %t.mlir
// RUN: FileCheck --check-prefix=TOSA %s < %t.mlir
// RUN: mlir-opt-19 %t.mlir > /dev/null
// RUN: ptir import %t.mlir -o %t.back.ptir
// RUN: ptir check-equiv %S/Inputs/export_sample.txt %t.back.ptir | FileCheck --check-prefix=EQ %s
// RUN: ptir check-equiv %t.back.ptir %S/Inputs/export_sample.txt | FileCheck --check-prefix=EQ %s
// RUN: not ptir export --to=arith %S/Inputs/export_sample.txt 2>&1 | FileCheck --check-prefix=ARITH %s
// TOSA: func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xi32>) -> (tensor<3x2xf32>, tensor<2x3xi1>, tensor<2x3xf64>)
// TOSA: "tosa.reshape"(%arg1) {new_shape = array<i64: 1, 3>}
// TOSA: "tosa.tile"
// TOSA: "tosa.add"
// TOSA: "arith.maximumf"
// TOSA: "tosa.transpose"
// TOSA: "arith.cmpi"({{.*}}) {predicate = 2 : i64}
// TOSA: "arith.sitofp"
// EQ: PROVED
// ARITH: ptir export: error: cannot export: no exact MLIR spelling for PTIR op 'transpose' in --to=arith (--to=tosa has one)
