// The IR verifier's driver: per-instruction structure checks (arity, ranks, attribute kinds), the
// dispatch of every op to its rule in ir/verify/<family>.cpp, and the whole-program walk (SSA dominance,
// erased values, returns, region recursion, entry function). The op rules themselves live in ir/verify/.
#include "ir/verifier.h"

#include <unordered_map>

#include <algorithm>

#include "ir/text.h"
#include "ir/verify/check.h"

namespace ptir {
namespace {
using namespace verify_detail;

std::string_view kind_desc(AttrKind k) {
  switch (k) {
    case AttrKind::Ints: return "a list of integers";
    case AttrKind::Int: return "one integer";
    case AttrKind::Bool: return "true or false";
    case AttrKind::Word: return "a word";
    case AttrKind::DType: return "a dtype";
    case AttrKind::Region: return "a region '^name'";
    case AttrKind::String: return "a quoted string";
    case AttrKind::Literal: return "a literal";
    case AttrKind::Scalar: return "a scalar";
  }
  return "?";
}

/// A region reference must name an existing region body (a func cannot be run as a region).
std::string check_region_ref(const Ctx& c, const Attr& a) {
  const std::vector<int64_t>& v = a.value.ints;
  if (v.size() != 1 || v[0] < 0 || static_cast<uint64_t>(v[0]) >= c.p.num_bodies())
    return c.fail(a.name, "[^", a.value.text, "] refers to no region");
  const Body& b = c.p.body(static_cast<BodyId>(v[0]));
  if (!b.is_region) return c.fail(a.name, "[^", a.value.text, "] refers to @", b.name, ", which is a func, not a region");
  return {};
}

/// The value of one attribute against the kind its schema entry wants.
std::string check_attr_value(const Ctx& c, const Attr& a, const AttrSpec& spec) {
  const AttrValue& v = a.value;
  if (v.kind != spec.kind) return c.fail("attribute '", a.name, "' must be ", kind_desc(spec.kind));
  switch (spec.kind) {
    case AttrKind::Ints:
    case AttrKind::String:
    case AttrKind::Scalar:  // checked by the op's rule, which knows the operand dtype
      return {};
    case AttrKind::Int:
      if (v.ints.size() != 1) return c.fail("attribute '", a.name, "' takes one integer");
      return {};
    case AttrKind::Bool:
      if (v.ints.size() != 1 || (v.ints[0] != 0 && v.ints[0] != 1))
        return c.fail("attribute '", a.name, "' takes true or false");
      return {};
    case AttrKind::Word:
      if (std::find(spec.words.begin(), spec.words.end(), v.text) == spec.words.end())
        return c.fail("attribute '", a.name, "' has an unknown word '", v.text, "'");
      return {};
    case AttrKind::DType:
      if (v.ints.size() != 1 || v.ints[0] < 0 || v.ints[0] >= kNumDTypes)
        return c.fail("attribute '", a.name, "' is not a dtype");
      return {};
    case AttrKind::Region: return check_region_ref(c, a);
    case AttrKind::Literal:
      if (!v.lit.well_formed())
        return c.fail("attribute '", a.name, "' holds a malformed literal");
      return {};
  }
  return {};
}

/// Every attribute is in the op's schema with the right kind; every required one is present.
std::string check_attrs(const Ctx& c) {
  for (const Attr& a : c.attrs.attrs) {
    const AttrSpec* spec = find_attr_spec(c.op, a.name);
    if (spec) {
      if (auto e = check_attr_value(c, a, *spec); !e.empty()) return e;
    } else if (c.op != OpCode::CustomCall) {
      return c.fail("unknown attribute '", a.name, "'");
    } else if (a.value.kind == AttrKind::Region) {
      if (auto e = check_region_ref(c, a); !e.empty()) return e;
    }
  }
  for (const AttrSpec& spec : op_attr_schema(c.op))
    if (spec.required && !c.attrs.find(spec.name)) return c.fail("requires attribute '", spec.name, "'");
  return {};
}

/// Types the parser cannot spell but the C++ API can build: rank above the limit, negative dims.
std::string check_type(const Ctx& c, const char* what, uint32_t k, const TensorType& t) {
  if (t.rank() > kMaxRank) return c.fail(what, " ", k, " has rank ", t.rank(), ", more than ", kMaxRank);
  for (int64_t d : t.dims)
    if (d < 0) return c.fail(what, " ", k, " has type ", t, " with a negative dim");
  // Types made through the API (a pattern, a plugin, the MLIR importer) are held to the parser's limit
  // too: the interpreter's and the encoders' element counts are int64_t products.
  if (!within_type_limits(t))
    return c.fail(what, " ", k, " has type ", t, " with more than 2^28 elements (PTIR's limit)");
  return {};
}

/// Operand and result counts from the op table, and the rank limit of every type involved.
std::string check_structure(const Ctx& c) {
  const OpInfo& info = op_info(c.op);
  int64_t n = c.num_operands();
  if (n < info.min_operands || (info.max_operands >= 0 && n > info.max_operands)) {
    if (info.max_operands < 0)
      return c.fail("expects at least ", info.min_operands, info.min_operands == 1 ? " operand" : " operands", ", got ",
                    n);
    if (info.min_operands == info.max_operands)
      return c.fail("expects ", info.min_operands, " operand", info.min_operands == 1 ? "" : "s", ", got ", n);
    return c.fail("expects ", info.min_operands, " to ", info.max_operands, " operands, got ", n);
  }
  if (info.num_results >= 0 && static_cast<int64_t>(c.num_results()) != info.num_results)
    return c.fail("has ", c.num_results(), " result", c.num_results() == 1 ? "" : "s", ", expected ", info.num_results);
  for (uint32_t k = 0; k < c.num_operands(); ++k)
    if (auto e = check_type(c, "operand", k, c.operand(k)); !e.empty()) return e;
  for (uint32_t k = 0; k < c.num_results(); ++k)
    if (auto e = check_type(c, "result", k, c.result(k)); !e.empty()) return e;
  return check_attrs(c);
}

/// The type and shape rule of each op. No `default:`: a new op in ops.def is a build error here.
std::string check_op_rule(const Ctx& c) {
  switch (c.op) {
    case OpCode::Constant: return verify_constant(c);
    case OpCode::Neg:
    case OpCode::Abs: return verify_unary(c, DTypeRule::Number);
    case OpCode::Exp:
    case OpCode::Log:
    case OpCode::Tanh:
    case OpCode::Erf:
    case OpCode::Rsqrt:
    case OpCode::Reciprocal:
    case OpCode::Sqrt: return verify_unary(c, DTypeRule::Float);
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Maximum:
    case OpCode::Minimum: return verify_binary(c, DTypeRule::Number);
    case OpCode::Compare: return verify_compare(c);
    case OpCode::Select: return verify_select(c);
    case OpCode::Cast: return verify_cast(c);
    case OpCode::StopGradient: return verify_unary(c, DTypeRule::Any);
    case OpCode::Reshape: return verify_reshape(c);
    case OpCode::Transpose: return verify_transpose(c);
    case OpCode::BroadcastTo: return verify_broadcast_to(c);
    case OpCode::Slice: return verify_slice(c);
    case OpCode::Concat: return verify_concat(c);
    case OpCode::Pad: return verify_pad(c);
    case OpCode::Tile: return verify_tile(c);
    case OpCode::Iota: return verify_iota(c);
    case OpCode::DotGeneral: return verify_dot_general(c);
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin: return verify_reduce(c);
    case OpCode::Argmax: return verify_argmax(c);
    case OpCode::Take: return verify_take(c);
    case OpCode::Gather: return verify_gather(c);
    case OpCode::ScatterReduce: return verify_scatter_reduce(c);
    case OpCode::ScatterAdd: return verify_scatter_add(c);
    case OpCode::DynamicSlice: return verify_dynamic_slice(c);
    case OpCode::DynamicUpdateSlice: return verify_dynamic_update_slice(c);
    case OpCode::ExtractPatches: return verify_extract_patches(c);
    case OpCode::ReduceWindow: return verify_reduce_window(c);
    case OpCode::TopK: return verify_top_k(c);
    case OpCode::SegmentReduce: return verify_segment_reduce(c);
    case OpCode::Cond: return verify_cond(c);
    case OpCode::While: return verify_while(c);
    case OpCode::Scan: return verify_scan(c);
    case OpCode::RngUniform:
    case OpCode::RngNormal: return verify_rng(c);
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize: return verify_quantize(c);
    case OpCode::CustomCall: return verify_custom_call(c);
    case OpCode::Return: return verify_return(c);
  }
  return c.fail("unknown op");
}

}  // namespace

std::string verify_inst(const Program& p, InstId i) {
  if (i >= p.num_inst_slots()) return "no instruction with id " + std::to_string(i);
  const Inst& in = p.inst(i);
  if (static_cast<int>(in.op) >= kNumOps) return "instruction " + std::to_string(i) + " has an unknown op code";
  Ctx c{p, i, in.op, p.attrs_of(i), mnemonic(in.op)};
  if (auto e = check_structure(c); !e.empty()) return e;
  return check_op_rule(c);
}

namespace {

/// `@name` for a func, `^name` for a region.
std::string body_label(const Program& p, BodyId b) {
  if (b >= p.num_bodies()) return "body " + std::to_string(b);
  return (p.body(b).is_region ? "^" : "@") + p.body(b).name;
}

/// A region reference found while walking: instruction `inst` of body `from` runs region `to`.
struct RegionEdge {
  BodyId from;
  InstId inst;
  BodyId to;
};

/// One pass over every body. Dominance needs only "was the defining instruction already walked in this
/// body", kept as one stamp per instruction slot, so the walk is linear in the program size.
class ProgramVerifier {
 public:
  ProgramVerifier(const Program& p, size_t max_errors) : p_(p), max_(max_errors), walked_(p.num_inst_slots(), 0) {}

