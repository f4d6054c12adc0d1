// The element semantics of the elementwise ops (docs/semantics.md "Elementwise ops"), one element at a
// time: the interpreter's kernels (elementwise.cpp) loop over these, and the exhaustive backend of the
// checker (verify/exhaustive/) evaluates the same functions on every input of a narrow dtype. One copy of
// the semantics: a change here changes both.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

#include "ir/interp/kernels.h"
#include "ir/ops.h"

namespace ptir::interp {

/// The f32 function behind exp/log/tanh/erf/rsqrt of f32, f16 and bf16 (those two round its result
/// once). The SMT facts about the transcendentals (verify/encode/transcendental.h) are checked against it
/// on every f32 input.
inline float f32_transcendental(Unary kind, float x) {
  switch (kind) {
    case Unary::Exp: return std::exp(x);
    case Unary::Log: return std::log(x);
    case Unary::Tanh: return std::tanh(x);
    case Unary::Erf: return std::erf(x);
    case Unary::Rsqrt: return 1.0f / std::sqrt(x);
    case Unary::Neg: case Unary::Abs: case Unary::Reciprocal: case Unary::Sqrt: case Unary::Identity: break;
  }
  return x;
}

/// The Unary kind of an elementwise unary op (stop_gradient: Identity); false for every other op. The
/// interpreter's dispatch, the exhaustive backend (verify/exhaustive/) and the transcendental lemmas
/// (verify/encode/transcendental.h) map ops to these functions through it.
inline bool unary_of(OpCode op, Unary& u) {
  switch (op) {
    case OpCode::Neg: u = Unary::Neg; return true;
    case OpCode::Abs: u = Unary::Abs; return true;
    case OpCode::Exp: u = Unary::Exp; return true;
    case OpCode::Log: u = Unary::Log; return true;
    case OpCode::Tanh: u = Unary::Tanh; return true;
    case OpCode::Erf: u = Unary::Erf; return true;
    case OpCode::Rsqrt: u = Unary::Rsqrt; return true;
    case OpCode::Reciprocal: u = Unary::Reciprocal; return true;
    case OpCode::Sqrt: u = Unary::Sqrt; return true;
    case OpCode::StopGradient: u = Unary::Identity; return true;
    default: return false;
  }
}

/// The Binary kind of an elementwise arithmetic op (add sub mul div maximum minimum); false for every
/// other op. The interpreter's dispatch and the exhaustive backend read it.
inline bool binary_of(OpCode op, Binary& b) {
  switch (op) {
    case OpCode::Add: b = Binary::Add; return true;
    case OpCode::Sub: b = Binary::Sub; return true;
    case OpCode::Mul: b = Binary::Mul; return true;
    case OpCode::Div: b = Binary::Div; return true;
    case OpCode::Maximum: b = Binary::Max; return true;
    case OpCode::Minimum: b = Binary::Min; return true;
    default: return false;
  }
}

/// The libm function of `kind` in the dtype's precision: f64 in double, everything else in f32.
inline double transcendental(Unary kind, DType t, double v) {
  if (t == DType::F64) {
    switch (kind) {
      case Unary::Exp: return std::exp(v);
      case Unary::Log: return std::log(v);
      case Unary::Tanh: return std::tanh(v);
      case Unary::Erf: return std::erf(v);
      case Unary::Rsqrt: return 1.0 / std::sqrt(v);
      case Unary::Neg: case Unary::Abs: case Unary::Reciprocal: case Unary::Sqrt: case Unary::Identity: break;
    }
    return v;
  }
  return f32_transcendental(kind, static_cast<float>(v));  // exact: the value is an f32/f16/bf16 value
}

inline uint64_t float_unary(Unary kind, DType t, uint64_t b) {
  switch (kind) {
    case Unary::Neg: return b ^ sign_mask(t);
    case Unary::Abs: return b & ~sign_mask(t) & bits_mask(t);
    case Unary::Identity: return b;
    case Unary::Sqrt: return store_f(t, std::sqrt(load_f(t, b)));
    case Unary::Reciprocal: return store_f(t, 1.0 / load_f(t, b));
    case Unary::Exp: case Unary::Log: case Unary::Tanh: case Unary::Erf: case Unary::Rsqrt:
      return store_f(t, transcendental(kind, t, load_f(t, b)));
  }
  return b;
}

/// Integer unary ops; false for the ops integers do not have.
inline bool int_unary(Unary kind, DType t, uint64_t b, uint64_t& r) {
  switch (kind) {
    case Unary::Neg: r = (uint64_t{0} - b) & bits_mask(t); return true;
    case Unary::Abs: r = is_signed_int(t) && int_value(t, b) < 0 ? (uint64_t{0} - b) & bits_mask(t) : b; return true;
    case Unary::Identity: r = b; return true;
    case Unary::Exp: case Unary::Log: case Unary::Tanh: case Unary::Erf: case Unary::Rsqrt:
    case Unary::Reciprocal: case Unary::Sqrt: return false;
  }
  return false;
}

inline double float_binary(Binary kind, double a, double b) {
  switch (kind) {
    case Binary::Add: return a + b;
    case Binary::Sub: return a - b;
    case Binary::Mul: return a * b;
    case Binary::Div: return a / b;
    case Binary::Max: return max2019(a, b);
    case Binary::Min: return min2019(a, b);
  }
  return a;
}

/// Integer binary ops on raw bits; false on UB (div by zero, MIN / -1) with `why` set.
/// `m` is bits_mask(t), passed by loops that hoist it (verify/exhaustive/).
inline bool int_binary(Binary kind, DType t, uint64_t m, uint64_t a, uint64_t b, uint64_t& r, const char*& why) {
  switch (kind) {
    case Binary::Add: r = (a + b) & m; return true;
    case Binary::Sub: r = (a - b) & m; return true;
    case Binary::Mul: r = (a * b) & m; return true;
    case Binary::Max: r = int_less(t, a, b) ? b : a; return true;
    case Binary::Min: r = int_less(t, b, a) ? b : a; return true;
    case Binary::Div: break;
  }
  if ((b & m) == 0) { why = "integer division by zero"; return false; }
  if (!is_signed_int(t)) { r = ((a & m) / (b & m)) & m; return true; }
  int64_t x = int_value(t, a), y = int_value(t, b);
  if (x == int_min(t) && y == -1) { why = "integer overflow (MIN / -1)"; return false; }
  r = static_cast<uint64_t>(x / y) & m;
  return true;
}
inline bool int_binary(Binary kind, DType t, uint64_t a, uint64_t b, uint64_t& r, const char*& why) {
  return int_binary(kind, t, bits_mask(t), a, b, r, why);
}


/// The direction of `compare` as 0..5 (lt le eq ge gt ne), -1 for an unknown word.
inline int compare_dir(std::string_view dir) {
  return dir == "lt" ? 0 : dir == "le" ? 1 : dir == "eq" ? 2 : dir == "ge" ? 3 : dir == "gt" ? 4 : dir == "ne" ? 5 : -1;
}

/// `compare` on one pair of elements of dtype `t`, direction `d` from compare_dir (IEEE: with a NaN, lt
/// le eq ge gt are false and ne is true; -0 == +0; integers signed or unsigned by dtype, i1 false < true).
inline bool compare_elem(DType t, int d, uint64_t a, uint64_t b) {
  bool lt, eq, gt;
  if (is_float(t)) {
    double x = load_f(t, a), y = load_f(t, b);
    lt = x < y, eq = x == y, gt = x > y;
  } else {
    lt = int_less(t, a, b), gt = int_less(t, b, a), eq = !lt && !gt;
  }
  const bool r[6] = {lt, lt || eq, eq, gt || eq, gt, !eq};
  return r[d];
}

}  // namespace ptir::interp
