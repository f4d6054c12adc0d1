// The `cast` op (docs/semantics.md "cast"): the element conversion of verify/encode/scalar.cpp mapped.
#include "verify/encode/ops.h"

namespace ptir::verify::enc {

Results encode_Cast(OpEnv& env) {
  const SymTensor& x = env.args[0];
  if (x.type.dims != env.out().dims) env.fail("operand and result shapes differ");
  SymTensor r = env.make();
  for (const Expr& e : x.elems) r.elems.push_back(sem::cast(e, x.type.dtype, env.dtype()));
  return {r};
}

}  // namespace ptir::verify::enc
