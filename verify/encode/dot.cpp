// dot_general (docs/semantics.md "Reductions and contractions"): each output element folds the products
// cast(lhs, D) * cast(rhs, D), rounded in D, over the contracting positions in increasing row-major order
// of the contracting coordinates (in contract_lhs order), from the first product; no FMA. The positions
// are the op's index map (ir/index_map.cpp, walk_fold in index_exec.cpp).
#include <algorithm>

#include "verify/encode/index_exec.h"

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
  SymTensor out = env.make();
  Expr acc;
  int64_t k = 0;
  walk_fold(
      env, map_of(env), [&](int64_t) { acc = f.identity(), k = 0; },
      [&](const ITerm&, const std::vector<Expr>& e) {
        const Expr prod = sem::mul(f.load(e[0], t), f.load(e[1], t), f.acc);
        acc = k++ == 0 ? prod : f.combine(acc, prod);
      },
      [&](int64_t) { out.elems.push_back(f.store(acc, t)); });
  return {out};
}

}  // namespace ptir::verify::enc
