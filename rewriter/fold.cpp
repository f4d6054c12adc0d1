// Fold hooks: one decision per op (the switch names every op), then identity folds and constant folding.
#include "rewriter/fold.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/interp.h"
#include "ir/text.h"
#include "rewriter/rewriter.h"

namespace ptir {
namespace {

/// How an op folds.
enum class FoldKind : uint8_t {
  Never,     ///< effectful, region-bearing, opaque or a generator: leave alone
  Constant,  ///< constant-fold when every operand is a constant
  Identity,  ///< has an identity fold (and constant-folds too)
};

FoldKind fold_kind(OpCode op) {
  switch (op) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Tanh:
    case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
    case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Maximum:
    case OpCode::Minimum: case OpCode::Compare: case OpCode::Cast:
    case OpCode::DotGeneral: case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
    case OpCode::Argmax: case OpCode::Take: case OpCode::Gather: case OpCode::ScatterReduce:
    case OpCode::ScatterAdd: case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice:
    case OpCode::ExtractPatches: case OpCode::ReduceWindow: case OpCode::SegmentReduce:
      return FoldKind::Constant;
    // cast to the same type is left to the `remove_noop_cast` pattern, which this hook would shadow.
    case OpCode::Reshape: case OpCode::Transpose: case OpCode::BroadcastTo: case OpCode::Slice:
    case OpCode::Concat: case OpCode::Pad: case OpCode::Tile: case OpCode::Select:
      return FoldKind::Identity;
    // stop_gradient is the identity on values but marks an autodiff boundary: kept.
    case OpCode::StopGradient:
    // Zero-operand generators would only turn into (larger) literals.
    case OpCode::Constant: case OpCode::Iota:
    // Two results: the fold protocol has one.
    case OpCode::TopK:
    case OpCode::Cond: case OpCode::While: case OpCode::Scan:
    case OpCode::RngUniform: case OpCode::RngNormal:
    case OpCode::Quantize: case OpCode::Dequantize: case OpCode::Requantize: case OpCode::CustomCall:
    case OpCode::Return:
      return FoldKind::Never;
  }
  return FoldKind::Never;
}

bool all_equal(std::span<const int64_t> v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == x; });
}

FoldResult fold_identity(const Program& p, InstId i) {
  ValueId r = p.result(i);
  TypeId rt = p.type_id(r);
  auto same_type_operand = [&]() {
    ValueId x = p.operand(i, 0);
    return p.type_id(x) == rt ? FoldResult::replaced_by(x) : FoldResult::nothing();
  };
  const AttrSet& a = p.attrs_of(i);
  OpCode op = p.op(i);
  // Only the Identity ops of fold_kind() reach here; an if-chain keeps this free of a `default:`.
  if (op == OpCode::Reshape || op == OpCode::BroadcastTo || op == OpCode::Slice) return same_type_operand();
  if (op == OpCode::Transpose) {
    const auto& perm = a.ints("perm");
    for (size_t k = 0; k < perm.size(); ++k)
      if (perm[k] != static_cast<int64_t>(k)) return {};
    return same_type_operand();
  }
  if (op == OpCode::Pad) {
    if (!all_equal(a.ints("low"), 0) || !all_equal(a.ints("high"), 0) || !all_equal(a.ints("interior"), 0))
      return {};
    return same_type_operand();
  }
  if (op == OpCode::Tile) return all_equal(a.ints("repeats"), 1) ? same_type_operand() : FoldResult::nothing();
  if (op == OpCode::Concat) return p.num_operands(i) == 1 ? same_type_operand() : FoldResult::nothing();
  if (op == OpCode::Select) {
    ValueId t = p.operand(i, 1), f = p.operand(i, 2);
    if (t == f) return FoldResult::replaced_by(t);
    const Tensor* pred = p.constant_of(p.operand(i, 0));
    if (!pred || pred->size() == 0 || !pred->is_splat()) return {};
    return FoldResult::replaced_by(pred->bits(0) != 0 ? t : f);
  }
  return {};
}

