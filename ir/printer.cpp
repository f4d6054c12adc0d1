// Printer for the PTIR text format. Output is canonical: printing a parsed print is the identity.
#include <charconv>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/text.h"

namespace ptir {
namespace {

void append_elems(std::string& out, const Tensor& t, size_t dim, int64_t& idx) {
  out += '[';
  int64_t n = t.type.dims[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    if (dim + 1 == t.type.dims.size()) out += format_elem(t.dtype(), t.bits(idx++));
    else append_elems(out, t, dim + 1, idx);
  }
  out += ']';
}

void append_dense(std::string& out, const Tensor& t) {
  out += "dense<";
  int64_t n = t.size();
  if (t.type.rank() == 0 || (n >= 2 && t.is_splat())) {
    out += format_elem(t.dtype(), t.bits(0));
  } else {
    int64_t idx = 0;
    append_elems(out, t, 0, idx);
  }
  out += '>';
}

void append_literal(std::string& out, const Tensor& t) {
  append_dense(out, t);
  out += " : ";
  append_type(out, t.type);
}

/// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80), or 0.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 > 0x9F) || (b == 0xF0 && b1 < 0x90) || (b == 0xF4 && b1 > 0x8F))
    return 0;  // overlong, surrogate or past U+10FFFF
  return n;
}

/// A string attribute in the spec's syntax: UTF-8 text kept as is; quotes and backslashes escaped;
/// control bytes, NUL and bytes that are not well-formed UTF-8 as \xHH, so every byte round-trips.
std::string quote(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string q = "\"";
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      q += '\\', q += c, ++i;
    } else if (u >= 0x20 && u < 0x7F) {
      q += c, ++i;
    } else if (size_t n = u >= 0x80 ? utf8_length(s, i) : 0) {
      q.append(s, i, n), i += n;
    } else {
      q += "\\x", q += hex[u >> 4], q += hex[u & 15], ++i;
    }
  }
  return q + "\"";
}

void append_attr_value(std::string& out, const AttrValue& v, const Program& p) {
  switch (v.kind) {
    case AttrKind::Ints:
    case AttrKind::Int:
      for (size_t i = 0; i < v.ints.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(v.ints[i]);
      }
      break;
    case AttrKind::Bool: out += v.ints.at(0) ? "true" : "false"; break;
    case AttrKind::Word: out += v.text; break;
    case AttrKind::DType: out += dtype_name(static_cast<DType>(v.ints.at(0))); break;
    case AttrKind::Region:
      out += '^';
      out += v.ints.empty() ? v.text : p.body(static_cast<BodyId>(v.ints[0])).name;
      break;
    case AttrKind::String: out += quote(v.text); break;
    case AttrKind::Literal: append_literal(out, v.lit); break;
    case AttrKind::Scalar: out += format_elem(v.lit.dtype(), v.lit.bits(0)); break;
  }
}

class Printer {
 public:
  explicit Printer(const Program& p) : p_(p) {}

  std::string run() {
    out_.reserve(p_.num_inst_slots() * 48);
    print_bodies();
    return std::move(out_);
  }
  /// Writes the text to `f` in pieces of about kChunk bytes (one buffer, reused: printing a large
  /// program allocates no memory in proportion to it). False when a write failed.
  bool run(std::FILE* f) {
    sink_ = f;
    out_.reserve(kChunk + 4096);
    print_bodies();
    flush();
    return sink_ok_;
  }

 private:
  /// Gives every unnamed value of body b a fresh name `tN`, skipping the N of names `tN` already used
  /// in the body. A name the parser could not read back (ProgramRewriter::set_name takes any string: a
  /// plugin's pattern renamed a parameter to `y: ...) -> ... {\n  return %x\n}\nfunc @dead(...`, and
  /// the printed text said another program than the one in memory) is not printed: the value gets a
  /// fresh name too. (A name another value of the body has makes the text fail to parse, "redefinition
  /// of value": it cannot say another program.)
  void name_values(BodyId b) {
    const Body& body = p_.body(b);
    std::vector<ValueId> unnamed;
    std::vector<bool> taken;  // N is taken when the body already has a value named tN
    auto visit = [&](ValueId v) {
      std::string_view n = p_.name(v);
      if (n.empty()) { unnamed.push_back(v); return; }
      if (!is_readable_name(n)) {
        unnamed.push_back(v);
        return;
      }
      if (n.size() < 2 || n.size() > 10 || n[0] != 't' || (n.size() > 2 && n[1] == '0')) return;
      uint64_t k = 0;
      for (size_t i = 1; i < n.size(); ++i) {
        if (n[i] < '0' || n[i] > '9') return;
        k = k * 10 + static_cast<uint64_t>(n[i] - '0');
      }
      if (k < (uint64_t{1} << 32)) {
        if (k >= taken.size()) taken.resize(k + 1, false);
        taken[k] = true;
      }
    };
    for (ValueId v : body.params) visit(v);
    p_.for_each_inst(b, [&](InstId i) {
      for (uint32_t k = 0; k < p_.num_results(i); ++k) visit(p_.result(i, k));
    });
    if (unnamed.empty()) return;
    if (fresh_.size() < p_.num_values()) fresh_.resize(p_.num_values(), kNone);
    uint64_t counter = 0;
    for (ValueId v : unnamed) {
      while (counter < taken.size() && taken[counter]) ++counter;
      fresh_[v] = static_cast<uint32_t>(counter++);
    }
  }

