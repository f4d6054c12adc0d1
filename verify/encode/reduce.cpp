// Reductions (docs/semantics.md "Reductions and contractions", "segment_reduce"): reduce_sum/max/min,
// argmax and segment_reduce. Each output element is the left fold, from the first element, of its
// reduced positions in increasing row-major order, done in the accumulation dtype. Which positions an output
// folds, in which order, is the op's index map (ir/index_map.cpp; walk_fold/walk_scatter in index_exec.cpp).
#include "verify/encode/index_exec.h"
#include "rewriter/rules/natives.h"

namespace ptir::verify::enc {
namespace {

/// Checks the axes and the result dims of a reduction over `axes`.
void check_reduction(const OpEnv& env, const TensorType& x, const std::vector<int64_t>& axes, bool keepdims) {
  const int r = x.rank();
  std::vector<bool> reduced(r, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= r || reduced[a]) env.fail("axes must be distinct and in [0, rank)");
    reduced[a] = true;
  }
  std::vector<int64_t> odims;
  for (int d = 0; d < r; ++d)
    if (!reduced[d] || keepdims) odims.push_back(reduced[d] ? 1 : x.dims[d]);
  if (odims != env.out().dims) env.fail("result dims do not match the reduction");
}

/// The left fold of one output: from the first real element (a point whose realness is a term folds
/// under a condition, with `started` telling whether an element came before).
struct Acc {
  const sem::Folder& f;
  Expr acc, started;
  explicit Acc(const sem::Folder& fold) : f(fold), acc(fold.identity()), started(Expr::boolean(false)) {}
  void add(const ITerm& real, const Expr& v) {
    const Expr next = started.isTrue() ? f.combine(acc, v) : started.isFalse() ? v : Expr::ite(started, f.combine(acc, v), v);
    if (real.is_true()) {
      acc = next;
      started = Expr::boolean(true);
    } else {
      const Expr c = smt::IndexTerms().expr(real);
      acc = Expr::ite(c, next, acc);
      started = started || c;
    }
  }
};

Results reduce(OpEnv& env, sem::Fold kind) {
  const SymTensor& x = env.args[0];
  if (x.type.dtype != env.dtype()) env.fail("operand and result dtypes differ");
  check_reduction(env, x.type, env.attrs.ints("axes"), env.attrs.bool_or("keepdims", false));
  const DType acc = sem::accum_of(env.attrs, x.type.dtype);
  // Maximum and minimum in an accumulation dtype that holds every element value exactly
  // (rules::widens_exactly: values, infinities, NaN and zero signs kept, so the order too) pick the same
  // element as in the element dtype, and storing it back is exact: they fold in the element dtype, so an
  // f16 max chain is the same term with or without the default f32 accumulation.
  const bool in_elem = kind != sem::Fold::Sum && rules::widens_exactly(x.type.dtype, acc);
  const sem::Folder f{kind, in_elem ? x.type.dtype : acc};
  SymTensor out = env.make();
  if (kind == sem::Fold::Sum) {
    std::optional<Acc> acc;
    walk_fold(
        env, map_of(env), [&](int64_t) { acc.emplace(f); },
        [&](const ITerm& real, const std::vector<Expr>& e) { acc->add(real, f.load(e[0], x.type.dtype)); },
        [&](int64_t) { out.elems.push_back(f.store(acc->acc, env.dtype())); });
    return {out};
  }
  // Maximum and minimum do not depend on the order of the fold: where every folded position is real, the
  // output is built at once in the lattice normal form (sem::Folder::fold_all).
  std::vector<std::pair<ITerm, Expr>> seen;
  bool all_real = true;
  walk_fold(
      env, map_of(env),
      [&](int64_t) {
        seen.clear();
        all_real = true;
      },
      [&](const ITerm& real, const std::vector<Expr>& e) {
        all_real = all_real && real.is_true();
        seen.emplace_back(real, f.load(e[0], x.type.dtype));
      },
      [&](int64_t) {
        if (all_real) {
          std::vector<Expr> vs;
          vs.reserve(seen.size());
          for (const auto& p : seen) vs.push_back(p.second);
          out.elems.push_back(f.store(f.fold_all(vs), env.dtype()));
          return;
        }
        Acc acc(f);
        for (const auto& [real, v] : seen) acc.add(real, v);
        out.elems.push_back(f.store(acc.acc, env.dtype()));
      });
  return {out};
}

}  // namespace

