// Opaque ops (docs/semantics.md "Effects and opaque ops"): custom_call runs the kernel registered for its
// target, quantize/dequantize/requantize the one registered under their mnemonic; none: "no kernel for T".
#include "ir/interp/kernels.h"

namespace ptir::interp {

Status eval_opaque(const Call& c, Out& out) {
  std::string target = c.op == OpCode::CustomCall ? std::string(c.attrs.word("target")) : std::string(c.name());
  const KernelRegistry* reg = options(c.exec).kernels;
  if (!reg || reg->kernels.find(target) == reg->kernels.end()) return c.fail("no kernel for " + target);
  const KernelRegistry::Kernel& kernel = reg->kernels.find(target)->second;
  std::vector<Tensor> args;
  for (size_t k = 0; k < c.args.size(); ++k) args.push_back(c.args[k]);
  std::vector<TensorType> types;
  for (const Tensor& t : out) types.push_back(t.type);
  std::vector<Tensor> results;
  std::string error;
  if (!kernel(args, c.attrs, types, results, error))
    return c.fail("kernel " + target + " failed: " + (error.empty() ? "no reason given" : error));
  if (results.size() != out.size()) return c.fail("kernel " + target + " returned the wrong number of results");
  for (size_t k = 0; k < out.size(); ++k) {
    const Tensor& r = results[k];
    if (r.type != out[k].type || !r.well_formed())
      return c.fail("kernel " + target + " returned " + to_string(r.type) + " for result " + std::to_string(k) +
                    ", expected " + to_string(out[k].type));
    out[k] = std::move(results[k]);
  }
  return Status::success();
}

}  // namespace ptir::interp
