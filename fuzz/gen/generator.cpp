// The program generator's core: dtypes, shapes, edge-biased literals, operands, bodies, op choice by
// profile, and the final assembly of the text, which is then parsed (the parser is the one builder of
// programs from text, so a generator bug shows up as a parse or verify error, never as a silent IR).
#include <algorithm>
#include <array>

#include <boost/container/small_vector.hpp>

#include "fuzz/gen/gen_impl.h"
#include "ir/text.h"

namespace ptir::fuzz {
namespace detail {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  s += ']';
  return s;
}

TensorType with_dtype(TensorType t, DType d) {
  t.dtype = d;
  return t;
}

TensorType with_dims(const TensorType& t, std::vector<int64_t> dims) { return TensorType{t.dtype, std::move(dims)}; }

bool in_class(DType t, Cls cls) {
  switch (cls) {
    case Cls::Any:
      return true;
    case Cls::Number:
      return t != DType::I1;
    case Cls::Float:
      return is_float(t);
    case Cls::Int:
      return is_integer(t);
    case Cls::SignedInt:
      return is_signed_int(t);
  }
  return false;
}

bool Gen::allowed(DType t) const {
  return o_.dtypes.empty() || std::find(o_.dtypes.begin(), o_.dtypes.end(), t) != o_.dtypes.end();
}

bool Gen::allowed(OpCode op) const {
  return o_.only_ops.empty() || std::find(o_.only_ops.begin(), o_.only_ops.end(), op) != o_.only_ops.end();
}

std::optional<DType> Gen::pick_dtype(Cls cls) {
  std::array<DType, kNumDTypes> ok;
  size_t n = 0;
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    if (allowed(t) && in_class(t, cls)) ok[n++] = t;
  }
  if (n == 0) return std::nullopt;
  return ok[c_.index(n)];
}

DType Gen::index_dtype() {
  if (auto t = pick_dtype(Cls::Int); t && c_.chance(3, 4)) return *t;
  return c_.chance(1, 2) ? DType::SI32 : DType::SI64;
}

DType Gen::index_dtype_for(int64_t count) {
  // The verifier's rule (check_index_fits): the largest index, count - 1, must be representable. An
  // axis may be long where the tensor is empty (a tile of a 0-sized dim), so even a small tensor's
  // extent can outgrow a narrow dtype.
  const auto fits = [&](DType d) { return count <= 1 || static_cast<uint64_t>(count - 1) <= int_max_bits(d); };
  if (const DType d = index_dtype(); fits(d)) return d;
  return fits(DType::SI32) ? DType::SI32 : DType::SI64;
}

std::vector<int64_t> Gen::random_dims(int rank) {
  static constexpr std::array<int64_t, 6> kSizes = {0, 1, 2, 3, 4, 5};
  std::vector<int64_t> d(static_cast<size_t>(rank));
  for (int64_t& x : d) x = kSizes[c_.weighted({1, 4, 5, 4, 2, 1})];
  while (TensorType{DType::F32, d}.num_elements() > o_.max_elements) *std::max_element(d.begin(), d.end()) = 1;
  return d;
}

uint64_t Gen::edge_bits(DType t) {
  if (t == DType::I1) return c_.bits(1);
  const uint64_t mask = bits_mask(t);
  if (!is_float(t)) {
    switch (c_.weighted({3, 3, 3, 2, 2, 4, 2})) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return mask;  // -1 (or the unsigned max)
      case 3:
        return static_cast<uint64_t>(int_min(t)) & mask;
      case 4:
        return int_max_bits(t);
      case 5:
        return static_cast<uint64_t>(c_.range(-4, 4)) & mask;
      default:
        return c_.bits(dtype_bits(t));
    }
  }
  const uint64_t sign = c_.chance(1, 2) ? sign_mask(t) : 0;
  const uint64_t frac_mask = (uint64_t{1} << dtype_info(t).frac_bits) - 1;
  switch (c_.weighted({4, 2, 2, 2, 2, 2, 2, 3, 3, 5, 2})) {
    case 0:
      return sign;  // ±0
    case 1:
      return float_inf(t, sign != 0);  // ±inf
    case 2:
      return canonical_nan(t) | sign;  // quiet NaN, both signs
    case 3:
      return float_inf(t, false) | sign | (c_.bits(dtype_info(t).frac_bits) | 1);  // NaN payloads
    case 4:
      return sign | 1;  // smallest subnormal
    case 5:
      return sign | frac_mask;  // largest subnormal
    case 6:
      return sign | (float_inf(t, false) - 1);  // largest finite
    case 7:
      return sign | round_to_float(t, false, 1, 0);  // ±1
    case 8:
      return sign | round_to_float(t, false, 1, static_cast<int>(c_.range(-3, 3)));  // powers of two
    case 9:
      return double_to_float(t, static_cast<double>(c_.range(-16, 16)) / 4.0);  // quarter steps
    default:
      return c_.bits(dtype_bits(t));  // any pattern
  }
}