Results encode_ReduceSum(OpEnv& env) { return reduce(env, sem::Fold::Sum); }
Results encode_ReduceMax(OpEnv& env) { return reduce(env, sem::Fold::Max); }
Results encode_ReduceMin(OpEnv& env) { return reduce(env, sem::Fold::Min); }

Results encode_Argmax(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const DType t = x.type.dtype;
  const int64_t axis = env.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= x.type.rank()) env.fail("axis out of range");
  if (!is_integer(env.dtype())) env.fail("the result must have an integer dtype");
  check_reduction(env, x.type, {axis}, env.attrs.bool_or("keepdims", false));
  if (x.type.dims[axis] == 0 && env.out().num_elements() > 0) env.fail("argmax over an empty axis");
  SymTensor out = env.make();
  Expr best, at;
  int64_t k = 0;
  walk_fold(
      env, map_of(env), [&](int64_t) { k = 0; },
      [&](const ITerm&, const std::vector<Expr>& e) {
        if (k == 0) {
          best = e[0], at = Expr::bv(0, 64);
        } else {
          const Expr take = sem::order_gt(e[0], best, t);  // strictly greater: the first maximum wins
          best = Expr::ite(take, e[0], best);
          at = Expr::ite(take, Expr::bv(static_cast<uint64_t>(k), 64), at);
        }
        ++k;
      },
      [&](int64_t) {
        if (k == 0) env.fail("argmax over an empty axis");
        out.elems.push_back(sem::cast(at, DType::SI64, env.dtype()));
      });
  return {out};
}

Results encode_SegmentReduce(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& ids = env.args[1];
  const std::string_view kind = env.attrs.word("kind");
  if (kind != "sum" && kind != "max") env.fail("kind must be sum or max");
  const int64_t n = env.attrs.int_or("num_segments", -1);
  if (x.type.rank() < 1 || ids.type.rank() != 1 || ids.type.dims[0] != x.type.dims[0] || !is_integer(ids.type.dtype))
    env.fail("segment_ids must be a 1-D integer tensor of length x.dims[0]");
  std::vector<int64_t> odims = x.type.dims;
  odims[0] = n;
  if (n < 0 || odims != env.out().dims || env.dtype() != x.type.dtype) env.fail("result type does not match");
  const sem::Folder f = kind == "sum" ? sem::Folder{sem::Fold::Sum, sem::default_accum(x.type.dtype)}
                                      : sem::Folder{sem::Fold::Max, x.type.dtype};
  // Row r folds into result[segment_ids[r], ..]: for every segment it may name, under that condition.
  std::vector<Expr> acc(static_cast<size_t>(env.out().num_elements()), f.identity());
  std::vector<Expr> started(acc.size(), Expr::boolean(false));
  walk_scatter(env, map_of(env), [&](const Expr& src, const std::vector<std::pair<int64_t, Expr>>& targets) {
    const Expr v = f.load(src, x.type.dtype);
    for (const auto& [q, hit] : targets) {
      Expr& a = acc[static_cast<size_t>(q)];
      a = Expr::ite(hit, Expr::ite(started[static_cast<size_t>(q)], f.combine(a, v), v), a);
      started[static_cast<size_t>(q)] = started[static_cast<size_t>(q)] || hit;
    }
  });
  SymTensor out = env.make();
  for (const Expr& a : acc) out.elems.push_back(f.store(a, env.dtype()));
  return {out};
}

}  // namespace ptir::verify::enc
