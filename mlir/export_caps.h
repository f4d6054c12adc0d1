// What `export_mlir` can spell, per dialect, as data (docs/mlir.md "Export"): the ops, the element dtypes
// and the forms it refuses. The exporter reads the op and dtype rows (an op or dtype outside them is
// refused with the table's reason); the form flags state refusals the exporter makes in its compositions.
// fuzz/mlir/export_profile.h builds the generator's round-trip profile (`ptir synth --exportable`) from
// the same table, so a program of that profile that does not export is a disagreement between the two,
// which MlirRoundTrip.* reports as a failure. No MLIR header is needed.
#pragma once
#include <array>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"

namespace ptir::mlirfe {

/// The MLIR dialects export can write.
enum class ExportDialect { Tosa, Arith };

/// The capabilities of export to one dialect.
struct ExportCaps {
  std::array<bool, kNumOps> ops{};  ///< ops with an exact spelling (some only in the forms below)
  std::vector<DType> dtypes;        ///< element dtypes with a spelling: i1, the signed integers, the floats
                                    ///< (MLIR's integers are signless and read back as signed)
  bool computed_indices = false;    ///< take/gather indices, dynamic-slice starts, segment ids that are not
                                    ///< literals (MLIR's dynamic offsets are index values); literals must be
                                    ///< in range (out of range is UB in PTIR)
  bool interior_pad = false;        ///< pad with interior padding (tosa.pad and tensor.pad have none)
  bool float_to_int_cast = false;   ///< cast from a float to a number dtype (arith.fptosi is poison out of
                                    ///< range; cast to i1 is exported as `!= 0`)
  bool int_accum_change = false;    ///< an integer reduce_* naming an accumulation dtype other than its own
  bool transposing_dot = false;     ///< dot_general whose operands are not already [batch, free, contract]
  bool bool_reductions = false;     ///< reduce_*, segment_reduce, dot_general of i1
  bool regions = false;             ///< cond / while / scan
};

/// The table for dialect `d`.
const ExportCaps& export_caps(ExportDialect d);

}  // namespace ptir::mlirfe