std::string Gen::literal(const TensorType& t) {
  Tensor x(t);
  const bool splat = c_.chance(1, 2);
  const uint64_t first = edge_bits(t.dtype);
  for (int64_t i = 0; i < x.size(); ++i) x.set_bits(i, splat || i == 0 ? first : edge_bits(t.dtype));
  return print_literal(x);
}

std::string Gen::int_literal(const TensorType& t, int64_t lo, int64_t hi) {
  Tensor x(t);
  for (int64_t i = 0; i < x.size(); ++i) x.set_bits(i, static_cast<uint64_t>(c_.range(lo, hi)) & bits_mask(t.dtype));
  return print_literal(x);
}

std::string Gen::fresh(BodyCtx& b) {
  std::string name = "%v";
  name += std::to_string(b.next_id++);
  return name;
}

std::string Gen::operand(BodyCtx& b, const TensorType& t, bool allow_literal) {
  boost::container::small_vector<size_t, 32> match;
  for (size_t i = 0; i < b.pool.size(); ++i)
    if (b.pool[i].type == t) match.push_back(i);
  if (!match.empty() && c_.chance(3, 4)) {
    size_t k = match[c_.index(match.size())];
    ++b.uses[k];
    return b.pool[k].name;
  }
  const bool can_param = b.is_func && static_cast<int>(b.params.size()) < o_.max_params;
  if (allow_literal && (!can_param || c_.chance(1, 2))) return literal(t);
  if (!can_param) return literal(t);
  Val p{"%p" + std::to_string(b.params.size()), t};
  b.params.push_back(p);
  b.pool.push_back(p);
  b.uses.push_back(1);
  return p.name;
}

std::optional<Val> Gen::input(BodyCtx& b, Cls cls, const std::function<bool(const TensorType&)>& ok, int min_rank,
                              int max_rank) {
  if (max_rank < 0) max_rank = o_.max_rank;
  auto good = [&](const TensorType& t) {
    return in_class(t.dtype, cls) && t.rank() >= min_rank && t.rank() <= max_rank && fits(t) && ok(t);
  };
  boost::container::small_vector<size_t, 32> cand, unused;
  for (size_t i = 0; i < b.pool.size(); ++i)
    if (good(b.pool[i].type)) {
      cand.push_back(i);
      if (b.uses[i] == 0) unused.push_back(i);
    }
  if (!cand.empty() && c_.chance(4, 5)) {
    size_t k = !unused.empty() && c_.chance(2, 3) ? unused[c_.index(unused.size())] : cand[c_.index(cand.size())];
    ++b.uses[k];
    return b.pool[k];
  }
  auto d = pick_dtype(cls);
  if (!d) return std::nullopt;
  for (int attempt = 0; attempt < 4; ++attempt) {
    TensorType t{*d, random_dims(static_cast<int>(c_.range(min_rank, std::max(min_rank, max_rank))))};
    if (!good(t)) continue;
    return Val{operand(b, t), t};
  }
  return std::nullopt;
}

Val Gen::emit(BodyCtx& b, const std::string& text, const TensorType& type) {
  Val v{fresh(b), type};
  b.lines += "  ";
  b.lines += v.name;
  b.lines += " = ";
  b.stmts.push_back({b.lines.size(), text.size(), b.pool.size()});
  b.lines += text;
  b.lines += " -> ";
  append_type(b.lines, type);
  b.lines += '\n';
  b.pool.push_back(v);
  b.uses.push_back(0);
  return v;
}

std::vector<Val> Gen::emit_multi(BodyCtx& b, const std::string& text, const std::vector<TensorType>& types) {
  if (types.size() == 1) return {emit(b, text, types[0])};
  std::vector<Val> out;
  out.reserve(types.size());
  for (const TensorType& t : types) out.push_back({fresh(b), t});
  b.lines += "  ";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) b.lines += ", ";
    b.lines += out[i].name;
  }
  b.lines += " = ";
  b.lines += text;
  b.lines += " -> (";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) b.lines += ", ";
    append_type(b.lines, types[i]);
  }
  b.lines += ")\n";
  for (const Val& v : out) {
    b.pool.push_back(v);
    b.uses.push_back(0);
  }
  return out;
}

namespace {

void append_signature(std::string& s, const std::vector<Val>& params, const std::vector<TensorType>& results) {
  s += '(';
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) s += ", ";
    s += params[i].name;
    s += ": ";
    append_type(s, params[i].type);
  }
  s += ") -> ";
  if (results.size() == 1) return append_type(s, results[0]);
  s += '(';
  for (size_t i = 0; i < results.size(); ++i) {
    if (i) s += ", ";
    append_type(s, results[i]);
  }
  s += ')';
}

