// dot_general (docs/semantics.md "Reductions and contractions"): each output element folds the products
// cast(lhs, D) * cast(rhs, D), rounded in D, over the contracting positions in increasing row-major order
// of the contracting coordinates (in contract_lhs order), from the first product; no FMA.
#include <algorithm>

#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

/// The dims of `rank` that are neither batch nor contracting, in order.
std::vector<int64_t> free_dims(int rank, const std::vector<int64_t>& batch, const std::vector<int64_t>& contract) {
  std::vector<int64_t> f;
  for (int d = 0; d < rank; ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contract.begin(), contract.end(), d) == contract.end())
      f.push_back(d);
  return f;
}

void check_dims(const OpEnv& env, const std::vector<int64_t>& ds, int rank) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : ds) {
    if (d < 0 || d >= rank || seen[d]) env.fail("batch/contracting dims must be distinct and in range");
    seen[d] = true;
  }
}

}  // namespace

Results encode_DotGeneral(OpEnv& env) {
  const SymTensor& lhs = env.args[0];
  const SymTensor& rhs = env.args[1];
  const auto& bl = env.attrs.ints("batch_lhs");
  const auto& br = env.attrs.ints("batch_rhs");
  const auto& cl = env.attrs.ints("contract_lhs");
  const auto& cr = env.attrs.ints("contract_rhs");
  const auto& ld = lhs.type.dims;
  const auto& rd = rhs.type.dims;
  if (bl.size() != br.size() || cl.size() != cr.size()) env.fail("batch/contracting lists differ in length");
  std::vector<int64_t> lall = bl, rall = br;
  lall.insert(lall.end(), cl.begin(), cl.end());
  rall.insert(rall.end(), cr.begin(), cr.end());
  check_dims(env, lall, lhs.type.rank());
  check_dims(env, rall, rhs.type.rank());
  if (lhs.type.dtype != env.dtype() || rhs.type.dtype != env.dtype()) env.fail("operand and result dtypes differ");
  const std::vector<int64_t> lf = free_dims(lhs.type.rank(), bl, cl), rf = free_dims(rhs.type.rank(), br, cr);
  std::vector<int64_t> odims, cdims;
  for (size_t k = 0; k < bl.size(); ++k) {
    if (ld[bl[k]] != rd[br[k]]) env.fail("batch dims differ in size");
    odims.push_back(ld[bl[k]]);
  }
  for (int64_t d : lf) odims.push_back(ld[d]);
  for (int64_t d : rf) odims.push_back(rd[d]);
  for (size_t k = 0; k < cl.size(); ++k) {
    if (ld[cl[k]] != rd[cr[k]]) env.fail("contracting dims differ in size");
    cdims.push_back(ld[cl[k]]);
  }
  if (odims != env.out().dims) env.fail("result dims do not match");
  const DType t = env.dtype();
  const sem::Folder f{sem::Fold::Sum, sem::accum_of(env.attrs, t)};
  int64_t ncontract = 1;
  for (int64_t c : cdims) ncontract *= c;
  SymTensor out = env.make();
  std::vector<int64_t> li(ld.size()), ri(rd.size());
  for (int64_t o = 0, n = env.out().num_elements(); o < n; ++o) {
    env.check_stop();
    const std::vector<int64_t> oi = unravel(o, odims);
    size_t p = 0;
    for (size_t k = 0; k < bl.size(); ++k, ++p) li[bl[k]] = ri[br[k]] = oi[p];
    for (int64_t d : lf) li[d] = oi[p++];
    for (int64_t d : rf) ri[d] = oi[p++];
    Expr acc = f.identity();
    for (int64_t c = 0; c < ncontract; ++c) {
      const std::vector<int64_t> ci = unravel(c, cdims);
      for (size_t k = 0; k < cl.size(); ++k) li[cl[k]] = ri[cr[k]] = ci[k];
      const Expr prod = sem::mul(f.load(lhs.elems[ravel(li, ld)], t), f.load(rhs.elems[ravel(ri, rd)], t), f.acc);
      acc = c == 0 ? prod : f.combine(acc, prod);
    }
    out.elems.push_back(f.store(acc, t));
  }
  return {out};
}

}  // namespace ptir::verify::enc
