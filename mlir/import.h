// The MLIR front end: reads MLIR text with MLIR's own parser and translates every func.func to a PTIR
// function with the same meaning, op by op (the table of docs/mlir.md). An op PTIR cannot state exactly
// makes its function NOT IMPORTABLE with `FILE:LINE:COL: error: cannot import 'OP': WHY` (the op's MLIR
// location); no op is ever approximated. No MLIR header is included here.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"
#include "mlir/export_caps.h"

namespace ptir::mlirfe {

/// One func.func of the module, in module order.
struct ImportedFunction {
  std::string name;      ///< the symbol name, without '@'
  bool ok = false;       ///< translated: it is in ImportResult::program
  std::string error;     ///< when !ok: "FILE:LINE:COL: error: cannot import 'OP': WHY"
  std::string op;        ///< when !ok: the op that could not be imported ("tosa.rescale"), or "" (the signature)
  std::vector<std::string> arg_names;  ///< the parameters' names in the source ("%x"), "%argN" when unknown
  /// The MLIR function type as MLIR prints it ("(f32, tensor<2xi8>) -> tensor<2xi8>"): `ptir tv`
  /// compares it, since two MLIR types can import as one PTIR type (f32 and tensor<f32>).
  std::string mlir_type;
};

/// The result of one import.
struct ImportResult {
  std::unique_ptr<Program> program;        ///< every importable function (null when the module did not parse)
  std::vector<ImportedFunction> functions;
  std::string ptir_text;                   ///< the PTIR text of `program` as generated (before parsing)
  std::string error;                       ///< the module did not parse: MLIR's diagnostic(s), FILE:LINE:COL
  bool parsed() const { return program != nullptr; }
  /// Every function imported (and there is at least one).
  bool all_ok() const;
  /// The first function's error, or `error`.
  std::string first_error() const;
};

/// Which side of a refinement check the imported functions are for.
enum class Side {
  Source,  ///< the input of a check (and `ptir import`): fast-math nsz/reassoc are imported
  Target,  ///< the output of a check: functions with nsz/reassoc are refused (docs/mlir.md "Fast-math")
};

/// Parses `text` (named `filename` in diagnostics) and imports every func.func.
ImportResult import_mlir(std::string_view text, std::string_view filename, Side side = Side::Source);

/// Writes program `p` as MLIR (func + tosa or func + arith/math/tensor) that mlir-opt-19 parses and that
/// import_mlir reads back to a program with the same meaning. An instruction with no exact spelling in
/// that dialect is an error naming it (returns "" and sets `error`).
std::string export_mlir(const Program& p, ExportDialect d, std::string* error);

/// The reducer of `ptir tv`: the module `text` cut down to function `func` alone (first variant, index
/// 0), or with the k-th op of `func` (k >= 1, in body order, the return excluded) removed, its results'
/// uses replaced by an operand of the same type, else a parameter of the same type, else a zero constant.
/// Returns "" when there is no k-th variant (k past the op count), the module does not parse or the op
/// has results of a type that cannot be replaced. Unused ops are erased afterwards (only pure ops).
std::string reduce_variant(std::string_view text, std::string_view func, int k, std::string* error);
/// The number of ops in function `func` of module `text`, the return excluded (-1: no such function).
int count_ops(std::string_view text, std::string_view func);
/// The reducer's measure of a function: 2 per op with operands, 1 per op without (a constant), so a
/// computation replaced by a zero constant counts as smaller (-1: no such function).
int op_weight(std::string_view text, std::string_view func);

/// The MLIR passes run in-process (fuzz_mlir_tv): what `mlir-opt-19 --canonicalize` and
/// `mlir-opt-19 --pass-pipeline='builtin.module(func.func(tosa-layerwise-constant-fold))'` run.
enum class MlirPass { Canonicalize, TosaLayerwiseConstantFold };
const char* mlir_pass_name(MlirPass p);
/// Parses `text` (dialects as import_mlir), runs `pass` through MLIR's PassManager and prints the module.
/// Returns "" and sets `error` when the text does not parse or the pass fails.
std::string run_mlir_pass(std::string_view text, MlirPass pass, std::string* error);

/// The known MLIR findings (fuzz_mlir_tv, docs/mlir.md) whose trigger appears in module `text`: ids
/// "tosa-add-zero" (tosa.add with a splat ±0.0 constant operand), "tosa-sub-zero" (tosa.sub with a splat
/// ±0.0 right operand), "tosa-mul-zero" (tosa.mul with a splat ±0.0 operand), "tosa-clamp-clamp-int" (an
/// integer tosa.clamp of a tosa.clamp). The add/sub/mul triggers are also looked for after MLIR's folding
/// (the module with those three ops renamed to an unregistered dialect, then canonicalized and
/// TOSA-constant-folded), since the zero splat may be the fold of other constants. Sorted; empty when
/// none (or the text does not parse).
std::vector<std::string> known_fold_sites(std::string_view text);

/// MLIR's element spelling of a PTIR value for reports: `dense<[-0.0, 1.0]> : tensor<2xf32>` (NaN and
/// infinities as exact hex bits, which MLIR reads back).
std::string mlir_literal(const Tensor& t);
/// A PTIR type as MLIR spells it: `tensor<2x3xf32>` (si32 -> i32, i1 -> i1, rank 0 -> tensor<f32>).
std::string mlir_type(const TensorType& t);

}  // namespace ptir::mlirfe
