// Generator: reduce_sum/max/min, argmax and segment_reduce.
#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz::detail {
namespace {

bool any_type(const TensorType&) { return true; }

bool reduce(Gen& g, BodyCtx& b, OpCode op) {
  auto x = g.input(b, Cls::Number, any_type);
  if (!x) return false;
  std::vector<int64_t> axes, dims;
  std::vector<bool> reduced(static_cast<size_t>(x->type.rank()), false);
  for (int i = 0; i < x->type.rank(); ++i)
    if (g.c().chance(1, 2)) reduced[static_cast<size_t>(i)] = true;
  for (int i = 0; i < x->type.rank(); ++i)
    if (reduced[static_cast<size_t>(i)]) axes.push_back(i);
  for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[g.c().index(i)]);  // order is free
  const bool keep = g.c().chance(1, 3);
  for (int i = 0; i < x->type.rank(); ++i)
    if (!reduced[static_cast<size_t>(i)])
      dims.push_back(x->type.dims[static_cast<size_t>(i)]);
    else if (keep)
      dims.push_back(1);
  std::string text = std::string(mnemonic(op)) + " " + x->name + " axes" + list(axes);
  if (keep || g.c().chance(1, 4)) text += keep ? " keepdims[true]" : " keepdims[false]";
  if (g.c().chance(1, 4))
    if (auto acc = g.pick_dtype(is_float(x->type.dtype) ? Cls::Float : Cls::Int))
      if (is_float(x->type.dtype) || g.opts().int_accum_change || *acc == x->type.dtype)
        text += std::string(" accum[") + dtype_name(*acc) + "]";
  g.emit(b, text, with_dims(x->type, dims));
  return true;
}

bool argmax(Gen& g, BodyCtx& b) {
  auto x = g.input(
      b, Cls::Number,
      [](const TensorType& t) {
        for (int64_t d : t.dims)
          if (d > 0) return true;
        return false;
      },
      1);
  if (!x) return false;
  std::vector<size_t> axes;
  for (size_t i = 0; i < x->type.dims.size(); ++i)
    if (x->type.dims[i] > 0) axes.push_back(i);
  const size_t axis = axes[g.c().index(axes.size())];
  const bool keep = g.c().chance(1, 3);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < x->type.dims.size(); ++i)
    if (i != axis)
      dims.push_back(x->type.dims[i]);
    else if (keep)
      dims.push_back(1);
  std::string text = "argmax " + x->name + " axis[" + std::to_string(axis) + "]";
  if (keep) text += " keepdims[true]";
  g.emit(b, text, TensorType{g.index_dtype_for(x->type.dims[axis]), dims});
  return true;
}

bool segment(Gen& g, BodyCtx& b) {
  auto x = g.input(
      b, Cls::Number, [](const TensorType&) { return true; }, 1);
  if (!x) return false;
  const int64_t rows = x->type.dims[0];
  const int64_t n = g.c().range(rows > 0 ? 1 : 0, 4);
  TensorType ids{g.index_dtype(), {rows}};
  // In-range literal ids, or a parameter: random_inputs_avoiding_ub draws in-range ids for it.
  std::string id = g.opts().literal_indices || g.c().chance(3, 4) ? g.int_literal(ids, 0, std::max<int64_t>(n - 1, 0))
                                                                   : g.operand(b, ids, false);
  std::vector<int64_t> dims = x->type.dims;
  dims[0] = n;
  TensorType t = with_dims(x->type, dims);
  if (!g.fits(t)) return false;
  g.emit(b,
         "segment_reduce " + x->name + ", " + id + " kind[" + (g.c().chance(1, 2) ? "sum" : "max") + "] num_segments[" +
             std::to_string(n) + "]",
         t);
  return true;
}

}  // namespace

bool gen_reduce(Gen& g, BodyCtx& b, OpCode op) {
  if (op == OpCode::ReduceSum || op == OpCode::ReduceMax || op == OpCode::ReduceMin) return reduce(g, b, op);
  if (op == OpCode::Argmax) return argmax(g, b);
  if (op == OpCode::SegmentReduce) return segment(g, b);
  return false;
}

}  // namespace ptir::fuzz::detail