  std::vector<Diagnostic> run() {
    if (p_.entry() == kNone) report(kNone, kNone, "program has no func: the entry function is missing");
    // Names are unique per kind, as the parser requires: a program built through the API with two
    // funcs of one name printed text that does not parse again (a plugin pattern added a second @main).
    for (BodyId b = 0; b < p_.num_bodies() && !full(); ++b)
      if (const BodyId first = p_.find_body(p_.body(b).name, p_.body(b).is_region); first != kNone && first != b)
        report(b, kNone, std::string(p_.body(b).is_region ? "redefinition of region '^" : "redefinition of func '@") +
                             p_.body(b).name + "'");
    for (BodyId b = 0; b < p_.num_bodies() && !full(); ++b) check_body(b);
    if (!full()) check_recursion();
    return std::move(out_);
  }

 private:
  bool full() const { return max_ != 0 && out_.size() >= max_; }
  void report(BodyId b, InstId i, std::string msg) {
    if (!full()) out_.push_back(Diagnostic{b, i, std::move(msg)});
  }

  std::string operand_desc(InstId i, uint32_t k) const {
    std::string_view n = p_.name(p_.operand(i, k));
    return "operand " + std::to_string(k) + (n.empty() ? "" : " (%" + std::string(n) + ")");
  }