  void append_value_name(ValueId v) {
    out_ += '%';
    std::string_view n = p_.name(v);
    if (!n.empty() && !(v < fresh_.size() && fresh_[v] != kNone)) {
      out_ += n;
    } else {
      char buf[16];
      buf[0] = 't';
      auto r = std::to_chars(buf + 1, buf + sizeof buf, v < fresh_.size() ? fresh_[v] : 0u);
      out_.append(buf, r.ptr);
    }
  }

  void append_operand(ValueId v) {
    if (p_.value(v).kind != ValueKind::Literal) return append_value_name(v);
    // Exported graphs repeat the same small literal operands (dense<1.0>, dense<-0.0>): format each once.
    const Tensor& t = p_.literal(p_.value(v).def);
    if (t.size() > 64) return append_literal(out_, t);
    auto [it, fresh] = literal_text_.try_emplace(p_.value(v).def);
    if (fresh) append_literal(it->second, t);
    out_ += it->second;
  }

  /// The text of a type, formatted once per TypeId.
  void append_type_id(TypeId t) {
    if (type_text_.size() <= t) type_text_.resize(p_.num_types());
    std::string& s = type_text_[t];
    if (s.empty()) append_type(s, p_.type(t));
    out_ += s;
  }

  void append_types(const std::vector<TypeId>& ts) {
    if (ts.size() == 1) { append_type_id(ts[0]); return; }
    out_ += '(';
    for (size_t i = 0; i < ts.size(); ++i) {
      if (i) out_ += ", ";
      append_type_id(ts[i]);
    }
    out_ += ')';
  }

  static constexpr size_t kChunk = size_t{1} << 16;
  void print_bodies() {
    for (BodyId b = 0; b < p_.num_bodies(); ++b) {
      if (b) out_ += '\n';
      print_body(b);
    }
  }
  void flush() {
    if (!sink_ || out_.empty()) return;
    if (std::fwrite(out_.data(), 1, out_.size(), sink_) != out_.size()) sink_ok_ = false;
    out_.clear();
  }

  void print_body(BodyId b) {
    const Body& body = p_.body(b);
    name_values(b);
    out_ += body.is_region ? "region ^" : "func @";
    out_ += body.name;
    out_ += '(';
    for (size_t i = 0; i < body.params.size(); ++i) {
      if (i) out_ += ", ";
      append_value_name(body.params[i]);
      out_ += ": ";
      append_type(out_, p_.type_of(body.params[i]));
    }
    out_ += ") -> ";
    append_types(body.result_types);
    if (!body.fastmath.none()) out_ += " attributes[fastmath[" + fastmath_list(body.fastmath) + "]]";
    out_ += " {\n";
    p_.for_each_inst(b, [&](InstId i) {
      print_inst(i);
      if (sink_ && out_.size() >= kChunk) flush();
    });
    out_ += "}\n";
  }

  void print_inst(InstId i) {
    const Inst& in = p_.inst(i);
    out_ += "  ";
    if (in.op == OpCode::Return) {
      out_ += "return";
      for (uint32_t k = 0; k < in.num_operands; ++k) {
        out_ += k ? ", " : " ";
        append_operand(p_.operand(i, k));
      }
      out_ += '\n';
      return;
    }
    for (uint32_t k = 0; k < in.num_results; ++k) {
      if (k) out_ += ", ";
      append_value_name(p_.result(i, k));
    }
    out_ += " = ";
    out_ += mnemonic(in.op);
    const AttrSet& attrs = p_.attrs(in.attrs);
    bool literal_operand = false;
    if (in.op == OpCode::Constant) {
      const AttrValue* v = attrs.find("value");
      if (v && attrs.attrs.size() == 1) {
        out_ += ' ';
        append_literal(out_, v->lit);
        literal_operand = true;
      }
    }
    for (uint32_t k = 0; k < in.num_operands; ++k) {
      out_ += k ? ", " : " ";
      append_operand(p_.operand(i, k));
    }
    if (!literal_operand && !attrs.attrs.empty()) {
      // Attribute sets are interned and repeat on every layer: format each set once.
      auto [it, fresh] = attr_text_.try_emplace(in.attrs);
      if (fresh)
        for (const Attr& a : attrs.attrs) {
          std::string& t = it->second;
          t += ' ';
          t += a.name;
          t += '[';
          append_attr_value(t, a.value, p_);
          t += ']';
        }
      out_ += it->second;
    }
    out_ += " -> ";
    if (in.num_results == 1) {
      append_type_id(p_.type_id(p_.result(i)));
    } else {
      out_ += '(';
      for (uint32_t k = 0; k < in.num_results; ++k) {
        if (k) out_ += ", ";
        append_type_id(p_.type_id(p_.result(i, k)));
      }
      out_ += ')';
    }
    out_ += '\n';
  }

  const Program& p_;
  std::string out_;
  std::FILE* sink_ = nullptr;  ///< run(FILE*): where full chunks go
  bool sink_ok_ = true;
  std::vector<std::string> type_text_;                      ///< by TypeId, filled on first use
  std::unordered_map<LiteralId, std::string> literal_text_;  ///< small literal operands
  std::unordered_map<AttrSetId, std::string> attr_text_;    ///< " name[value] ..." per attribute set
  std::vector<uint32_t> fresh_;  ///< ValueId -> N of its fresh name tN (unnamed values, and unprintable names)
};

}  // namespace

std::string print_program(const Program& p) { return Printer(p).run(); }

bool print_program(const Program& p, std::FILE* out) { return Printer(p).run(out); }

std::string print_literal(const Tensor& t) {
  std::string out;
  append_literal(out, t);
  return out;
}

std::string print_dense(const Tensor& t) {
  std::string out;
  append_dense(out, t);
  return out;
}

}  // namespace ptir
