// Fast-math flag names and the list of ops they govern.
#include "ir/fastmath.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "ir/program.h"

namespace ptir {

const char* fastmath_flag_name(FastMathFlag f) {
  switch (f) {
    case FastMathFlag::NNaN: return "nnan";
    case FastMathFlag::NInf: return "ninf";
    case FastMathFlag::NSZ: return "nsz";
    case FastMathFlag::Reassoc: return "reassoc";
    case FastMathFlag::Contract: return "contract";
    case FastMathFlag::AFn: return "afn";
  }
  return "?";
}

std::optional<FastMathFlag> parse_fastmath_flag(std::string_view s) {
  for (int k = 0; k < kNumFastMathFlags; ++k)
    if (s == fastmath_flag_name(static_cast<FastMathFlag>(k))) return static_cast<FastMathFlag>(k);
  return std::nullopt;
}

std::string fastmath_list(FastMath fm) {
  std::string s;
  for (int k = 0; k < kNumFastMathFlags; ++k) {
    if (!fm.has(static_cast<FastMathFlag>(k))) continue;
    if (!s.empty()) s += ", ";
    s += fastmath_flag_name(static_cast<FastMathFlag>(k));
  }
  return s;
}

bool fastmath_governs(OpCode op) {
  switch (op) {
    // Float arithmetic: elementwise math, compare, and the folds (reductions, dot, windows, segments,
    // scatter combines).
    case OpCode::Neg:
    case OpCode::Abs:
    case OpCode::Exp:
    case OpCode::Log:
    case OpCode::Tanh:
    case OpCode::Erf:
    case OpCode::Rsqrt:
    case OpCode::Reciprocal:
    case OpCode::Sqrt:
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Maximum:
    case OpCode::Minimum:
    case OpCode::Compare:
    case OpCode::DotGeneral:
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin:
    case OpCode::ReduceWindow:
    case OpCode::SegmentReduce:
    case OpCode::ScatterAdd:
    case OpCode::ScatterReduce:
      return true;
    // Data movement, selection, conversion, ordering, effects, opaque ops and region ops (the ops inside
    // a region are governed themselves).
    case OpCode::Constant:
    case OpCode::Select:
    case OpCode::Cast:
    case OpCode::StopGradient:
    case OpCode::Reshape:
    case OpCode::Transpose:
    case OpCode::BroadcastTo:
    case OpCode::Slice:
    case OpCode::Concat:
    case OpCode::Pad:
    case OpCode::Tile:
    case OpCode::Iota:
    case OpCode::Argmax:
    case OpCode::Take:
    case OpCode::Gather:
    case OpCode::DynamicSlice:
    case OpCode::DynamicUpdateSlice:
    case OpCode::ExtractPatches:
    case OpCode::TopK:
    case OpCode::Cond:
    case OpCode::While:
    case OpCode::Scan:
    case OpCode::RngUniform:
    case OpCode::RngNormal:
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize:
    case OpCode::CustomCall:
    case OpCode::Return:
      return false;
  }
  return false;
}

std::vector<uint32_t> contract_operands(const Program& p, InstId i) {
  std::vector<uint32_t> out;
  if ((p.op(i) != OpCode::Add && p.op(i) != OpCode::Sub) || p.num_results(i) != 1 || p.num_operands(i) != 2)
    return out;
  const TypeId t = p.type_id(p.result(i));
  if (!is_float(p.type(t).dtype)) return out;
  for (uint32_t k = 0; k < 2; ++k) {
    const ValueId v = p.operand(i, k);
    const InstId d = p.def_inst(v);
    if (d != kNone && p.op(d) == OpCode::Mul && p.num_operands(d) == 2 && p.inst(d).body == p.inst(i).body &&
        p.type_id(v) == t)
      out.push_back(k);
  }
  return out;
}

namespace {

uint64_t double_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

}  // namespace

uint64_t contract_fused(DType t, uint64_t xb, uint64_t yb, uint64_t zb, bool sub, uint32_t k) {
  double x = float_to_double(t, xb), y = float_to_double(t, yb), z = float_to_double(t, zb);
  if (sub && k == 0) z = -z;  // a*b - c = fma(a, b, -c): negation is exact
  if (sub && k == 1) x = -x;  // c - a*b = fma(-a, b, c)
  if (t == DType::F64) {
    return double_to_float(t, std::fma(x, y, z));
  }
  // f16, bf16, f32: the product of two significands of at most 24 bits is exact in a double (and so
  // is its exponent), s = p + z is p + z rounded once and e its exact error (TwoSum; no overflow is
  // possible at these magnitudes), so p + z = s + e exactly. Rounding s + e to odd in double precision
  // (53 >= 24 + 2 bits) and then once to the dtype gives p + z rounded once to the dtype.
  const double p = x * y;
  const double s = p + z;
  if (!std::isfinite(s)) return double_to_float(t, s);  // an infinity or NaN operand: as unfused
  const double bp = s - z, bz = s - bp;
  const double e = (p - bp) + (z - bz);
  double odd = s;
  if (e != 0 && (double_bits(s) & 1) == 0) odd = std::nextafter(s, e > 0 ? INFINITY : -INFINITY);
  return double_to_float(t, odd);
}

FastMath Program::fastmath_of(BodyId b) const { return fastmath_reaching(b, /*any=*/false); }
FastMath Program::fastmath_of_any(BodyId b) const { return fastmath_reaching(b, /*any=*/true); }

FastMath Program::fastmath_reaching(BodyId b, bool any) const {
  if (b >= bodies_.size()) return {};
  if (!bodies_[b].is_region) return bodies_[b].fastmath;
  // users[r]: the bodies holding an instruction that names region r.
  std::vector<std::vector<BodyId>> users(bodies_.size());
  for (BodyId u = 0; u < bodies_.size(); ++u)
    for_each_inst(u, [&](InstId i) {
      for (const Attr& a : attrs_of(i).attrs)
        if (a.value.kind == AttrKind::Region && !a.value.ints.empty() && a.value.ints[0] >= 0 &&
            static_cast<uint64_t>(a.value.ints[0]) < bodies_.size())
          users[static_cast<size_t>(a.value.ints[0])].push_back(u);
    });
  // The flags every function reaching b has in common (any: the flags some function reaching b has); a
  // region reached by no function has none.
  FastMath all{any ? uint8_t{0} : kAllFastMathBits};
  bool reached = false;
  std::vector<bool> seen(bodies_.size(), false);
  std::vector<BodyId> work{b};
  seen[b] = true;
  while (!work.empty()) {
    const BodyId r = work.back();
    work.pop_back();
    for (BodyId u : users[r]) {
      if (!bodies_[u].is_region) {
        all = any ? (all | bodies_[u].fastmath) : (all & bodies_[u].fastmath);
        reached = true;
      } else if (!seen[u]) {
        seen[u] = true;
        work.push_back(u);
      }
    }
  }
  return reached ? all : FastMath{};
}

}  // namespace ptir