/// The fewest and the most characters format_elem prints for one element of `t`: integers in decimal,
/// i1 as true/false, floats as the shortest round-trip form with ".0" appended when it has neither '.'
/// nor 'e' (at least 3: "1.0", "nan", "inf"), a NaN with a payload as 0x and its hex bits. f32 and f64
/// are bounded by their longest scientific forms (to_chars never picks a longer fixed one) plus ".0";
/// the bounds are tested against format_elem on every 16-bit float and on edge and random values of
/// the other dtypes (tests/rewriter/fold_text_test.cpp).
std::pair<size_t, size_t> elem_text_range(DType t) {
  switch (t) {
    case DType::I1: return {4, 5};
    case DType::UI8: return {1, 3};
    case DType::SI8: return {1, 4};
    case DType::UI16: return {1, 5};
    case DType::SI16: return {1, 6};
    case DType::UI32: return {1, 10};
    case DType::SI32: return {1, 11};
    case DType::UI64: return {1, 20};
    case DType::SI64: return {1, 20};
    case DType::BF16: return {3, 12};
    case DType::F16: return {3, 12};
    case DType::F32: return {3, 17};  // "-d.dddddddde-dd" (9 digits), 2 more for ".0" after a fixed form
    case DType::F64: return {3, 26};  // "-d.dddddddddddddddde-ddd" (17 digits), 2 more likewise
  }
  return {0, SIZE_MAX / 4};
}

size_t decimal_digits(uint64_t v) {
  size_t n = 1;
  for (; v >= 10; v /= 10) ++n;
  return n;
}

/// to_string(type).size(): `tensor<DT` then `, d0` and `xdK`, then `>`.
size_t type_text_size(const TensorType& type) {
  size_t n = 7 + std::char_traits<char>::length(dtype_name(type.dtype)) + 1;
  for (size_t k = 0; k < type.dims.size(); ++k) n += (k ? 1 : 2) + decimal_digits(static_cast<uint64_t>(type.dims[k]));
  return n;
}

/// format_elem(t, bits).size(), remembered per thread in a direct-mapped table of the last 512 distinct
/// (dtype, bits) seen: a program's constants repeat (a model's 1.0, 1e-5, its scales), and formatting a
/// float shortest-round-trip costs a few hundred instructions. A slot holds the whole key, so a hit is
/// the exact length of that element.
size_t elem_text_size(DType t, uint64_t bits) {
  struct Slot {
    uint64_t bits = 0;
    uint16_t dtype = 0xffff;  // no dtype: empty
    uint16_t len = 0;
  };
  thread_local Slot table[512];
  const uint64_t h = (bits ^ (static_cast<uint64_t>(t) << 56)) * 0x9E3779B97F4A7C15ULL;
  Slot& s = table[h >> 55];
  if (s.dtype != static_cast<uint16_t>(t) || s.bits != bits)
    s = Slot{bits, static_cast<uint16_t>(t), static_cast<uint16_t>(format_elem(t, bits).size())};
  return s.len;
}

}  // namespace

TextBounds literal_list_text_bounds(const TensorType& type) {
  // "dense<" + elements + "> : " + type; per level l, groups_l bracket pairs and groups_l * (d_l - 1)
  // separators ", " (groups_0 = 1, groups_{l+1} = groups_l * d_l).
  size_t fixed = 6 + 4 + type_text_size(type);
  size_t groups = 1;
  for (int64_t d : type.dims) {
    fixed += 2 * groups + (d > 0 ? 2 * groups * static_cast<size_t>(d - 1) : 0);
    groups *= static_cast<size_t>(d);
  }
  const size_t n = static_cast<size_t>(type.num_elements());
  const auto [lo, hi] = elem_text_range(type.dtype);
  return {fixed + n * lo, fixed + n * hi};
}

TextBounds literal_text_bounds(const Tensor& t) {
  const int64_t n = t.size();
  if (t.type.rank() == 0 || (n >= 2 && t.is_splat())) {
    const size_t exact = 6 + elem_text_size(t.dtype(), t.bits(0)) + 4 + type_text_size(t.type);
    return {exact, exact};
  }
  return literal_list_text_bounds(t.type);
}

