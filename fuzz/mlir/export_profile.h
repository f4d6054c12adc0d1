// The generator's round-trip profile (`ptir synth --exportable=tosa|arith`, MlirRoundTrip.*): generator
// options restricted to what MLIR export can spell exactly, read from export's own table
// (mlir/export_caps.h), so every program of the profile exports; one that does not is a disagreement
// between the table and the exporter.
#pragma once
#include "fuzz/gen/generator.h"
#include "mlir/export_caps.h"

namespace ptir::fuzz {

/// `base` restricted to export to `d`: its ops, dtypes (those of `base` that export can spell; all of
/// export's when `base` lists none) and forms; no regions, effects, opaque ops or seeded templates.
GenOptions exportable_options(mlirfe::ExportDialect d, GenOptions base = {});

}  // namespace ptir::fuzz
