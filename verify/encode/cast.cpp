// The `cast` op (docs/semantics.md "cast"): the element conversion of verify/encode/scalar.cpp mapped.
#include "verify/encode/ops.h"

namespace ptir::verify::enc {

Results encode_Cast(OpEnv& env) {
  const SymTensor& x = env.args[0];
  if (x.type.dims != env.out().dims) env.fail("operand and result shapes differ");
  SymTensor r = env.make();
  for (size_t i = 0; i < x.elems.size(); ++i) {
    if ((i & 1023) == 1023) env.check_stop();
    r.elems.push_back(sem::cast(x.elems[i], x.type.dtype, env.dtype()));
  }
  return {r};
}

}  // namespace ptir::verify::enc
