// Mutations of a program for the checker-soundness properties and fuzz_equiv.
#include "fuzz/harness/mutate.h"

#include <vector>

#include "ir/verifier.h"

namespace ptir::fuzz {
namespace {

struct Site {
  MutationKind kind;
  InstId inst;
  uint32_t a = 0, b = 0;  ///< operand indices (swap) or operand index (nudge; kNone: the constant's value)
};

/// The op an op swap turns `op` into, if any (same operand and result types).
std::optional<OpCode> swapped(OpCode op, DType t) {
  switch (op) {
    case OpCode::Add:
      return OpCode::Sub;
    case OpCode::Sub:
      return OpCode::Add;
    case OpCode::Mul:
      return OpCode::Div;
    case OpCode::Div:
      return OpCode::Mul;
    case OpCode::Maximum:
      return OpCode::Minimum;
    case OpCode::Minimum:
      return OpCode::Maximum;
    case OpCode::Neg:
      return OpCode::Abs;
    case OpCode::Abs:
      return OpCode::Neg;
    case OpCode::Sqrt:
      return is_float(t) ? std::optional(OpCode::Reciprocal) : std::nullopt;
    case OpCode::Reciprocal:
      return OpCode::Sqrt;
    case OpCode::Exp:
      return OpCode::Tanh;
    case OpCode::Tanh:
      return OpCode::Exp;
    case OpCode::ReduceSum:
      return OpCode::ReduceMax;
    case OpCode::ReduceMax:
      return OpCode::ReduceMin;
    case OpCode::ReduceMin:
      return OpCode::ReduceSum;
    case OpCode::RngUniform:
      return OpCode::RngNormal;
    case OpCode::Constant:
    case OpCode::Log:
    case OpCode::Erf:
    case OpCode::Rsqrt:
    case OpCode::Compare:
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
    case OpCode::DotGeneral:
    case OpCode::Argmax:
    case OpCode::Take:
    case OpCode::Gather:
    case OpCode::ScatterReduce:
    case OpCode::ScatterAdd:
    case OpCode::DynamicSlice:
    case OpCode::DynamicUpdateSlice:
    case OpCode::ExtractPatches:
    case OpCode::ReduceWindow:
    case OpCode::TopK:
    case OpCode::SegmentReduce:
    case OpCode::Cond:
    case OpCode::While:
    case OpCode::Scan:
    case OpCode::RngNormal:
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize:
    case OpCode::CustomCall:
    case OpCode::Return:
      return std::nullopt;
  }
  return std::nullopt;
}

/// The literal bits one step (one ulp for floats) away from v.
uint64_t nudge(DType t, uint64_t v, bool up) {
  if (t == DType::I1) return v ^ 1;
  const uint64_t m = bits_mask(t);
  return (up ? v + 1 : v - 1) & m;
}

std::vector<Site> sites(const Program& p) {
  std::vector<Site> s;
  for (BodyId b = 0; b < p.num_bodies(); ++b)
    p.for_each_inst(b, [&](InstId i) {
      const OpCode op = p.op(i);
      if (op == OpCode::Return) return;
      const uint32_t n = p.num_operands(i);
      for (uint32_t x = 0; x < n; ++x)
        for (uint32_t y = x + 1; y < n; ++y)
          if (p.type_id(p.operand(i, x)) == p.type_id(p.operand(i, y)) && p.operand(i, x) != p.operand(i, y))
            s.push_back({MutationKind::OperandSwap, i, x, y});
      for (uint32_t x = 0; x < n; ++x)
        if (p.value(p.operand(i, x)).kind == ValueKind::Literal && p.type_of(p.operand(i, x)).num_elements() > 0)
          s.push_back({MutationKind::ConstantNudge, i, x});
      if (op == OpCode::Constant && p.type_of(p.result(i)).num_elements() > 0)
        s.push_back({MutationKind::ConstantNudge, i, kNone});
      if (p.num_results(i) == 1 && swapped(op, p.type_of(p.result(i)).dtype)) s.push_back({MutationKind::OpSwap, i});
      if (op == OpCode::Neg) s.push_back({MutationKind::DropNegation, i});
    });
  return s;
}

std::string label(const Program& p, InstId i) {
  std::string n(p.name(p.result(i)));
  return std::string(mnemonic(p.op(i))) + (n.empty() ? "" : " (%" + n + ")");
}

}  // namespace

std::optional<Mutant> mutate(const Program& src, Choices& c) {
  std::vector<Site> all = sites(src);
  if (all.empty()) return std::nullopt;
  // Pick the kind first so rare kinds (drop negation) are not drowned by frequent ones.
  std::vector<Site> of_kind;
  const auto kind = static_cast<MutationKind>(c.range(0, 3));
  for (const Site& s : all)
    if (s.kind == kind) of_kind.push_back(s);
  const Site s = of_kind.empty() ? all[c.index(all.size())] : of_kind[c.index(of_kind.size())];
  auto p = std::make_unique<Program>(src);
  Mutant m{nullptr, s.kind, ""};
  const InstId i = s.inst;
  switch (s.kind) {
    case MutationKind::OperandSwap: {
      const ValueId a = p->operand(i, s.a), b = p->operand(i, s.b);
      p->set_operand(i, s.a, b);
      p->set_operand(i, s.b, a);
      m.description = "swap operands " + std::to_string(s.a) + " and " + std::to_string(s.b) + " of " + label(*p, i);
      break;
    }
    case MutationKind::ConstantNudge: {
      Tensor t = s.a == kNone ? *p->constant_of(p->result(i)) : p->literal(p->value(p->operand(i, s.a)).def);
      const int64_t e = static_cast<int64_t>(c.index(static_cast<size_t>(t.size())));
      const bool up = c.chance(1, 2);
      t.set_bits(e, nudge(t.dtype(), t.bits(e), up));
      if (s.a == kNone) {
        AttrSet attrs = p->attrs_of(i);
        for (Attr& a : attrs.attrs)
          if (a.name == "value") a.value.lit = t;
        p->set_attrs(i, p->intern_attrs(attrs));
      } else {
        p->set_operand(i, s.a, p->literal_value(p->intern_literal(t)));
      }
      m.description = std::string("nudge element ") + std::to_string(e) + (up ? " up" : " down") + " in " +
                      (s.a == kNone ? "the value" : "operand " + std::to_string(s.a)) + " of " + label(*p, i);
      break;
    }
    case MutationKind::OpSwap: {
      const OpCode to = *swapped(p->op(i), p->type_of(p->result(i)).dtype);
      std::vector<ValueId> ops;
      for (uint32_t k = 0; k < p->num_operands(i); ++k) ops.push_back(p->operand(i, k));
      const TypeId rt = p->type_id(p->result(i));
      const InstId n = p->create_inst(p->inst(i).body, to, ops, p->inst(i).attrs, std::span<const TypeId>(&rt, 1), i);
      m.description = "replace " + label(*p, i) + " by " + std::string(mnemonic(to));
      p->replace_all_uses(p->result(i), p->result(n));
      p->erase_inst(i);
      break;
    }
    case MutationKind::DropNegation: {
      m.description = "drop " + label(*p, i);
      p->replace_all_uses(p->result(i), p->operand(i, 0));
      p->erase_inst(i);
      break;
    }
  }
  if (!verify_program(*p, 1).empty()) return std::nullopt;  // e.g. an op swap onto a dtype it does not take
  m.program = std::move(p);
  return m;
}

}  // namespace ptir::fuzz
