// exportable_options: the generator options of the MLIR round-trip profile, from export's table.
#include "fuzz/mlir/export_profile.h"

#include <algorithm>

namespace ptir::fuzz {

GenOptions exportable_options(mlirfe::ExportDialect d, GenOptions base) {
  const mlirfe::ExportCaps& caps = mlirfe::export_caps(d);
  GenOptions o = std::move(base);
  o.only_ops.clear();
  for (int k = 0; k < kNumOps; ++k)
    if (caps.ops[static_cast<size_t>(k)]) o.only_ops.push_back(static_cast<OpCode>(k));
  std::vector<DType> dtypes;
  for (DType t : caps.dtypes)
    if (o.dtypes.empty() || std::find(o.dtypes.begin(), o.dtypes.end(), t) != o.dtypes.end()) dtypes.push_back(t);
  o.dtypes = dtypes;
  o.literal_indices = !caps.computed_indices;
  o.interior_pad = caps.interior_pad;
  o.float_to_int_cast = caps.float_to_int_cast;
  o.int_accum_change = caps.int_accum_change;
  o.transposing_dot = caps.transposing_dot;
  // The generator draws no reductions of i1 (they take numbers), and ops with regions, effects, opaque
  // ops are outside only_ops; these switches keep the generator from trying them at all.
  o.regions = caps.regions;
  o.effects = false;
  o.opaque_ops = false;
  o.seeded_patterns = false;
  return o;
}

}  // namespace ptir::fuzz