namespace {

struct FoldText {
  size_t lo = 0, hi = 0;  ///< bounds of the text the fold removes, counted low (exact: lo == hi)
  size_t uses = 0;
  size_t name_len = 0;  ///< the result's name as printed
  size_t type_len = 0;  ///< the result's type as printed
};

/// The text the fold of `i` removes, counted low: exact with `exact`, else bounds that format at most
/// one element of each literal operand (literal_text_bounds).
FoldText removed_text(const Program& p, InstId i, bool exact) {
  FoldText f;
  const ValueId res = p.result(i);
  const std::string_view name = p.name(res);
  f.name_len = 1 + (name.empty() ? 2 : name.size());  // unnamed values print as %tN
  f.type_len = type_text_size(p.type_of(res));
  p.for_each_use(res, [&](InstId, uint32_t) { ++f.uses; });
  // Lines are indented by two spaces; "%r = op " and " -> T".
  size_t removed = 2 + f.name_len + 3 + mnemonic(p.op(i)).size() + 1 + 4 + f.type_len + f.uses * f.name_len;
  size_t lo = 0, hi = 0;  // the literals' part
  auto literal = [&](const Tensor& t) {
    const TextBounds b = exact ? TextBounds{print_literal(t).size(), 0} : literal_text_bounds(t);
    lo += b.lo, hi += exact ? b.lo : b.hi;
  };
  for (uint32_t k = 0; k < p.num_operands(i); ++k) {
    const ValueId v = p.operand(i, k);
    const ValueInfo& vi = p.value(v);
    if (k) removed += 2;
    if (vi.kind == ValueKind::Literal) {
      literal(p.literal(vi.def));
      continue;
    }
    removed += 2;  // "%x" at least
    const InstId d = p.def_inst(v);
    if (d != kNone && p.op(d) == OpCode::Constant && p.has_one_use(v)) {  // "  %c = constant LIT -> T"
      const std::string_view cn = p.name(v);
      removed += 2 + 1 + (cn.empty() ? 2 : cn.size()) + 12 + 4 + type_text_size(p.type_of(v));
      literal(*p.constant_of(v));
    }
  }
  f.lo = removed + lo, f.hi = removed + hi;
  return f;
}

/// The text a fold to a literal of `text` printed characters adds (counted high; monotone in `text`).
size_t added_text(const FoldText& f, size_t text, bool inline_lit) {
  return inline_lit ? f.uses * text : 2 + f.name_len + 12 + text + 4 + f.type_len + f.uses * f.name_len;
}

/// Whether a fold that adds at least `added_lo` characters certainly removes less: first against the
/// bound of the removed text, then against the exact count (computed once; `f` keeps it).
bool grows(const Program& p, InstId i, FoldText& f, size_t added_lo) {
  if (added_lo > f.hi) return true;
  if (f.lo != f.hi) f = removed_text(p, i, true);
  return added_lo > f.lo;
}

/// Folding never makes the printed program larger. The text a fold removes, counted low: the
/// instruction's line without its attributes (`%r = op a, b -> T`, inline literal operands written out),
/// the name at each use, and the line of each `constant` operand whose one use this is (DCE drops it).
/// The text it adds, counted high: the literal at each use when the driver inlines it, else the line
/// `%r = constant LIT -> T` and the names at the uses. So broadcast_to, tile or pad of a non-splat
/// constant stay ops (they would write every element), and so does exp of short literals whose results
/// print longer, while folds to splats, slices and arithmetic on dying constants happen. The literals
/// are first bounded (literal_text_bounds, formatting one element at most) and printed only when the
/// bounds do not decide (the removed literals first, the added one last): the same answer without formatting every element of a long literal.
bool shrinks(const Program& p, InstId i, FoldText& f, const Tensor& lit, const FoldOptions& opts) {
  const bool inl = inline_folded(lit, f.uses == 1, opts.inline_literal_max_elements);
  const TextBounds b = literal_text_bounds(lit);
  if (grows(p, i, f, added_text(f, b.lo, inl))) return false;
  return added_text(f, b.lo == b.hi ? b.lo : print_literal(lit).size(), inl) <= f.lo;
}

/// Ops whose result holds every element of their first operand (and only those), so a first operand
/// that is not a splat gives a result that is not one either.
bool keeps_every_element(OpCode op) {
  return op == OpCode::BroadcastTo || op == OpCode::Transpose || op == OpCode::Reshape;
}

FoldResult fold_constant(const Program& p, InstId i, const FoldOptions& opts) {
  uint32_t n = p.num_operands(i);
  if (n == 0 || p.num_results(i) != 1) return {};
  // Cheap rejection first: most instructions have a non-constant operand.
  for (uint32_t k = 0; k < n; ++k)
    if (!p.constant_of(p.operand(i, k))) return {};
  for (uint32_t k = 0; k < n; ++k)
    if (p.constant_of(p.operand(i, k))->size() > opts.max_elements) return {};
  const TensorType& rt = p.type_of(p.result(i));
  if (rt.num_elements() > opts.max_elements) return {};
  FoldText f = removed_text(p, i, false);
  // A broadcast (transpose, reshape) of a constant x that is not a splat prints each of x's elements
  // k = |result| / |x| >= 1 times in a list. With E the characters of x's elements, the text added is
  // added_text(list structure + k*E), with slope at least k in E, and the text removed grows with slope
  // at most 1 in E (x's own literal, when the fold drops it): so if the fold grows the program at the
  // fewest characters E can have (f.lo counts x's elements so), it grows it at every E. Decided before
  // evaluating and without formatting an element.
  if (keeps_every_element(p.op(i)) && n == 1 && rt.rank() != 0 && rt.num_elements() >= 2 && f.uses >= 1) {
    const Tensor& x = *p.constant_of(p.operand(i, 0));
    if (x.size() >= 2 && !x.is_splat() && rt.dtype == x.dtype()) {
      const bool inl = rt.num_elements() <= opts.inline_literal_max_elements && f.uses == 1;
      if (added_text(f, literal_list_text_bounds(rt).lo, inl) > f.lo) return {};
    }
  }
  // The same ops over a constant whose elements are all equal (a splat, or one element) give that
  // element everywhere: no evaluation needed.
  if (keeps_every_element(p.op(i)) && n == 1) {
    const Tensor& x = *p.constant_of(p.operand(i, 0));
    if (x.size() >= 1 && x.type.dtype == rt.dtype && (x.size() == 1 || x.is_splat())) {
      Tensor t = Tensor::filled(rt, x.bits(0));
      t.compact();
      if (!shrinks(p, i, f, t, opts)) return {};
      return FoldResult::materialize(std::move(t));
    }
  }
  std::vector<Tensor> args;
  args.reserve(n);
  for (uint32_t k = 0; k < n; ++k) args.push_back(*p.constant_of(p.operand(i, k)));
  RunResult r = eval_inst(p, i, args, InterpOptions{.index_maps = opts.index_maps});
  if (r.status != RunStatus::Ok || r.results.size() != 1) return {};  // UB stays where it is
  Tensor& t = r.results[0];
  t.compact();
  if (!shrinks(p, i, f, t, opts)) return {};
  return FoldResult::materialize(std::move(t));
}

/// The length of a value's name as printed: unnamed values print as `%tN` (counted low, as 2).
size_t printed_name_len(const Program& p, ValueId v) {
  const std::string_view name = p.name(v);
  return 1 + (name.empty() ? 2 : name.size());
}

/// The printed length of `d`'s line, counted low as `shrinks` counts it: without attributes, an operand
/// name as 2 characters, inline literal operands written out; a `constant` with its literal.
size_t line_chars_low(const Program& p, InstId d) {
  const ValueId r = p.result(d);
  const size_t type_len = to_string(p.type_of(r)).size();
  if (p.op(d) == OpCode::Constant)
    return 2 + printed_name_len(p, r) + 12 + print_literal(*p.constant_of(r)).size() + 4 + type_len;
  size_t n = 2 + printed_name_len(p, r) + 3 + mnemonic(p.op(d)).size() + 1 + 4 + type_len;
  for (uint32_t k = 0; k < p.num_operands(d); ++k) {
    const ValueId v = p.operand(d, k);
    if (k) n += 2;
    n += p.value(v).kind == ValueKind::Literal ? print_literal(p.literal(p.value(v).def)).size() : 2;
  }
  return n;
}

/// Whether a cone may contain an instruction of this op: the ops the fold hook evaluates, `iota`, and
/// `constant` (a leaf).
bool cone_op(OpCode op) {
  return op == OpCode::Iota || op == OpCode::Constant || fold_kind(op) != FoldKind::Never;
}

}  // namespace

