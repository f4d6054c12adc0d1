// The fuzz_mlir_tv case (docs/mlir.md "fuzz_mlir_tv"): a generated program exported to MLIR, MLIR's
// canonicalizer (or TOSA's layerwise constant folding) run in-process, the result imported and checked
// against the input. Built only with the MLIR front end (library ptir_fuzz_mlir).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/harness/repeats.h"

namespace ptir::fuzz {

/// What one input did (for tests and statistics).
struct MlirTvOutcome {
  bool exported = false;        ///< the generated program has an MLIR spelling in the drawn dialect
  bool output_imported = false; ///< the pass's output imported (else NOT IMPORTABLE: no verdict)
  std::string verdict;          ///< PROVED / REFUTED / UNKNOWN, when checked
  std::string known;            ///< a REFUTED attributed to a known finding: its id (kKnownMlirFindings)
  std::string dialect, pass;
};

/// One known MLIR finding: reported once per process and skipped (docs/mlir.md lists them).
struct KnownMlirFinding {
  const char* id;
  const char* what;
};
extern const KnownMlirFinding kKnownMlirFindings[];
extern const size_t kNumKnownMlirFindings;

/// Runs the case on the fuzz input; "" or the finding (a REFUTED not attributed to a known finding, or a
/// bug of ptir: an export that does not import back, a PROVED the interpreter contradicts, a REFUTED
/// that does not replay, MLIR's pass failing on the exported module).
/// With `repeats`, a case whose dialect, pass and program that filter has seen returns "" at once
/// (fuzz/harness/repeats.h; `out` then says nothing was exported); the fuzz_mlir_tv target passes its
/// process's filter.
std::string fuzz_mlir_tv_case(const uint8_t* data, size_t size, MlirTvOutcome* out = nullptr,
                              RepeatFilter* repeats = nullptr);

}  // namespace ptir::fuzz
