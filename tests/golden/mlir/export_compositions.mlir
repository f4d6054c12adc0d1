// Reductions, dot_general, pad, take and argmax have no exact MLIR op; `ptir export` writes each as a
// composition of slices, elementwise ops and concats (docs/mlir.md "Export"). mlir-opt-19 parses both
// dialects' output, and `ptir import` reads each back to a program check-equiv proves equal to the
// original both ways. --to=arith has no transpose, which this dot_general's operands would need.
// RUN: ptir export --to=tosa %S/Inputs/export_compositions.txt -o %t.mlir
// RUN: FileCheck --check-prefix=TOSA %s < %t.mlir
// RUN: mlir-opt-19 %t.mlir > /dev/null
// RUN: ptir import %t.mlir -o %t.back.ptir
// RUN: ptir check-equiv %S/Inputs/export_compositions.txt %t.back.ptir | FileCheck --check-prefix=EQ %s
// RUN: ptir check-equiv %t.back.ptir %S/Inputs/export_compositions.txt | FileCheck --check-prefix=EQ %s
// RUN: not ptir export --to=arith %S/Inputs/export_compositions.txt 2>&1 | FileCheck --check-prefix=ARITH %s
// ARITH: ptir export: error: cannot export: dot_general needing a transpose
// TOSA: func.func @main(
// TOSA: "arith.extf"
// TOSA: "tosa.pad"
// TOSA-NOT: reduce_
// EQ: PROVED
