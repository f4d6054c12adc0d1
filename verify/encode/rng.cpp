// rng_uniform / rng_normal (docs/semantics.md "Effects and opaque ops"): deterministic given the seed, so
// element i is one uninterpreted value per (op, seed, element, dtype): the same on both sides of a check.
#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

Results rng(OpEnv& env) {
  const DType t = env.dtype();
  if (!is_float(t)) env.fail("the result must have a float dtype");
  const std::string key = std::string(mnemonic(env.op())) + "!seed" +
                          std::to_string(static_cast<uint64_t>(env.attrs.int_or("seed", 0))) + "!" + dtype_name(t);
  SymTensor out = env.make();
  for (int64_t i = 0, n = env.out().num_elements(); i < n; ++i)
    out.elems.push_back(Expr::var(key + "[" + std::to_string(i) + "]", sem::sort_of(t)));
  return {out};
}

}  // namespace

Results encode_RngUniform(OpEnv& env) { return rng(env); }
Results encode_RngNormal(OpEnv& env) { return rng(env); }

}  // namespace ptir::verify::enc