int64_t fold_constant_cones(ProgramRewriter& rw, const FoldOptions& opts) {
  if (!opts.constant_fold) return 0;
  const Program& p = rw.program();
  // Constant-computable instructions, in one forward sweep of each body.
  std::vector<uint8_t> cc(p.num_inst_slots(), 0);
  auto is_cc = [&](InstId d) { return d != kNone && d < cc.size() && cc[d]; };
  std::vector<InstId> candidates;
  for (BodyId b = 0; b < p.num_bodies(); ++b) {
    for (InstId i = p.body(b).first; i != kNone; i = p.inst(i).next) {
      const OpCode op = p.op(i);
      if (!cone_op(op) || p.num_results(i) != 1) continue;
      // The operands first: most instructions read a value no constant computes, and fail there.
      bool ok = true;
      for (uint32_t k = 0; k < p.num_operands(i) && ok; ++k) {
        const ValueId v = p.operand(i, k);
        if (const Tensor* c = p.constant_of(v)) {
          ok = c->size() <= opts.max_elements;
          continue;
        }
        const InstId d = p.def_inst(v);
        ok = is_cc(d) && p.inst(d).body == b;
      }
      if (!ok || p.type_of(p.result(i)).num_elements() > opts.max_elements) continue;
      cc[i] = 1;
      if (op != OpCode::Constant) candidates.push_back(i);
    }
  }
  if (candidates.empty()) return 0;

  std::unordered_map<ValueId, Tensor> value_of;  // evaluated cone values, kept across roots
  auto operand_tensor = [&](ValueId v) -> const Tensor* {
    if (const Tensor* c = p.constant_of(v)) return c;
    auto it = value_of.find(v);
    return it == value_of.end() ? nullptr : &it->second;
  };
  int64_t folded = 0;
  std::vector<InstId> cone;  // post-order: producers first, the root last
  std::unordered_set<InstId> seen, dying;
  std::vector<InstId> dying_order;
  for (InstId root : candidates) {
    if (rw.is_erased(root)) continue;
    const ValueId rv = p.result(root);
    const BodyId body = p.inst(root).body;
    bool is_root = false;
    size_t uses = 0;
    p.for_each_use(rv, [&](InstId u, uint32_t) {
      ++uses;
      if (!is_cc(u) || p.inst(u).body != body) is_root = true;
    });
    if (!is_root) continue;
    // The cone, by an explicit-stack depth-first walk (post-order).
    cone.clear();
    seen.clear();
    bool too_big = false;
    std::vector<std::pair<InstId, uint32_t>> stack{{root, 0}};
    seen.insert(root);
    while (!stack.empty() && !too_big) {
      auto& [i, k] = stack.back();
      if (k < p.num_operands(i)) {
        const InstId d = p.def_inst(p.operand(i, k++));
        if (d != kNone && is_cc(d) && !seen.count(d)) {
          seen.insert(d);
          if (seen.size() > static_cast<size_t>(kMaxConeInsts)) too_big = true;
          stack.push_back({d, 0});
        }
        continue;
      }
      cone.push_back(i);
      stack.pop_back();
    }
    if (too_big) continue;
    // A cone of the root alone over constants is the fold hook's case, which it has judged already.
    if (std::count_if(cone.begin(), cone.end(), [&](InstId d) { return p.op(d) != OpCode::Constant; }) < 2)
      continue;
    // Evaluate (constants are read, not evaluated).
    bool ok = true;
    std::vector<Tensor> args;
    for (InstId i : cone) {
      if (p.op(i) == OpCode::Constant || value_of.count(p.result(i))) continue;
      args.clear();
      for (uint32_t k = 0; k < p.num_operands(i); ++k) args.push_back(*operand_tensor(p.operand(i, k)));
      RunResult r = eval_inst(p, i, args, InterpOptions{.index_maps = opts.index_maps});
      if (r.status != RunStatus::Ok || r.results.size() != 1) {  // UB stays where it is
        ok = false;
        break;
      }
      r.results[0].compact();
      value_of.emplace(p.result(i), std::move(r.results[0]));
    }
    if (!ok) continue;
    // What dies with the root: every cone instruction is replaced (by the literal, or by a constant),
    // so one whose every use is in the cone is unused afterwards.
    dying.clear();
    dying_order.clear();
    for (InstId d : cone) {
      if (d == root) continue;
      bool all = p.has_uses(p.result(d));
      p.for_each_use(p.result(d), [&](InstId u, uint32_t) { all = all && seen.count(u); });
      if (all) {
        dying.insert(d);
        dying_order.push_back(d);
      }
    }
    // The text: the root's line and uses, and each dying line, go; the literal comes (inline at the
    // uses or as a constant line). A cone instruction that does not die is replaced by a named constant
    // too (the root's fold reads it as one): its line is traded for the constant's line.
    const Tensor& lit = value_of.at(rv);
    const size_t name_len = printed_name_len(p, rv);
    const size_t type_len = to_string(p.type_of(rv)).size();
    size_t removed = line_chars_low(p, root) + uses * name_len;
    for (InstId d : dying_order) removed += line_chars_low(p, d);
    const size_t text = print_literal(lit).size();
    const bool inl = inline_folded(lit, uses == 1, opts.inline_literal_max_elements);
    size_t added = inl ? uses * text : 2 + name_len + 12 + text + 4 + type_len + uses * name_len;
    for (InstId n : cone) {
      if (n == root || p.op(n) == OpCode::Constant || dying.count(n)) continue;
      const ValueId nv = p.result(n);
      removed += line_chars_low(p, n);
      added += 2 + printed_name_len(p, nv) + 12 + print_literal(value_of.at(nv)).size() + 4 +
               to_string(p.type_of(nv)).size();
    }
    if (added > removed) continue;

    // Applied as one ordinary fold per cone instruction, producers first: each replaces an instruction
    // whose operands are all constants by its value, so the expensive checks replay every step as they
    // replay the fold hook's. Then the dying constants are erased.
    const bool log = rw.has_listeners();
    std::vector<InstId> dead_constants;
    for (InstId n : cone) {
      if (p.op(n) == OpCode::Constant) {
        if (dying.count(n)) dead_constants.push_back(n);
        continue;
      }
      const ValueId nv = p.result(n);
      const Tensor& t = value_of.at(nv);
      const bool inline_here =
          n == root ? inl : dying.count(n) && inline_folded(t, p.has_one_use(nv), opts.inline_literal_max_elements);
      const uint64_t bracket1 = log ? rw.notify_pattern_begin(RewriteSource::fold(), n) : 0;
      ValueId v;
      if (inline_here) {
        v = rw.literal_value(t);
      } else {
        v = rw.materialize_constant(p.body(body).first, t);
        if (std::string_view nm = p.name(nv); !nm.empty()) rw.set_name(v, nm);
        if (n != root && dying.count(n)) dead_constants.push_back(p.def_inst(v));
      }
      rw.replace_op(n, v);
      if (log) rw.notify_pattern_end(RewriteSource::fold(), n, true, bracket1);
    }
    for (auto it = dead_constants.rbegin(); it != dead_constants.rend(); ++it) {
      const InstId d = *it;
      if (rw.is_erased(d) || !rw.results_unused(d)) continue;
      const uint64_t bracket2 = log ? rw.notify_pattern_begin(RewriteSource::dce(), d) : 0;
      rw.erase_inst(d);
      if (log) rw.notify_pattern_end(RewriteSource::dce(), d, true, bracket2);
    }
    ++folded;
  }
  return folded;
}

FoldResult fold_inst(const Program& p, InstId i, const FoldOptions& opts) {
  FoldKind k = fold_kind(p.op(i));
  if (k == FoldKind::Never) return {};
  if (k == FoldKind::Identity)
    if (FoldResult r = fold_identity(p, i)) return r;
  return opts.constant_fold ? fold_constant(p, i, opts) : FoldResult::nothing();
}

}  // namespace ptir
