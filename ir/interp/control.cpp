// Control-flow kernels (docs/semantics.md "Control flow"): cond, while and scan run their region bodies
// through run_region, which guards nesting depth and recursion. A while that is still running after
// max_while_iterations body runs stops with RunStatus::Bound, and so, at once, does one whose state
// comes back (it would never finish).
#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

#include <algorithm>

namespace ptir::interp {
namespace {

/// The body id of region attribute `name`; false when missing or unresolved.
bool region_of(const Call& c, std::string_view name, BodyId& b) {
  const AttrValue* v = c.attrs.find(name);
  if (!v || v->kind != AttrKind::Region || v->ints.empty() || v->ints[0] < 0 ||
      static_cast<uint64_t>(v->ints[0]) >= c.p.num_bodies())
    return false;
  b = static_cast<BodyId>(v->ints[0]);
  return true;
}

/// Region results must have the op's result types (from index `from` on, `count` of them).
Status check_types(const Call& c, const std::vector<Tensor>& got, const Out& want, size_t from, size_t count) {
  if (got.size() < count) return c.fail("the region returns too few results");
  for (size_t k = 0; k < count; ++k)
    if (got[k].type != want[from + k].type)
      return c.fail("region result " + std::to_string(k) + " has type " + to_string(got[k].type) + ", expected " +
                    to_string(want[from + k].type));
  return Status::success();
}

std::vector<Tensor> copy_args(const Call& c, size_t from, size_t to) {
  std::vector<Tensor> v;
  for (size_t k = from; k < to; ++k) v.push_back(c.args[k]);
  return v;
}

/// Runs the while's cond region on the state, read in place; `go` is its i1 result. `r` is scratch
/// (its capacity is kept from one iteration to the next).
Status run_while_cond(const Call& c, BodyId cond, const std::vector<Tensor>& state, std::vector<Tensor>& r, bool& go) {
  if (Status st = run_region_lent(c.exec, cond, {}, state, r); !st.ok()) return st;
  if (r.size() != 1 || r[0].dtype() != DType::I1 || r[0].size() != 1)
    return c.fail("the cond region must return one i1 scalar");
  go = (r[0].bits(0) & 1) != 0;
  return Status::success();
}

}  // namespace

Status eval_cond(const Call& c, Out& out) {
  const Tensor& pred = c.args[0];
  BodyId then_b, else_b;
  if (!region_of(c, "then", then_b) || !region_of(c, "else", else_b)) return c.fail("missing then[^r] or else[^r]");
  if (pred.dtype() != DType::I1 || pred.size() != 1) return c.fail("the predicate must be an i1 scalar");
  std::vector<Tensor> results;
  Status st = run_region(c.exec, (get(pred, 0) & 1) ? then_b : else_b, copy_args(c, 1, c.args.size()), results);
  if (!st.ok()) return st;
  if (results.size() != out.size()) return c.fail("the region returns a different number of results");
  if (st = check_types(c, results, out, 0, out.size()); !st.ok()) return st;
  for (size_t k = 0; k < out.size(); ++k) out[k] = std::move(results[k]);
  return Status::success();
}

Status eval_while(const Call& c, Out& out) {
  BodyId cond_b, body_b;
  if (!region_of(c, "cond", cond_b) || !region_of(c, "body", body_b)) return c.fail("missing cond[^r] or body[^r]");
  if (c.args.size() != out.size()) return c.fail("the state and the results differ in number");
  std::vector<Tensor> state = copy_args(c, 0, c.args.size()), next, go_r;
  if (Status st = check_types(c, state, out, 0, out.size()); !st.ok()) return st;
  const int64_t bound = options(c.exec).max_while_iterations;
  // A state that comes back never finishes: cond and body see nothing but the state (and values fixed
  // for the whole loop), and the interpreter is deterministic, so from a repeat on the loop goes round
  // the same cycle until the bound, which it would reach with no error on the way (every step of the
  // cycle ran without one). It stops with the same status at once. Repeats are found with Brent's
  // method: the state after iteration 2^k is kept, and each later state compared with it (same types,
  // forms and bytes: two representations of equal values may be missed, never confused). Only for a
  // small state (kCycleBytes): larger ones are not copied and the loop runs to the bound as before.
  constexpr size_t kCycleBytes = 4096;
  size_t state_bytes = 0;
  for (const Tensor& t : state) state_bytes += t.data.size();
  const bool watch = state_bytes <= kCycleBytes;
  std::vector<Tensor> kept;  // the state after iteration `kept_at`
  int64_t kept_at = -1, next_keep = 1;
  for (int64_t iters = 0;; ++iters) {
    bool go = false;
    if (Status st = run_while_cond(c, cond_b, state, go_r, go); !st.ok()) return st;
    if (!go) break;
    if (iters >= bound) return Status::bound(c.msg("did not finish within " + std::to_string(bound) + " iterations"));
    // The state's tensors are moved into the body's frame; the vector keeps its capacity.
    if (Status st = run_region_lent(c.exec, body_b, std::move(state), {}, next); !st.ok()) return st;
    if (next.size() != out.size()) return c.fail("the body returns a different number of values than the state");
    if (Status st = check_types(c, next, out, 0, out.size()); !st.ok()) return st;
    std::swap(state, next);  // both keep their capacity
    next.clear();
    if (!watch) continue;
    const int64_t done = iters + 1;  // body runs so far; `state` is the state after them
    if (kept_at >= 0 && std::equal(state.begin(), state.end(), kept.begin(), kept.end(),
                                   [](const Tensor& a, const Tensor& b) { return a.splat == b.splat && a == b; }))
      return Status::bound(c.msg("never finishes: the state after iteration " + std::to_string(done) +
                                 " is the state after iteration " + std::to_string(kept_at) +
                                 " (it would not finish within " + std::to_string(bound) + " iterations)"));
    if (done == next_keep) {
      kept = state;
      kept_at = done;
      next_keep *= 2;
    }
  }
  for (size_t k = 0; k < out.size(); ++k) out[k] = std::move(state[k]);
  return Status::success();
}

Status eval_scan(const Call& c, Out& out) {
  BodyId body_b;
  if (!region_of(c, "body", body_b)) return c.fail("missing body[^r]");
  const int64_t n = c.attrs.int_or("carries", -1);
  if (n < 0 || static_cast<size_t>(n) > c.args.size() || static_cast<size_t>(n) > out.size())
    return c.fail("carries[n] must be at most the number of operands and results");
  const size_t nx = c.args.size() - n, ny = out.size() - n;
  int64_t len = 0;  // L: the xs' leading dim, else the ys', else 0
  if (nx > 0) len = c.args[n].type.rank() > 0 ? c.args[n].type.dims[0] : -1;
  else if (ny > 0) len = out[n].type.rank() > 0 ? out[n].type.dims[0] : -1;
  for (size_t k = 0; k < nx; ++k)
    if (c.args[n + k].type.rank() < 1 || c.args[n + k].type.dims[0] != len) return c.fail("xs need one leading dim L");
  for (size_t k = 0; k < ny; ++k)
    if (out[n + k].type.rank() < 1 || out[n + k].type.dims[0] != len) return c.fail("ys results need the leading dim L");
  std::vector<Tensor> carries = copy_args(c, 0, n), res;
  if (Status st = check_types(c, carries, out, 0, n); !st.ok()) return st;
  for (int64_t i = 0; i < len; ++i) {
    std::vector<Tensor> in = std::move(carries);
    for (size_t k = 0; k < nx; ++k) {
      const Tensor& x = c.args[n + k];
      TensorType row_type{x.dtype(), std::vector<int64_t>(x.type.dims.begin() + 1, x.type.dims.end())};
      if (x.splat) {  // a compact splat stores one element: every row is that element again
        in.push_back(Tensor::filled(std::move(row_type), x.bits(0)));
        continue;
      }
      Tensor row(std::move(row_type));
      const size_t bytes = row.data.size();
      if (bytes > 0) std::memcpy(row.data.data(), x.data.data() + i * bytes, bytes);
      in.push_back(std::move(row));
    }
    if (Status st = run_region(c.exec, body_b, std::move(in), res); !st.ok()) return st;
    if (res.size() != out.size()) return c.fail("the body must return the carries then one value per y");
    if (Status st = check_types(c, res, out, 0, n); !st.ok()) return st;
    for (size_t k = 0; k < ny; ++k) {
      Tensor& y = out[n + k];
      const Tensor& yi = res[n + k];
      const size_t bytes = static_cast<size_t>(y.type.num_elements() / len) * dtype_bytes(y.dtype());
      if (yi.dtype() != y.dtype() || yi.type.dims != std::vector<int64_t>(y.type.dims.begin() + 1, y.type.dims.end()))
        return c.fail("body result " + std::to_string(n + k) + " does not match the stacked result type");
      if (bytes == 0) continue;
      if (y.splat) y.expand();
      if (yi.splat) {  // a splat y slice (a returned literal) stores one element
        const int64_t per = static_cast<int64_t>(bytes) / dtype_bytes(y.dtype());
        for (int64_t e = 0; e < per; ++e) y.set_bits(i * per + e, yi.bits(0));
      } else {
        std::memcpy(y.data.data() + i * bytes, yi.data.data(), bytes);
      }
    }
    carries.assign(std::make_move_iterator(res.begin()), std::make_move_iterator(res.begin() + n));
  }
  for (int64_t k = 0; k < n; ++k) out[k] = std::move(carries[k]);
  return Status::success();
}

}  // namespace ptir::interp
