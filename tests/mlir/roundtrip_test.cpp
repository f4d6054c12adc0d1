// The export/import round trip on generated programs (fuzz/gen, the generator behind `ptir synth`):
// for every program that exports, import(export(p)) refines p and p refines it (verify/refine.h). A
// fixed seed and a bounded count; PTIR_MLIR_ROUNDTRIP_N raises the count (docs/mlir.md "Export").
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "fuzz/gen/choices.h"
#include "fuzz/gen/generator.h"
#include "ir/text.h"
#include "mlir/import.h"
#include "verify/refine.h"

namespace ptir::mlirfe {
namespace {

void round_trip(ExportDialect d, const char* dname) {
  int n = 150;
  if (const char* e = std::getenv("PTIR_MLIR_ROUNDTRIP_N")) n = std::atoi(e);
  int exported = 0, checked = 0;
  std::map<std::string, int> refusals;  // why export refused, printed with PTIR_MLIR_ROUNDTRIP_REASONS=1
  for (int seed = 1; seed <= n; ++seed) {
    fuzz::PrngChoices c(static_cast<uint64_t>(seed));
    // Unsigned dtypes are left out: MLIR's arith has signless integers, which ptir reads as signed.
    fuzz::GenOptions o{.num_ops = 4,
                       .dtypes = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::SI8, DType::SI16,
                                  DType::SI32, DType::SI64},
                       .opaque_ops = false, .effects = false, .regions = false, .transcendentals = seed % 2 == 0,
                       .max_elements = 16};
    fuzz::Generated g = fuzz::generate(c, o);
    ASSERT_TRUE(g.program) << g.error;
    std::string err;
    std::string text = export_mlir(*g.program, d, &err);
    if (text.empty()) {  // an op without an exact spelling: counted below
      ++refusals[err.substr(0, err.find(" ("))];
      continue;
    }
    ++exported;
    ImportResult back = import_mlir(text, "export.mlir");
    ASSERT_TRUE(back.all_ok()) << "seed " << seed << " (" << dname << "): " << back.first_error() << "\n"
                               << g.text << "\n" << text;
    for (BodyId b = 0; b < g.program->num_bodies(); ++b) {
      const std::string& name = g.program->body(b).name;
      BodyId rb = back.program->find_body(name, false);
      ASSERT_NE(rb, kNone) << name;
      verify::CheckOptions co;
      co.timeout_ms = 5000;
      verify::Verdict fwd = verify::check_refinement(*g.program, b, *back.program, rb, co);
      verify::Verdict bwd = verify::check_refinement(*back.program, rb, *g.program, b, co);
      EXPECT_FALSE(fwd.refuted() || fwd.invalid()) << "seed " << seed << " " << verify::verdict_word(fwd) << "\n"
                                                   << g.text << "\n" << text;
      EXPECT_FALSE(bwd.refuted() || bwd.invalid()) << "seed " << seed << " " << verify::verdict_word(bwd) << "\n"
                                                   << g.text << "\n" << text;
      if (fwd.proved() && bwd.proved()) ++checked;
    }
  }
  if (std::getenv("PTIR_MLIR_ROUNDTRIP_REASONS"))
    for (const auto& [why, count] : refusals) std::printf("%s: refused %5d: %s\n", dname, count, why.c_str());
  std::printf("%s: %d of %d generated programs exported; %d functions PROVED both ways\n", dname, exported, n, checked);
  EXPECT_GT(exported, 0);
  EXPECT_GT(checked, 0);
}

TEST(MlirRoundTrip, Arith) { round_trip(ExportDialect::Arith, "arith"); }
TEST(MlirRoundTrip, Tosa) { round_trip(ExportDialect::Tosa, "tosa"); }

}  // namespace
}  // namespace ptir::mlirfe