void append_ret_line(std::string& s, const std::vector<std::string>& vals) {
  s += "  return";
  for (size_t i = 0; i < vals.size(); ++i) {
    s += i ? ", " : " ";
    s += vals[i];
  }
  s += '\n';
}

}  // namespace

std::string Gen::region(BodyCtx& outer, const std::vector<TensorType>& params, const std::vector<TensorType>& results,
                        const std::function<std::vector<std::string>(BodyCtx&)>& fill) {
  BodyCtx r;
  r.reserve(512, 16);
  r.name = "^r" + std::to_string(next_region_++);
  r.is_func = false;
  r.depth = outer.depth + 1;
  for (size_t i = 0; i < params.size(); ++i) {
    r.params.push_back({"%a" + std::to_string(i), params[i]});
    r.pool.push_back(r.params.back());
    r.uses.push_back(0);
  }
  std::vector<std::string> rets = fill(r);
  std::string& text = regions_.emplace_back();
  text.reserve(r.lines.size() + 128);
  text += "region ";
  text += r.name;
  append_signature(text, r.params, results);
  text += " {\n";
  text += r.lines;
  append_ret_line(text, rets);
  text += "}\n";
  return r.name;
}

std::vector<std::string> Gen::random_body(BodyCtx& b, const std::vector<TensorType>& results, int ops) {
  for (int i = 0; i < ops && !c_.exhausted(); ++i) gen_one(b);
  std::vector<std::string> out;
  for (const TensorType& t : results) out.push_back(operand(b, t));
  return out;
}

namespace {

/// Relative weights of each op under a profile (0: never drawn).
std::array<int, kNumOps> weights(Profile p) {
  std::array<int, kNumOps> w{};
  auto set = [&](std::initializer_list<std::pair<OpCode, int>> l) {
    for (auto [op, x] : l) w[static_cast<size_t>(op)] = x;
  };
  using O = OpCode;
  switch (p) {
    case Profile::Random:
      w.fill(2);
      set({{O::Add, 3},
           {O::Mul, 3},
           {O::Sub, 3},
           {O::Cast, 3},
           {O::Select, 3},
           {O::Compare, 3},
           {O::Reshape, 3},
           {O::BroadcastTo, 3}});
      break;
    case Profile::Mlp:
      set({{O::DotGeneral, 6},
           {O::Add, 5},
           {O::BroadcastTo, 4},
           {O::Maximum, 3},
           {O::Tanh, 2},
           {O::Erf, 2},
           {O::Mul, 3},
           {O::ReduceSum, 2},
           {O::Reshape, 2},
           {O::Cast, 1},
           {O::Constant, 1}});
      break;
    case Profile::Attention:
      set({{O::DotGeneral, 5},
           {O::Transpose, 3},
           {O::ReduceMax, 3},
           {O::Sub, 3},
           {O::Exp, 3},
           {O::ReduceSum, 3},
           {O::Div, 3},
           {O::BroadcastTo, 4},
           {O::Select, 2},
           {O::Compare, 2},
           {O::Iota, 1},
           {O::Reshape, 2},
           {O::Rsqrt, 1},
           {O::Mul, 2}});
      break;
    case Profile::Conv:
      set({{O::ExtractPatches, 5},
           {O::ReduceWindow, 4},
           {O::Pad, 3},
           {O::DotGeneral, 4},
           {O::Reshape, 3},
           {O::Add, 2},
           {O::Maximum, 2},
           {O::Transpose, 2},
           {O::BroadcastTo, 2},
           {O::Slice, 1},
           {O::Concat, 1}});
      break;
    case Profile::Control:
      w.fill(1);
      set({{O::Cond, 8}, {O::While, 8}, {O::Scan, 8}, {O::Add, 3}, {O::Mul, 2}, {O::Compare, 2}, {O::Select, 2}});
      break;
  }
  w[static_cast<size_t>(OpCode::Return)] = 0;
  return w;
}

}  // namespace

bool Gen::gen_op(BodyCtx& b, OpCode op) {
  switch (op) {
    case OpCode::Constant:
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
    case OpCode::Select:
    case OpCode::Cast:
    case OpCode::StopGradient:
      return gen_elementwise(*this, b, op);
    case OpCode::Reshape:
    case OpCode::Transpose:
    case OpCode::BroadcastTo:
    case OpCode::Slice:
    case OpCode::Concat:
    case OpCode::Pad:
    case OpCode::Tile:
    case OpCode::Iota:
    case OpCode::DotGeneral:
      return gen_shape(*this, b, op);
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin:
    case OpCode::Argmax:
    case OpCode::SegmentReduce:
      return gen_reduce(*this, b, op);
    case OpCode::Take:
    case OpCode::Gather:
    case OpCode::ScatterReduce:
    case OpCode::ScatterAdd:
    case OpCode::DynamicSlice:
    case OpCode::DynamicUpdateSlice:
      return gen_index(*this, b, op);
    case OpCode::ExtractPatches:
    case OpCode::ReduceWindow:
    case OpCode::TopK:
      return gen_window(*this, b, op);
    case OpCode::Cond:
    case OpCode::While:
    case OpCode::Scan:
      if (!o_.regions || b.depth >= o_.max_region_depth) return false;
      return gen_control(*this, b, op);
    case OpCode::RngUniform:
    case OpCode::RngNormal:
      return o_.effects && gen_control(*this, b, op);
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize:
    case OpCode::CustomCall:
      return o_.opaque_ops && gen_opaque(*this, b, op);
    case OpCode::Return:
      return false;
  }
  return false;
}

