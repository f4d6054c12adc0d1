// Generator: cond, while and scan regions (bodies are random statements of their own), and the rng ops.
#include <algorithm>

#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz::detail {
namespace {

bool any_type(const TensorType&) { return true; }

/// Up to `n` pool values (or new operands) of any type, as names and types.
void pick_values(Gen& g, BodyCtx& b, int n, std::vector<std::string>& names, std::vector<TensorType>& types) {
  for (int i = 0; i < n; ++i)
    if (auto v = g.input(b, Cls::Any, any_type)) {
      names.push_back(v->name);
      types.push_back(v->type);
    }
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : " ") + v[i];
  return s;
}

int body_ops(Gen& g) { return static_cast<int>(g.c().range(1, 3)); }

bool cond(Gen& g, BodyCtx& b) {
  std::vector<std::string> args;
  std::vector<TensorType> types, results;
  pick_values(g, b, static_cast<int>(g.c().range(0, 2)), args, types);
  for (int i = static_cast<int>(g.c().range(1, 2)); i > 0; --i) {
    if (!types.empty() && g.c().chance(2, 3))
      results.push_back(types[g.c().index(types.size())]);
    else if (auto d = g.pick_dtype(Cls::Any))
      results.push_back(TensorType{*d, g.random_dims()});
  }
  if (results.empty()) return false;
  std::string pred = g.operand(b, TensorType{DType::I1, {}});
  auto fill = [&](BodyCtx& r) { return g.random_body(r, results, body_ops(g)); };
  std::string then_r = g.region(b, types, results, fill);
  std::string else_r = g.region(b, types, results, fill);
  std::vector<std::string> ops = {pred};
  ops.insert(ops.end(), args.begin(), args.end());
  g.emit_multi(b, "cond" + join(ops) + " then[" + then_r + "] else[" + else_r + "]", results);
  return true;
}

/// A while loop with a counter first in its state, so it always ends: cond is `counter < N`.
bool while_loop(Gen& g, BodyCtx& b) {
  const DType ct = g.index_dtype();
  const TensorType counter{ct, {}};
  // A literal start: a parameter could start the count at MIN and run 2^31 times.
  std::vector<std::string> init = {g.int_literal(counter, -1, 1)};
  std::vector<TensorType> state = {counter};
  pick_values(g, b, static_cast<int>(g.c().range(0, 2)), init, state);
  const int64_t n = g.c().range(0, 3);
  const std::string bound = g.int_literal(counter, n, n);
  std::string c = g.region(b, state, {TensorType{DType::I1, {}}}, [&](BodyCtx& r) {
    return std::vector<std::string>{g.emit(r, "compare %a0, " + bound + " dir[lt]", TensorType{DType::I1, {}}).name};
  });
  std::string body = g.region(b, state, state, [&](BodyCtx& r) {
    std::string next = g.emit(r, "add %a0, " + g.int_literal(counter, 1, 1), counter).name;
    std::vector<TensorType> rest(state.begin() + 1, state.end());
    std::vector<std::string> out = g.random_body(r, rest, body_ops(g));
    out.insert(out.begin(), next);
    return out;
  });
  g.emit_multi(b, "while" + join(init) + " cond[" + c + "] body[" + body + "]", state);
  return true;
}

bool scan(Gen& g, BodyCtx& b) {
  std::vector<std::string> ops;
  std::vector<TensorType> carries, xs_slices, ys;
  pick_values(g, b, static_cast<int>(g.c().range(0, 2)), ops, carries);
  const int64_t len = g.c().range(0, 3);
  const int sub_rank = std::max(0, g.opts().max_rank - 1);
  for (int i = static_cast<int>(g.c().range(1, 2)); i > 0; --i) {
    auto d = g.pick_dtype(Cls::Any);
    if (!d) return false;
    TensorType slice{*d, g.random_dims(static_cast<int>(g.c().range(0, sub_rank)))};
    TensorType full = slice;
    full.dims.insert(full.dims.begin(), len);
    if (!g.fits(full)) return false;
    xs_slices.push_back(slice);
    ops.push_back(g.operand(b, full));
  }
  for (int i = static_cast<int>(g.c().range(0, 2)); i > 0; --i) {
    auto d = g.pick_dtype(Cls::Any);
    if (!d) break;
    TensorType y{*d, g.random_dims(static_cast<int>(g.c().range(0, sub_rank)))};
    TensorType full = y;
    full.dims.insert(full.dims.begin(), len);
    if (g.fits(full)) ys.push_back(y);
  }
  std::vector<TensorType> params = carries, rets = carries, results = carries;
  params.insert(params.end(), xs_slices.begin(), xs_slices.end());
  rets.insert(rets.end(), ys.begin(), ys.end());
  for (TensorType y : ys) {
    y.dims.insert(y.dims.begin(), len);
    results.push_back(y);
  }
  if (results.empty()) return false;
  std::string body = g.region(b, params, rets, [&](BodyCtx& r) { return g.random_body(r, rets, body_ops(g)); });
  g.emit_multi(b, "scan" + join(ops) + " body[" + body + "] carries[" + std::to_string(carries.size()) + "]", results);
  return true;
}

bool rng(Gen& g, BodyCtx& b, OpCode op) {
  auto d = g.pick_dtype(Cls::Float);
  if (!d) return false;
  g.emit(b,
         std::string(mnemonic(op)) + " seed[" +
             std::to_string(g.c().chance(1, 2) ? g.c().range(0, 2) : g.c().range(-2, 1000)) + "]",
         TensorType{*d, g.random_dims()});
  return true;
}

}  // namespace

bool gen_control(Gen& g, BodyCtx& b, OpCode op) {
  if (op == OpCode::Cond) return cond(g, b);
  if (op == OpCode::While) return while_loop(g, b);
  if (op == OpCode::Scan) return scan(g, b);
  if (op == OpCode::RngUniform || op == OpCode::RngNormal) return rng(g, b, op);
  return false;
}

}  // namespace ptir::fuzz::detail