  /// Every operand is a literal, a parameter of `b`, or a result of a live instruction walked earlier in `b`.
  std::string check_operands(BodyId b, InstId i) const {
    std::string_view op = mnemonic(p_.op(i));
    for (uint32_t k = 0; k < p_.num_operands(i); ++k) {
      ValueId v = p_.operand(i, k);
      if (v >= p_.num_values()) return cat(op, ": operand ", k, " refers to no value (id ", v, ")");
      const ValueInfo& vi = p_.value(v);
      switch (vi.kind) {
        case ValueKind::Literal: break;
        case ValueKind::Param:
          if (vi.def != b)
            return cat(op, ": ", operand_desc(i, k), " is a parameter of ", body_label(p_, vi.def), ", not of ",
                       body_label(p_, b));
          break;
        case ValueKind::Result: {
          const Inst& d = p_.inst(vi.def);
          if (d.erased) return cat(op, ": ", operand_desc(i, k), " is a result of an erased instruction");
          if (d.body != b)
            return cat(op, ": ", operand_desc(i, k), " is defined in ", body_label(p_, d.body), ", not in ",
                       body_label(p_, b));
          if (walked_[vi.def] != b + 1) return cat(op, ": ", operand_desc(i, k), " is used before its definition");
          break;
        }
      }
    }
    return {};
  }