void Gen::gen_one(BodyCtx& b) {
  if (o_.seeded_patterns && o_.only_ops.empty() && c_.chance(2, 5) && gen_seeded(*this, b)) return;
  // Now and then an exact copy of an earlier statement: work for CSE (which must still keep rng copies).
  if (!b.stmts.empty() && c_.chance(1, 12)) {
    const BodyCtx::Stmt s = b.stmts[c_.index(b.stmts.size())];
    const std::string text = b.lines.substr(s.text_begin, s.text_size);  // emit appends to b.lines
    const TensorType type = b.pool[s.result].type;
    emit(b, text, type);
    return;
  }
  std::array<int, kNumOps> w = weights(o_.profile);
  if (!o_.transcendentals)
    for (OpCode op : {OpCode::Exp, OpCode::Log, OpCode::Tanh, OpCode::Erf, OpCode::Rsqrt})
      w[static_cast<size_t>(op)] = 0;
  for (int k = 0; k < kNumOps; ++k)
    if (!allowed(static_cast<OpCode>(k))) w[static_cast<size_t>(k)] = 0;
  for (int attempt = 0; attempt < 6; ++attempt)
    if (gen_op(b, static_cast<OpCode>(c_.weighted(std::span<const int>(w))))) return;
}

Generated Gen::run() {
  BodyCtx main;
  main.reserve(2048, 32);
  main.name = "@main";
  for (int i = 0; i < o_.num_ops && !c_.exhausted(); ++i) gen_one(main);
  if (main.pool.empty()) operand(main, TensorType{pick_dtype(Cls::Any).value_or(DType::F32), random_dims()}, false);
  // Return the unused results first (so little is dead), then anything, at most max_results values.
  std::vector<size_t> order;
  for (size_t i = main.pool.size(); i-- > 0;)
    if (main.uses[i] == 0 && main.pool[i].name[1] == 'v') order.push_back(i);
  if (order.empty()) order.push_back(main.pool.size() - 1);
  std::vector<std::string> rets;
  std::vector<TensorType> types;
  const size_t n = std::min<size_t>(order.size(), static_cast<size_t>(std::max(1, o_.max_results)));
  for (size_t k = 0; k < n; ++k) {
    rets.push_back(main.pool[order[k]].name);
    types.push_back(main.pool[order[k]].type);
  }
  Generated g;
  // Bodies apart by a blank line, as the printer writes them: the generator's text is the printed form
  // (fuzz_pipeline skips its print/parse round trip when they are equal).
  size_t size = main.lines.size() + 128;
  for (const std::string& r : regions_) size += r.size() + 1;
  g.text.reserve(size);
  for (const std::string& r : regions_) {
    g.text += r;
    g.text += '\n';
  }
  g.text += "func @main";
  append_signature(g.text, main.params, types);
  g.text += " {\n";
  g.text += main.lines;
  append_ret_line(g.text, rets);
  g.text += "}\n";
  g.templates = templates_;
  return g;
}

}  // namespace detail

bool parse_profile(std::string_view s, Profile* out) {
  for (Profile p : {Profile::Random, Profile::Mlp, Profile::Attention, Profile::Conv, Profile::Control})
    if (s == profile_name(p)) {
      *out = p;
      return true;
    }
  return false;
}

const char* profile_name(Profile p) {
  switch (p) {
    case Profile::Random:
      return "random";
    case Profile::Mlp:
      return "mlp";
    case Profile::Attention:
      return "attention";
    case Profile::Conv:
      return "conv";
    case Profile::Control:
      return "control";
  }
  return "random";
}

Generated generate_text(Choices& c, const GenOptions& opts) { return detail::Gen(c, opts).run(); }

void parse_generated(Generated& g) {
  ParseResult pr = parse_program(g.text, "generated.ptir");
  if (pr.ok())
    g.program = std::move(pr.program);
  else
    g.error = pr.error;
}

Generated generate(Choices& c, const GenOptions& opts) {
  Generated g = generate_text(c, opts);
  parse_generated(g);
  return g;
}

}  // namespace ptir::fuzz
