// The encoding-size estimate of verify/budget.h. Calibrated on this machine's Z3 (4.8): an
// elementwise check of 512x512 f32 held about 1.5 GB in one context, ~700 bytes a term and ~2 kB per
// element query (its outcome, log line and canonical formula). The constants are rounded up: an
// estimate that is too high costs an UNKNOWN that says why; one that is too low costs the machine.
#include "verify/budget.h"

#include <algorithm>
#include <cmath>

namespace ptir::verify {
namespace {

constexpr uint64_t kTermBytes = 768;
constexpr uint64_t kHandleBytes = 16;
constexpr uint64_t kQueryBytes = 2048;
constexpr uint64_t kMax = UINT64_MAX / 4;
constexpr int kMaxDepth = 8;

uint64_t sat_add(uint64_t a, uint64_t b) { return std::min(kMax, a + b); }
uint64_t sat_mul(uint64_t a, uint64_t b) { return a == 0 || b == 0 ? 0 : a > kMax / b ? kMax : a * b; }
uint64_t elems(const TensorType& t) { return static_cast<uint64_t>(std::max<int64_t>(0, t.num_elements())); }

struct Cost {
  uint64_t terms = 0, handles = 0;
  uint64_t worst = 0;
  std::string largest;
};

class Estimator {
 public:
  Estimator(const Program& p, int unroll) : p_(p), unroll_(static_cast<uint64_t>(std::max(1, unroll))) {}

  /// Terms of body b's instructions (its parameters are given).
  void body(BodyId b, uint64_t times, int depth, Cost& c) const {
    if (b >= p_.num_bodies() || depth > kMaxDepth) return;
    p_.for_each_inst(b, [&](InstId i) { inst(i, times, depth, c); });
  }

