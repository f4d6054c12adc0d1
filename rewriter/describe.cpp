// describe_inst / short_inst / program_fingerprint.
#include "rewriter/describe.h"

#include "ir/text.h"

namespace ptir {
namespace {

void append_value(std::string& out, const Program& p, ValueId v) {
  if (p.value(v).kind == ValueKind::Literal) {
    out += print_literal(p.literal(p.value(v).def));
    return;
  }
  out += '%';
  std::string_view n = p.name(v);
  if (n.empty()) {
    out += 'v';
    out += std::to_string(v);
  } else {
    out += n;
  }
}

void append_attr(std::string& out, const Program& p, const Attr& a) {
  out += a.name;
  out += '[';
  const AttrValue& v = a.value;
  switch (v.kind) {
    case AttrKind::Ints:
    case AttrKind::Int:
      for (size_t k = 0; k < v.ints.size(); ++k) out += (k ? ", " : "") + std::to_string(v.ints[k]);
      break;
    case AttrKind::Bool: out += !v.ints.empty() && v.ints[0] ? "true" : "false"; break;
    case AttrKind::Word: out += v.text; break;
    case AttrKind::DType: out += v.ints.empty() ? "?" : dtype_name(static_cast<DType>(v.ints[0])); break;
    case AttrKind::Region:
      out += '^';
      out += v.ints.empty() || v.ints[0] >= static_cast<int64_t>(p.num_bodies()) ? v.text
                                                                                 : p.body(v.ints[0]).name;
      break;
    case AttrKind::String: out += '"' + v.text + '"'; break;
    case AttrKind::Literal: out += print_literal(v.lit); break;
    case AttrKind::Scalar: out += v.lit.size() == 1 ? format_elem(v.lit.dtype(), v.lit.bits(0)) : "?"; break;
  }
  out += ']';
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

}  // namespace

std::string describe_inst(const Program& p, InstId i) {
  const Inst& in = p.inst(i);
  std::string out;
  if (in.op == OpCode::Return) {
    out = "return";
  } else {
    for (uint32_t k = 0; k < in.num_results; ++k) {
      if (k) out += ", ";
      append_value(out, p, p.result(i, k));
    }
    out += " = ";
    out += mnemonic(in.op);
  }
  for (uint32_t k = 0; k < in.num_operands; ++k) {
    out += k ? ", " : " ";
    append_value(out, p, p.operand(i, k));
  }
  for (const Attr& a : p.attrs_of(i).attrs) {
    out += ' ';
    append_attr(out, p, a);
  }
  if (in.op != OpCode::Return) {
    out += " -> ";
    if (in.num_results != 1) out += '(';
    for (uint32_t k = 0; k < in.num_results; ++k) out += (k ? ", " : "") + to_string(p.type_of(p.result(i, k)));
    if (in.num_results != 1) out += ')';
  }
  return out;
}

std::string short_inst(const Program& p, InstId i) {
  std::string s(1, '\'');
  s += mnemonic(p.op(i));
  s += "'(inst ";
  s += std::to_string(i);
  s += ')';
  return s;
}

uint64_t program_fingerprint(const Program& p) {
  uint64_t h = 0x5eed;
  for (BodyId b = 0; b < p.num_bodies(); ++b) {
    const Body& body = p.body(b);
    h = mix(h, 0xb0d1 + b);
    for (ValueId v : body.params) h = mix(h, v * 31 + p.type_id(v));
    for (TypeId t : body.result_types) h = mix(h, t);
    p.for_each_inst(b, [&](InstId i) {
      const Inst& in = p.inst(i);
      h = mix(h, i);
      h = mix(h, static_cast<uint64_t>(in.op) << 32 | in.attrs);
      for (const Use& u : p.operand_uses(i)) h = mix(h, u.value);
      for (uint32_t k = 0; k < in.num_results; ++k) h = mix(h, p.type_id(p.result(i, k)));
    });
  }
  return h;
}

}  // namespace ptir
