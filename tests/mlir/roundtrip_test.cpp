// The export/import round trip on the generator's round-trip profile (fuzz/mlir/export_profile.h, the
// options of `ptir synth --exportable`): every program of the profile must export (one that does not is
// a disagreement between export's table and the exporter: a failure with the reason), import back, and
// import(export(p)) must refine p and p refine it. Bodies alpha-equivalent to p (verify/alpha.h) count as
// proved by construction; every other one is checked both ways by verify::check_refinement. UNKNOWN is
// counted and printed, never passed as PROVED. Seeds 1..N (60 by default; docs/mlir.md "Export").
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "fuzz/gen/choices.h"
#include "fuzz/gen/generator.h"
#include "fuzz/mlir/export_profile.h"
#include "ir/text.h"
#include "mlir/import.h"
#include "verify/alpha.h"
#include "verify/refine.h"

namespace ptir::mlirfe {
namespace {

int env_int(const char* name, int dflt) {
  const char* e = std::getenv(name);
  return e ? std::atoi(e) : dflt;
}

/// The profile's options: 4 ops, at most 16 elements per tensor; the program of seed S is the one of
/// `ptir synth --exportable=D --seed=S --ops=4 --max-elements=16`.
/// PTIR_MLIR_ROUNDTRIP_WITHOUT=top_k,... leaves those ops out of the profile (so the programs of an
/// earlier table can be drawn again: docs/mlir.md's 10,000-program run predates top_k's row).
fuzz::GenOptions options(ExportDialect d) {
  fuzz::GenOptions o = fuzz::exportable_options(d, {.num_ops = 4, .max_elements = 16});
  if (const char* e = std::getenv("PTIR_MLIR_ROUNDTRIP_WITHOUT")) {
    std::string list = std::string(e) + ",";
    for (size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
      const std::string name = list.substr(at, comma - at);
      std::erase_if(o.only_ops, [&](OpCode op) { return mnemonic(op) == name; });
    }
  }
  return o;
}

struct Tally {
  int programs = 0, exported = 0, functions = 0, alpha = 0, proved = 0, unknown = 0, refuted = 0;
  std::map<std::string, int> unknown_reasons;
};

std::string unknown_reason(const verify::Verdict& v) {
  const auto* u = std::get_if<verify::Unknown>(&v.v);
  std::string r = u ? u->reason : "";
  return r.substr(0, r.find_first_of(":(\n"));
}

void round_trip(ExportDialect d, const char* dname) {
  const int first = env_int("PTIR_MLIR_ROUNDTRIP_FIRST", 1);
  const int n = env_int("PTIR_MLIR_ROUNDTRIP_N", 60);
  const bool verbose = std::getenv("PTIR_MLIR_ROUNDTRIP_VERBOSE") != nullptr;
  verify::CheckOptions co;
  co.timeout_ms = static_cast<unsigned>(env_int("PTIR_MLIR_ROUNDTRIP_TIMEOUT_MS", 5000));
  co.threads = 1;
  // Z3 resource units by default: the same verdicts on a loaded machine. PTIR_MLIR_ROUNDTRIP_WALL=1 counts
  // wall-clock time instead: a timeout then costs its budget and no more (the 10,000-program run).
  co.deterministic = std::getenv("PTIR_MLIR_ROUNDTRIP_WALL") == nullptr;
  Tally t;
  for (int seed = first; seed < first + n; ++seed) {
    fuzz::PrngChoices c(static_cast<uint64_t>(seed));
    fuzz::Generated g = fuzz::generate(c, options(d));
    ASSERT_TRUE(g.program) << g.error;
    ++t.programs;
    std::string err;
    std::string text = export_mlir(*g.program, d, &err);
    if (text.empty()) {
      ADD_FAILURE() << "seed " << seed << " (" << dname << "): the profile's program does not export: " << err << "\n"
                    << g.text;
      continue;
    }
    ++t.exported;
    ImportResult back = import_mlir(text, "export.mlir");
    if (!back.all_ok()) {
      ADD_FAILURE() << "seed " << seed << " (" << dname << "): " << back.first_error() << "\n" << g.text << "\n" << text;
      continue;
    }
    for (BodyId b = 0; b < g.program->num_bodies(); ++b) {
      const std::string& name = g.program->body(b).name;
      BodyId rb = back.program->find_body(name, false);
      ASSERT_NE(rb, kNone) << name;
      ++t.functions;
      if (verify::alpha_equivalent(*g.program, b, *back.program, rb)) {
        ++t.alpha;
        continue;
      }
      verify::Verdict fwd = verify::check_refinement(*g.program, b, *back.program, rb, co);
      verify::Verdict bwd = verify::check_refinement(*back.program, rb, *g.program, b, co);
      EXPECT_FALSE(fwd.refuted() || fwd.invalid()) << "seed " << seed << " " << verify::verdict_word(fwd) << "\n"
                                                   << g.text << "\n" << text;
      EXPECT_FALSE(bwd.refuted() || bwd.invalid()) << "seed " << seed << " " << verify::verdict_word(bwd) << "\n"
                                                   << g.text << "\n" << text;
      if (verbose)
        std::printf("%s: seed %d: %s %.0f ms, %s %.0f ms\n", dname, seed, verify::verdict_word(fwd), fwd.ms,
                    verify::verdict_word(bwd), bwd.ms);
      if (fwd.refuted() || bwd.refuted()) ++t.refuted;
      if (fwd.proved() && bwd.proved()) {
        ++t.proved;
      } else if (!fwd.refuted() && !bwd.refuted()) {
        ++t.unknown;
        const verify::Verdict& u = fwd.proved() ? bwd : fwd;
        ++t.unknown_reasons[unknown_reason(u)];
        if (verbose)
          std::printf("%s: seed %d UNKNOWN (%s): %s\n%s", dname, seed, fwd.proved() ? "backward" : "forward",
                      std::get_if<verify::Unknown>(&u.v) ? std::get<verify::Unknown>(u.v).reason.c_str() : "",
                      g.text.c_str());
      }
    }
  }
  for (const auto& [why, count] : t.unknown_reasons) std::printf("%s: UNKNOWN %5d: %s\n", dname, count, why.c_str());
  std::printf("%s: seeds %d..%d: %d programs, %d exported; %d functions: %d identical up to names, %d PROVED both "
              "ways by Z3, %d UNKNOWN, %d REFUTED\n",
              dname, first, first + n - 1, t.programs, t.exported, t.functions, t.alpha, t.proved, t.unknown,
              t.refuted);
  EXPECT_EQ(t.exported, t.programs);
  EXPECT_GT(t.alpha + t.proved, 0);
}

TEST(MlirRoundTrip, Arith) { round_trip(ExportDialect::Arith, "arith"); }
TEST(MlirRoundTrip, Tosa) { round_trip(ExportDialect::Tosa, "tosa"); }

}  // namespace
}  // namespace ptir::mlirfe
