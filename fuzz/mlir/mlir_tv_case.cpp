#include "fuzz/mlir/mlir_tv_case.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>

#include "fuzz/gen/bytes_choices.h"
#include "fuzz/gen/generator.h"
#include "fuzz/harness/harness.h"
#include "ir/text.h"
#include "mlir/import.h"
#include "verify/smt/solver.h"

namespace ptir::fuzz {

const KnownMlirFinding kKnownMlirFindings[] = {
    {"tosa-add-zero", "tosa.add x, splat 0.0 folded to x (AddOp::fold): wrong at x = -0.0"},
    {"tosa-sub-zero", "tosa.sub x, splat -0.0 folded to x (SubOp::fold): wrong at x = -0.0"},
    {"tosa-mul-zero", "tosa.mul x, splat 0.0 folded to 0.0 (MulOp::fold): wrong at x = inf, NaN, -0.0 or x < 0"},
    {"tosa-clamp-clamp-int",
     "tosa.clamp(tosa.clamp(x)) on integers merged to the inner clamp (ClampClampOptimization)"},
};
const size_t kNumKnownMlirFindings = sizeof(kKnownMlirFindings) / sizeof(kKnownMlirFindings[0]);

namespace {

/// Reports a known finding the first time this process meets it.
void report_known_once(const std::string& id) {
  static std::mutex mu;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert(id).second) return;
  for (size_t k = 0; k < kNumKnownMlirFindings; ++k)
    if (id == kKnownMlirFindings[k].id)
      std::fprintf(stderr, "fuzz_mlir_tv: known finding %s (%s): reported once, skipped from now on\n", id.c_str(),
                   kKnownMlirFindings[k].what);
}

std::string one_case(const uint8_t* data, size_t size, MlirTvOutcome* out, RepeatFilter* repeats) {
  MlirTvOutcome local;
  MlirTvOutcome& o = out ? *out : local;
  BytesChoices c(data, size);
  const bool tosa = c.chance(1, 2);
  const mlirfe::MlirPass pass = tosa && c.chance(1, 3) ? mlirfe::MlirPass::TosaLayerwiseConstantFold
                                                       : mlirfe::MlirPass::Canonicalize;
  o.dialect = tosa ? "tosa" : "arith";
  o.pass = mlirfe::mlir_pass_name(pass);
  GenOptions g_opts = fuzz_gen_options(c, 6);
  // What export can spell: signed and float dtypes (MLIR's integers are signless), no regions, no opaque
  // ops or rng; no transcendentals (MLIR folds them with the host's libm, ptir fixes its own: an ulp
  // apart is not a bug of the folder).
  static const DType kDTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64,
                                  DType::SI8, DType::SI16, DType::SI32, DType::SI64};
  if (!g_opts.dtypes.empty())
    for (DType& d : g_opts.dtypes) d = kDTypes[static_cast<size_t>(d) % std::size(kDTypes)];
  else
    g_opts.dtypes.assign(std::begin(kDTypes), std::end(kDTypes));
  g_opts.opaque_ops = false;
  g_opts.effects = false;
  g_opts.regions = false;
  g_opts.transcendentals = false;
  g_opts.max_elements = std::min<int64_t>(g_opts.max_elements, 16);
  Generated g = generate_text(c, g_opts);
  // Everything below is a function of these (and of the check's time budget).
  if (repeats && repeats->seen_before(o.dialect + " " + o.pass + "\n" + g.text)) return "";
  parse_generated(g);
  if (!g.program) return "the generator wrote a program the parser rejects: " + g.error + "\n" + g.text;

  std::string err;
  const std::string in = mlirfe::export_mlir(*g.program, tosa ? mlirfe::ExportDialect::Tosa : mlirfe::ExportDialect::Arith, &err);
  if (in.empty()) return "";  // no exact spelling of some op: nothing to check
  o.exported = true;
  mlirfe::ImportResult src = mlirfe::import_mlir(in, "input.mlir", mlirfe::Side::Source);
  if (!src.all_ok())
    return "the exported program does not import back: " + src.first_error() + "\n--- PTIR ---\n" + g.text +
           "--- MLIR ---\n" + in;
  const std::string outtext = mlirfe::run_mlir_pass(in, pass, &err);
  if (outtext.empty()) return "MLIR's " + o.pass + " failed on the exported module: " + err + "\n--- MLIR ---\n" + in;
  mlirfe::ImportResult tgt = mlirfe::import_mlir(outtext, "output.mlir", mlirfe::Side::Target);
  if (!tgt.all_ok()) return "";  // NOT IMPORTABLE: no verdict (the refusal names the op)
  o.output_imported = true;

  // The same check as fuzz_equiv's: a PROVED is confirmed by interpreter runs, a REFUTED must replay.
  std::string verdict;
  std::string finding = check_pair(*src.program, *tgt.program, 1000, 64, &verdict);
  o.verdict = verdict;
  const std::string texts = "--- input (" + o.dialect + ") ---\n" + in + "--- output of " + o.pass + " ---\n" + outtext;
  if (!finding.empty()) return "ptir: " + finding + "\n" + texts;
  if (verdict != "REFUTED") return "";
  std::vector<std::string> known = mlirfe::known_fold_sites(in);
  if (!known.empty()) {
    o.known = known.front();
    for (const std::string& id : known) report_known_once(id);
    return "";
  }
  return "MLIR's " + o.pass + " changed the meaning of the function (REFUTED, replayed; `ptir tv` shows the "
         "counterexample and shrinks it):\n" + texts;
}

}  // namespace

std::string fuzz_mlir_tv_case(const uint8_t* data, size_t size, MlirTvOutcome* out, RepeatFilter* repeats) {
  std::string f = one_case(data, size, out, repeats);
  // As fuzz_equiv_case: a check that overran its budget left its Z3 context to a solver host still
  // stopping it; wait for it, so that libFuzzer's leak check never sees a context alive or half deleted
  // (a smoke run with two fuzzers sharing the cores reported 1.9 MB "leaked" inside libz3).
  smt::reap_abandoned_checks();
  return f;
}

}  // namespace ptir::fuzz
