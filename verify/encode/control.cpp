// Control flow (docs/semantics.md "Control flow"): cond encodes both regions and chooses; while is
// unrolled to the checker's bound, recording where the loop may still be running; scan is unrolled
// over its static length. UB of a region counts only on the paths that run it.
#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

BodyId region_of(const OpEnv& env, std::string_view name) {
  const AttrValue* v = env.attrs.find(name);
  if (!v || v->kind != AttrKind::Region || v->ints.empty() || v->ints[0] < 0 ||
      static_cast<uint64_t>(v->ints[0]) >= env.p.num_bodies())
    env.fail("missing region " + std::string(name) + "[^r]");
  return static_cast<BodyId>(v->ints[0]);
}

/// Encodes a region and checks that its first `count` results have the op's result types from `from`.
BodyEncoding run(const OpEnv& env, BodyId b, std::span<const SymTensor> in, size_t from, size_t count) {
  BodyEncoding e = encode_body(env.p, b, in, env.opts);
  if (e.results.size() < count) env.fail("the region returns too few results");
  for (size_t k = 0; k < count; ++k)
    if (e.results[k].type != env.out(from + k)) env.fail("a region result has the wrong type");
  return e;
}

SymTensor choose(const Expr& c, const SymTensor& a, const SymTensor& b) {
  SymTensor r{a.type, {}};
  for (size_t i = 0; i < a.elems.size(); ++i) r.elems.push_back(Expr::ite(c, a.elems[i], b.elems[i]));
  return r;
}

/// The i1 scalar a while's cond region returns.
Expr condition(const OpEnv& env, const BodyEncoding& e) {
  if (e.results.size() != 1 || e.results[0].type.dtype != DType::I1 || e.results[0].elems.size() != 1)
    env.fail("the cond region must return one i1 scalar");
  return e.results[0].elems[0];
}

}  // namespace

Results encode_Cond(OpEnv& env) {
  const SymTensor& pred = env.args[0];
  if (pred.type.dtype != DType::I1 || pred.elems.size() != 1) env.fail("the predicate must be an i1 scalar");
  const Expr c = pred.elems[0];
  const std::span<const SymTensor> args = env.args.subspan(1);
  const size_t n = env.result_types.size();
  const BodyEncoding t = run(env, region_of(env, "then"), args, 0, n);
  const BodyEncoding e = run(env, region_of(env, "else"), args, 0, n);
  if (t.results.size() != n || e.results.size() != n) env.fail("a region returns a different number of results");
  env.add_ub(Expr::ite(c, t.ub, e.ub));
  env.unfinished = env.unfinished || Expr::ite(c, t.unfinished, e.unfinished);
  Results out;
  for (size_t k = 0; k < n; ++k) out.push_back(choose(c, t.results[k], e.results[k]));
  return out;
}

Results encode_While(OpEnv& env) {
  const BodyId cond_b = region_of(env, "cond"), body_b = region_of(env, "body");
  const size_t n = env.result_types.size();
  if (env.args.size() != n) env.fail("the state and the results differ in number");
  std::vector<SymTensor> state(env.args.begin(), env.args.end());
  for (size_t k = 0; k < n; ++k)
    if (state[k].type != env.out(k)) env.fail("the state has the wrong type");
  Expr running = Expr::boolean(true);  // the loop has not stopped before this iteration
  for (int it = 0;; ++it) {
    const BodyEncoding c = encode_body(env.p, cond_b, state, env.opts);
    const Expr go = (running && condition(env, c)).simplify();  // folds counted loops to true/false
    env.add_ub(running && c.ub);
    env.unfinished = env.unfinished || (running && c.unfinished);
    if (go.isFalse()) break;
    if (it >= env.opts.while_unroll) {  // would run body number while_unroll + 1
      env.unfinished = env.unfinished || go;
      break;
    }
    const BodyEncoding b = run(env, body_b, state, 0, n);
    if (b.results.size() != n) env.fail("the body returns a different number of values than the state");
    env.add_ub(go && b.ub);
    env.unfinished = env.unfinished || (go && b.unfinished);
    for (size_t k = 0; k < n; ++k) state[k] = go.isTrue() ? b.results[k] : choose(go, b.results[k], state[k]);
    running = go;
  }
  return state;
}

Results encode_Scan(OpEnv& env) {
  const BodyId body_b = region_of(env, "body");
  const int64_t nc = env.attrs.int_or("carries", -1);
  const size_t nres = env.result_types.size();
  if (nc < 0 || static_cast<size_t>(nc) > env.args.size() || static_cast<size_t>(nc) > nres)
    env.fail("carries[n] must be at most the number of operands and results");
  const size_t nx = env.args.size() - nc, ny = nres - nc;
  int64_t len = 0;  // L: the xs' leading dim, else the ys', else 0
  if (nx > 0) len = env.args[nc].type.rank() > 0 ? env.args[nc].type.dims[0] : -1;
  else if (ny > 0) len = env.out(nc).rank() > 0 ? env.out(nc).dims[0] : -1;
  for (size_t k = 0; k < nx; ++k)
    if (env.args[nc + k].type.rank() < 1 || env.args[nc + k].type.dims[0] != len) env.fail("xs need one leading dim L");
  for (size_t k = 0; k < ny; ++k)
    if (env.out(nc + k).rank() < 1 || env.out(nc + k).dims[0] != len) env.fail("ys need the leading dim L");
  std::vector<SymTensor> carries(env.args.begin(), env.args.begin() + nc);
  for (int64_t k = 0; k < nc; ++k)
    if (carries[k].type != env.out(k)) env.fail("a carry has the wrong type");
  Results out(nres);
  for (size_t k = 0; k < ny; ++k) out[nc + k] = env.make(nc + k);
  for (int64_t i = 0; i < len; ++i) {
    std::vector<SymTensor> in = carries;
    for (size_t k = 0; k < nx; ++k) {
      const SymTensor& x = env.args[nc + k];
      SymTensor row{TensorType{x.type.dtype, std::vector<int64_t>(x.type.dims.begin() + 1, x.type.dims.end())}, {}};
      const int64_t m = row.type.num_elements();
      row.elems.assign(x.elems.begin() + i * m, x.elems.begin() + (i + 1) * m);
      in.push_back(std::move(row));
    }
    const BodyEncoding b = run(env, body_b, in, 0, nc);
    if (b.results.size() != nres) env.fail("the body must return the carries then one value per y");
    env.add_ub(b.ub);
    env.unfinished = env.unfinished || b.unfinished;
    for (size_t k = 0; k < ny; ++k) {
      const SymTensor& yi = b.results[nc + k];
      const auto& yd = env.out(nc + k).dims;
      if (yi.type.dtype != env.dtype(nc + k) || yi.type.dims != std::vector<int64_t>(yd.begin() + 1, yd.end()))
        env.fail("a body result does not match the stacked result type");
      out[nc + k].elems.insert(out[nc + k].elems.end(), yi.elems.begin(), yi.elems.end());
    }
    carries.assign(b.results.begin(), b.results.begin() + nc);
  }
  for (int64_t k = 0; k < nc; ++k) out[k] = carries[k];
  return out;
}

}  // namespace ptir::verify::enc