  void record_regions(BodyId b, InstId i) {
    if (!has_trait(p_.op(i), OpTrait::Regions)) return;
    for (const Attr& a : p_.attrs_of(i).attrs) {
      const std::vector<int64_t>& v = a.value.ints;
      if (a.value.kind == AttrKind::Region && v.size() == 1 && v[0] >= 0 &&
          static_cast<uint64_t>(v[0]) < p_.num_bodies() && p_.body(static_cast<BodyId>(v[0])).is_region)
        edges_.push_back(RegionEdge{b, i, static_cast<BodyId>(v[0])});
    }
  }

  void check_body(BodyId b) {
    const std::string label = body_label(p_, b);
    size_t steps = 0;
    bool returned = false;
    for (InstId i = p_.body(b).first; i != kNone && !full(); i = p_.inst(i).next) {
      if (i >= p_.num_inst_slots() || ++steps > p_.num_inst_slots() || p_.inst(i).erased || p_.inst(i).body != b) {
        report(b, kNone, "the instruction list of " + label + " is corrupt");
        return;
      }
      if (returned) {
        report(b, i, cat(mnemonic(p_.op(i)), ": instruction after the return of ", label));
        return;
      }
      std::string e = check_operands(b, i);
      if (e.empty()) e = memo_.verify(p_, i);
      if (!e.empty()) report(b, i, std::move(e));
      walked_[i] = b + 1;
      returned = p_.op(i) == OpCode::Return;
      record_regions(b, i);
    }
    if (!returned && !full()) report(b, kNone, label + " does not end with a return");
  }

  /// A region that (indirectly) runs itself never finishes in the interpreter or the SMT encoding.
  void check_recursion() {
    if (edges_.empty()) return;  // no region runs: nothing recursive, every chain one body deep
    size_t nb = p_.num_bodies();
    std::vector<uint32_t> start(nb + 1, 0);
    for (const RegionEdge& e : edges_) ++start[e.from + 1];
    for (size_t b = 0; b < nb; ++b) start[b + 1] += start[b];
    std::vector<uint32_t> order(edges_.size());
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (uint32_t k = 0; k < edges_.size(); ++k) order[fill[edges_[k].from]++] = k;

    enum : uint8_t { kWhite, kGrey, kBlack };
    std::vector<uint8_t> color(nb, kWhite);
    // depth[b]: bodies on the longest chain of region runs starting at b (b included); known once b is black.
    std::vector<uint32_t> depth(nb, 1), deepest(nb, kNone);
    std::vector<std::pair<BodyId, uint32_t>> stack;  // body, next edge position
    for (BodyId root = 0; root < nb; ++root) {
      if (color[root] != kWhite) continue;
      color[root] = kGrey;
      stack.assign(1, {root, start[root]});
      while (!stack.empty()) {
        auto& [b, pos] = stack.back();
        if (pos == start[b + 1]) {
          color[b] = kBlack;
          for (uint32_t k = start[b]; k < start[b + 1]; ++k) {
            BodyId to = edges_[order[k]].to;
            if (depth[to] + 1 > depth[b]) {
              depth[b] = depth[to] + 1;
              deepest[b] = order[k];
            }
          }
          stack.pop_back();
          continue;
        }
        const RegionEdge& e = edges_[order[pos++]];
        if (color[e.to] == kGrey) return report_cycle(stack, e);
        if (color[e.to] == kWhite) {
          color[e.to] = kGrey;
          stack.emplace_back(e.to, start[e.to]);
        }
      }
    }
    check_depth(depth, deepest);
  }

