// Generator: elementwise ops, compare/select, cast, stop_gradient and constant.
#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz::detail {
namespace {

bool any_type(const TensorType&) { return true; }

/// An operand of type t, sometimes written as a broadcast_to of a smaller value (numpy-style broadcasts).
std::string maybe_broadcast(Gen& g, BodyCtx& b, const TensorType& t) {
  if (t.rank() == 0 || !g.c().chance(1, 4) || !g.allowed(OpCode::BroadcastTo)) return g.operand(b, t);
  const int drop = static_cast<int>(g.c().range(0, t.rank()));
  std::vector<int64_t> dims(t.dims.begin() + drop, t.dims.end());
  for (int64_t& d : dims)
    if (g.c().chance(1, 3)) d = 1;
  std::string src = g.operand(b, with_dims(t, dims));
  return g.emit(b, "broadcast_to " + src, t).name;
}

const char* kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};

}  // namespace

bool gen_elementwise(Gen& g, BodyCtx& b, OpCode op) {
  const std::string m(mnemonic(op));
  if (op == OpCode::Constant) {
    auto d = g.pick_dtype(Cls::Any);
    if (!d) return false;
    TensorType t{*d, g.random_dims()};
    g.emit(b, "constant " + g.literal(t), t);
    return true;
  }
  if (has_trait(op, Elementwise) && op_info(op).min_operands == 1 && op != OpCode::Cast && op != OpCode::StopGradient) {
    const bool number = op == OpCode::Neg || op == OpCode::Abs;
    auto x = g.input(b, number ? Cls::Number : Cls::Float, any_type);
    if (!x) return false;
    g.emit(b, m + " " + x->name, x->type);
    return true;
  }
  if (op == OpCode::Add || op == OpCode::Sub || op == OpCode::Mul || op == OpCode::Div || op == OpCode::Maximum ||
      op == OpCode::Minimum) {
    auto x = g.input(b, Cls::Number, any_type);
    if (!x) return false;
    std::string y = maybe_broadcast(g, b, x->type);
    if (g.c().chance(1, 2))
      g.emit(b, m + " " + x->name + ", " + y, x->type);
    else
      g.emit(b, m + " " + y + ", " + x->name, x->type);
    return true;
  }
  if (op == OpCode::Compare) {
    auto x = g.input(b, Cls::Any, any_type);
    if (!x) return false;
    std::string y = maybe_broadcast(g, b, x->type);
    g.emit(b, "compare " + x->name + ", " + y + " dir[" + kDirs[g.c().index(6)] + "]", with_dtype(x->type, DType::I1));
    return true;
  }
  if (op == OpCode::Select) {
    auto x = g.input(b, Cls::Any, any_type);
    if (!x) return false;
    std::string pred = g.operand(b, with_dtype(x->type, DType::I1));
    std::string y = maybe_broadcast(g, b, x->type);
    g.emit(b, "select " + pred + ", " + x->name + ", " + y, x->type);
    return true;
  }
  if (op == OpCode::Cast) {
    auto x = g.input(b, Cls::Any, any_type);
    auto d = g.pick_dtype(Cls::Any);
    if (!x || !d) return false;
    if (!g.opts().float_to_int_cast && is_float(x->type.dtype) && !is_float(*d) && *d != DType::I1) return false;
    g.emit(b, "cast " + x->name, with_dtype(x->type, *d));
    return true;
  }
  if (op == OpCode::StopGradient) {
    auto x = g.input(b, Cls::Any, any_type);
    if (!x) return false;
    g.emit(b, "stop_gradient " + x->name, x->type);
    return true;
  }
  return false;  // not an elementwise op: gen_op never sends one here
}

}  // namespace ptir::fuzz::detail