 private:
  uint64_t operand_elems(InstId i) const {
    uint64_t n = 0;
    for (uint32_t k = 0; k < p_.num_operands(i); ++k) n = sat_add(n, elems(p_.type_of(p_.operand(i, k))));
    return n;
  }
  uint64_t result_elems(InstId i) const {
    uint64_t n = 0;
    for (uint32_t r = 0; r < p_.num_results(i); ++r) n = sat_add(n, elems(p_.type_of(p_.result(i, r))));
    return n;
  }
  /// Inline literals: one term per stored element, one handle per element.
  void literals(InstId i, Cost& c) const {
    for (uint32_t k = 0; k < p_.num_operands(i); ++k) {
      const ValueId v = p_.operand(i, k);
      if (p_.value(v).kind != ValueKind::Literal) continue;
      const Tensor& t = p_.literal(p_.value(v).def);
      c.terms = sat_add(c.terms, static_cast<uint64_t>(t.stored_elements()));
      c.handles = sat_add(c.handles, elems(t.type));
    }
  }
  /// Terms one run of instruction i makes (regions excluded).
  uint64_t own_terms(InstId i) const {
    const uint64_t out = result_elems(i), in = operand_elems(i);
    const uint64_t base = std::max(out, in);
    switch (p_.op(i)) {
      case OpCode::Constant: {
        const AttrValue* v = p_.attrs_of(i).find("value");
        return v && v->kind == AttrKind::Literal ? static_cast<uint64_t>(v->lit.stored_elements()) : 1;
      }
      case OpCode::DotGeneral: {
        // out = B*M*N, lhs = B*M*K, rhs = B*N*K: sqrt(lhs*rhs/out) = K*sqrt(B) >= K.
        const uint64_t l = elems(p_.type_of(p_.operand(i, 0))), r = elems(p_.type_of(p_.operand(i, 1)));
        const double k = out ? std::ceil(std::sqrt(static_cast<double>(l) * static_cast<double>(r) / out)) : 0;
        return sat_mul(sat_mul(out, 3), static_cast<uint64_t>(std::min(k, 1e12)) + 1);
      }
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: case OpCode::Argmax:
      case OpCode::ReduceWindow: case OpCode::ExtractPatches: case OpCode::SegmentReduce: case OpCode::TopK:
        return sat_mul(base, 3);
      // Symbolic indices pick among the indexed elements (if-then-else chains).
      case OpCode::Take: case OpCode::Gather: case OpCode::ScatterReduce: case OpCode::ScatterAdd:
      case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice:
        return sat_mul(base, 8);
      case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Tanh: case OpCode::Erf:
      case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt: case OpCode::Add: case OpCode::Sub:
      case OpCode::Mul: case OpCode::Div: case OpCode::Maximum: case OpCode::Minimum: case OpCode::Compare:
      case OpCode::Select: case OpCode::Cast: case OpCode::StopGradient:
        return sat_mul(out, 2);
      case OpCode::Reshape: case OpCode::Transpose: case OpCode::BroadcastTo: case OpCode::Slice:
      case OpCode::Concat: case OpCode::Pad: case OpCode::Tile: case OpCode::Iota:
      case OpCode::RngUniform: case OpCode::RngNormal: case OpCode::Quantize: case OpCode::Dequantize:
      case OpCode::Requantize: case OpCode::CustomCall: case OpCode::Cond: case OpCode::While: case OpCode::Scan:
        return base;
      case OpCode::Return: return 0;
    }
    return base;
  }
  /// How many times the encoding runs a region of instruction i.
  uint64_t region_times(InstId i) const {
    switch (p_.op(i)) {
      case OpCode::While: return sat_add(unroll_, 1);
      case OpCode::Scan: {
        uint64_t len = 1;
        for (uint32_t k = 0; k < p_.num_operands(i); ++k) {
          const TensorType& t = p_.type_of(p_.operand(i, k));
          if (t.rank() > 0) len = std::max(len, static_cast<uint64_t>(std::max<int64_t>(1, t.dims[0])));
        }
        return len;
      }
      case OpCode::Constant: case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log:
      case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
      case OpCode::StopGradient: case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div:
      case OpCode::Maximum: case OpCode::Minimum: case OpCode::Compare: case OpCode::Select: case OpCode::Cast:
      case OpCode::Reshape: case OpCode::Transpose: case OpCode::BroadcastTo: case OpCode::Slice:
      case OpCode::Concat: case OpCode::Pad: case OpCode::Tile: case OpCode::Iota: case OpCode::DotGeneral:
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: case OpCode::Argmax:
      case OpCode::Take: case OpCode::Gather: case OpCode::ScatterReduce: case OpCode::ScatterAdd:
      case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice: case OpCode::ExtractPatches:
      case OpCode::ReduceWindow: case OpCode::TopK: case OpCode::SegmentReduce: case OpCode::Cond:
      case OpCode::RngUniform: case OpCode::RngNormal: case OpCode::Quantize: case OpCode::Dequantize:
      case OpCode::Requantize: case OpCode::CustomCall: case OpCode::Return:
        return 1;
    }
    return 1;
  }
  void inst(InstId i, uint64_t times, int depth, Cost& c) const {
    Cost own;
    literals(i, own);
    own.terms = sat_add(own.terms, own_terms(i));
    own.handles = sat_add(own.handles, result_elems(i));
    c.terms = sat_add(c.terms, sat_mul(own.terms, times));
    c.handles = sat_add(c.handles, sat_mul(own.handles, times));
    const uint64_t here = sat_mul(own.terms, times);
    if (here > c.worst) {
      c.worst = here;
      c.largest = std::string(mnemonic(p_.op(i)));
      if (p_.num_results(i) > 0) c.largest += " -> " + to_string(p_.type_of(p_.result(i, 0)));
    }
    if (!has_trait(p_.op(i), Regions)) return;
    for (const Attr& a : p_.attrs_of(i).attrs)
      if (a.value.kind == AttrKind::Region && !a.value.ints.empty() && a.value.ints[0] >= 0)
        body(static_cast<BodyId>(a.value.ints[0]), sat_mul(times, region_times(i)), depth + 1, c);
  }

  const Program& p_;
  uint64_t unroll_;
};

}  // namespace

std::string megabytes(uint64_t bytes) { return std::to_string((bytes >> 20) + ((bytes & 0xFFFFF) != 0)) + " MB"; }

EncodingEstimate estimate_encoding(const Program& src, BodyId sb, const Program& tgt, BodyId tb, unsigned contexts,
                                   int while_unroll) {
  EncodingEstimate e;
  Cost c;
  // Inputs: a variable and its float view per element.
  for (ValueId v : src.body(sb).params) {
    c.terms = sat_add(c.terms, sat_mul(elems(src.type_of(v)), 2));
    c.handles = sat_add(c.handles, sat_mul(elems(src.type_of(v)), 2));
  }
  Estimator(src, while_unroll).body(sb, 1, 0, c);
  Estimator(tgt, while_unroll).body(tb, 1, 0, c);
  for (TypeId t : src.body(sb).result_types) e.queries = sat_add(e.queries, elems(src.type(t)));
  e.terms = c.terms;
  e.handles = c.handles;
  e.largest = c.largest;
  const uint64_t per_context = sat_add(sat_mul(c.terms, kTermBytes), sat_mul(c.handles, kHandleBytes));
  e.bytes = sat_add(sat_mul(per_context, std::max(1u, contexts)), sat_mul(e.queries, kQueryBytes));
  return e;
}

}  // namespace ptir::verify
