// top_k (docs/semantics.md "top_k"): along `axis`, the k largest (or smallest) elements under the total
// order NaN > +inf > ... > +0 > -0 > ... > -inf, ties keeping the lower index first. Each element's rank
// is the number of elements that come before it; output position j holds the element of rank j. The line
// each output ranks is the op's index map (ir/index_map.cpp): x[i with i[axis] := r].
#include "verify/encode/index_exec.h"

namespace ptir::verify::enc {

Results encode_TopK(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const int r = x.type.rank();
  const int64_t axis = env.attrs.int_or("axis", r - 1);
  const int64_t k = env.attrs.int_or("k", -1);
  const bool largest = env.attrs.bool_or("largest", true);
  if (axis < 0 || axis >= r) env.fail("axis out of range");
  std::vector<int64_t> odims = x.type.dims;
  if (k < 0 || k > odims[axis]) env.fail("k must be in [0, dims[axis]]");
  odims[axis] = k;
  if (env.out(0).dims != odims || env.out(1).dims != odims || env.dtype(0) != x.type.dtype || !is_integer(env.dtype(1)))
    env.fail("results must be x's dtype and an integer dtype, with dims[axis] = k");
  const DType t = x.type.dtype;
  const int64_t len = x.type.dims[axis];
  SymTensor vals = env.make(0), idxs = env.make(1);
  vals.elems.assign(env.out(0).num_elements(), Expr());
  idxs.elems.assign(env.out(1).num_elements(), Expr());
  const unsigned rw = 64;
  const imap::IndexMap m = map_of(env);
  MapEval ev(env, m);
  std::vector<int64_t> lines = odims;  // one line per result position with i[axis] = 0
  lines[axis] = k > 0 ? 1 : 0;
  for_points(lines, [&](const std::vector<int64_t>& o) {
    std::vector<int64_t> base = o;
    std::vector<Expr> e;
    for (int64_t j = 0; j < len; ++j) {
      std::vector<int64_t> p = o;
      p.push_back(j);
      ev.at(p);
      e.push_back(ev.pick(m.cases[0].reads[0]));
    }
    std::vector<Expr> rank(len);
    for (int64_t i = 0; i < len; ++i) {
      env.check_stop();
      Expr count = Expr::bv(0, rw);
      for (int64_t j = 0; j < len; ++j) {
        if (j == i) continue;
        const Expr better = largest ? sem::order_gt(e[j], e[i], t) : sem::order_gt(e[i], e[j], t);
        const Expr before = j < i ? better || sem::order_eq(e[j], e[i], t) : better;
        count = count + Expr::ite(before, Expr::bv(1, rw), Expr::bv(0, rw));
      }
      rank[i] = count;
    }
    for (int64_t j = 0; j < k; ++j) {
      Expr v = e[len - 1], at = sem::cast(Expr::bv(len - 1, 64), DType::SI64, env.dtype(1)).simplify();
      for (int64_t i = len - 2; i >= 0; --i) {
        const Expr is = rank[i] == Expr::bv(j, rw);
        v = Expr::ite(is, e[i], v);
        at = Expr::ite(is, sem::cast(Expr::bv(i, 64), DType::SI64, env.dtype(1)).simplify(), at);
      }
      base[axis] = j;
      vals.elems[ravel(base, odims)] = v;
      idxs.elems[ravel(base, odims)] = at;
    }
  });
  return {vals, idxs};
}

}  // namespace ptir::verify::enc