  /// Reports the first body whose chain of nested region runs is deeper than kMaxRegionDepth.
  void check_depth(const std::vector<uint32_t>& depth, const std::vector<uint32_t>& deepest) {
    for (BodyId b = 0; b < depth.size(); ++b) {
      if (depth[b] <= kMaxRegionDepth) continue;
      std::string path = body_label(p_, b);
      BodyId at = b;
      for (int shown = 0; deepest[at] != kNone; ++shown) {
        at = edges_[deepest[at]].to;
        if (shown == 3) {
          path += " -> ...";
          break;
        }
        path += " -> " + body_label(p_, at);
      }
      const RegionEdge& e = edges_[deepest[b]];
      return report(e.from, e.inst, cat(mnemonic(p_.op(e.inst)), ": regions nest ", depth[b], " bodies deep from ",
                                        body_label(p_, b), " (", path, "), more than the limit of ",
                                        kMaxRegionDepth));
    }
  }

  void report_cycle(const std::vector<std::pair<BodyId, uint32_t>>& stack, const RegionEdge& e) {
    std::string path;
    bool on = false;
    for (const auto& [b, pos] : stack) {
      on = on || b == e.to;
      if (on) path += body_label(p_, b) + " -> ";
    }
    path += body_label(p_, e.to);
    report(e.from, e.inst, cat(mnemonic(p_.op(e.inst)), ": region ", body_label(p_, e.to), " is used recursively (",
                               path, ")"));
  }

  const Program& p_;
  size_t max_;
  std::vector<uint32_t> walked_;  ///< InstId -> 1 + the body it was walked in, 0 before
  VerifyMemo memo_;  ///< signatures that passed verify_inst
  std::vector<RegionEdge> edges_;
  std::vector<Diagnostic> out_;
};

}  // namespace

std::string VerifyMemo::verify(const Program& p, InstId i) {
  const OpCode op = p.op(i);
  if (has_trait(op, OpTrait::Regions) || has_trait(op, OpTrait::Terminator) || has_trait(op, OpTrait::Opaque))
    return verify_inst(p, i);  // reads more than its signature: never from the memo
  key_.clear();
  if (key_.capacity() == 0) key_.reserve(32);
  key_.push_back(static_cast<uint32_t>(op));
  key_.push_back(p.inst(i).attrs);
  key_.push_back(p.num_operands(i));
  for (uint32_t k = 0; k < p.num_operands(i); ++k) key_.push_back(p.type_id(p.operand(i, k)));
  for (uint32_t k = 0; k < p.num_results(i); ++k) key_.push_back(p.type_id(p.result(i, k)));
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t x : key_) h = (h ^ x) * 0x100000001b3ull;
  const auto same = [&](uint32_t at) {
    return keys_[at] == key_.size() &&
           std::equal(key_.begin(), key_.end(), keys_.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  };
  if (index_.find(h, same) != UINT32_MAX) return {};
  std::string err = verify_inst(p, i);
  if (err.empty()) {
    index_.insert(h, static_cast<uint32_t>(keys_.size()));
    keys_.push_back(static_cast<uint32_t>(key_.size()));
    keys_.insert(keys_.end(), key_.begin(), key_.end());
  }
  return err;
}

std::vector<Diagnostic> verify_program(const Program& p, size_t max_errors) {
  return ProgramVerifier(p, max_errors).run();
}

std::string format_diagnostic(const Diagnostic& d, const Program& p, const SourceMap* sm) {
  if (!sm) return "error: " + d.message;
  std::string loc = sm->filename;
  if (d.inst != kNone && d.inst < p.num_inst_slots())
    loc = sm->inst_location(p, d.inst);
  else if (d.body != kNone && d.body < sm->body_offset.size() && sm->body_offset[d.body] != kNone)
    loc = sm->location(sm->body_offset[d.body]);
  return loc + ": error: " + d.message;
}

}  // namespace ptir
