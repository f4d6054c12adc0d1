// The instance generator (verify/prove/instance.h): types flow top-down from the root's result type
// through each op's shape rule in reverse; leaves become parameters or literals.
#include "verify/prove/instance.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "ir/interp.h"
#include "ir/verifier.h"
#include "rewriter/rules/natives.h"

namespace ptir::prove {
namespace {

using rules::Node;
using Rng = std::mt19937_64;

struct GenFail {
  std::string why;
};

int pick(Rng& r, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(r); }
bool coin(Rng& r, double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(r) < p; }

DType uniform_dtype(Rng& r) { return static_cast<DType>(pick(r, 0, kNumDTypes - 1)); }

/// A node of the instance under construction (post-order: operands before users).
struct GVal {
  enum class Kind : uint8_t { Param, Literal, Op } kind = Kind::Param;
  TensorType type;
  Tensor lit;
  OpCode op = OpCode::Constant;
  AttrSet attrs;
  std::vector<int> operands;
};

constexpr int kAny = NodeSteer::kAny;
/// The largest literal amount of a rule the generator builds an instance for (a slice start; a window
/// size, stride, dilation or pad, searched within +-kMaxLiteralAmount): an operand must hold it.
constexpr int64_t kMaxLiteralAmount = 64;
const char* const kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};

void number(const Node& n, std::vector<const Node*>& out) {
  out.push_back(&n);
  for (const auto& o : n.operands) number(*o, out);
}

bool commute(const std::vector<int64_t>& p, const std::vector<int64_t>& q) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[q[i]] != q[p[i]]) return false;
  return true;
}

class Generator {
 public:
  Generator(const Node& source, const InstanceOptions& o, Rng& r) : o_(o), r_(r) {
    std::vector<const Node*> nodes;
    number(source, nodes);
    for (size_t i = 0; i < nodes.size(); ++i) {
      idx_.emplace(nodes[i], static_cast<int>(i));
      if (nodes[i]->kind == Node::Kind::Op && !nodes[i]->as_name.empty()) as_defs_.emplace(nodes[i]->as_name, nodes[i]);
    }
    node_val.assign(nodes.size(), -1);
  }

  DType random_dtype(Rng& r) {
    if (!o_.dtype_hint.empty() && coin(r))
      return o_.dtype_hint[pick(r, 0, static_cast<int>(o_.dtype_hint.size()) - 1)];
    return uniform_dtype(r);
  }

  int root(const Node& n) {
    hidden_done_.clear();
    round_hint_.clear();
    TensorType t;
    // The steered dtype, else the hint first: the root's dtype decides most of the DAG's.
    t.dtype = steered_dtype(n);
    for (int k = 0; k < o_.rank; ++k) t.dims.push_back(pick(r_, 0, o_.max_dim));
    const int sizes = o_.steer ? o_.steer->sizes : kAny;
    if (sizes == 0 && !t.dims.empty()) {
      t.dims[pick(r_, 0, o_.rank - 1)] = 0;  // some axis 0
    } else if (sizes == 1 && n.kind == Node::Kind::Op && n.op == OpCode::Concat && !t.dims.empty() && coin(r_, 0.7)) {
      // Every axis 1 under a concat of k leaves (nested concats counted through): its axis must be k.
      for (int64_t& d : t.dims) d = 1;
      t.dims[pick(r_, 0, o_.rank - 1)] = concat_leaves(n);
    } else if (sizes == 1) {
      // Every axis 1 (a concat of k operands needs its axis to be k: sometimes 2).
      for (int64_t& d : t.dims) d = coin(r_, 0.7) ? 1 : std::min(2, std::max(1, o_.max_dim));
    } else if (sizes == 3 && !t.dims.empty()) {
      // One axis of 4..2 * max-dim (at least 4): a tile repeat >= 2 of an operand axis >= 2 needs it.
      for (int64_t& d : t.dims) d = std::max<int64_t>(d, 1);
      t.dims[pick(r_, 0, o_.rank - 1)] = pick(r_, 4, std::max(4, 2 * o_.max_dim));
    } else if (sizes == 4 && !t.dims.empty()) {
      // One axis of 6, 8, 9 or 12 (a repeat of 3 or 4 times an operand axis of 2 or 3): a tile repeat
      // >= 3 of an operand axis >= 2 needs it.
      for (int64_t& d : t.dims) d = std::max<int64_t>(d, 1);
      t.dims[pick(r_, 0, o_.rank - 1)] = pick(r_, 3, 4) * pick(r_, 2, 3);
    } else if (sizes == 2 && !t.dims.empty() && o_.max_dim >= 2) {
      for (int64_t& d : t.dims) d = std::max<int64_t>(d, 1);
      t.dims[pick(r_, 0, o_.rank - 1)] = pick(r_, 2, o_.max_dim);
    } else if (coin(r_, 0.8)) {
      // Bias toward non-empty tensors: an empty one proves little about values.
      for (int64_t& d : t.dims) d = std::max<int64_t>(d, 1);
    }
    // Square shapes (every dim equal) a quarter of the time: a rewrite that confuses axes (a dropped
    // transpose, a swapped reduction axis) only type-checks, and so only fires, where dims coincide.
    // Steered to a permutation class, more often.
    const int sq = o_.steer ? o_.steer->square : 0;
    const double square = sq == 2 ? 0.9 : sq == 1 ? 0.6 : 0.25;
    if (sizes != 0 && sizes != 1 && sizes != 3 && sizes != 4 && t.dims.size() >= 2 && coin(r_, square))
      for (int64_t& d : t.dims) d = std::max<int64_t>(t.dims[0], 2);
    return gen(n, t, /*fixed=*/false);
  }

  /// The leaves under a concat node, counting through nested concats (1 for any other node).
  static int concat_leaves(const Node& n) {
    if (n.kind != Node::Kind::Op || n.op != OpCode::Concat) return 1;
    int k = 0;
    for (const auto& o : n.operands) k += concat_leaves(*o);
    return k;
  }

  std::vector<GVal> vals;
  std::vector<int> node_val;  ///< per pre-order node: the index in vals (-1: not built)
  /// Each `%` capture (and `as` name) and the value it holds.
  const std::map<std::string, int>& capture_ids() const { return captures_; }
  bool perturbed = false;
  bool varied = false;  ///< a capture became a constant, or neg/abs of an input (Instance::varied_leaves)

 private:
  int add(GVal v) {
    vals.push_back(std::move(v));
    return static_cast<int>(vals.size()) - 1;
  }

  int idx(const Node& n) const {
    auto it = idx_.find(&n);
    return it == idx_.end() ? -1 : it->second;
  }
  /// The steering of node `n` (null: nothing steered).
  const NodeSteer* ns(const Node& n) const { return o_.steer ? o_.steer->at(idx(n)) : nullptr; }
  int steer_of(const Node& n, int NodeSteer::*field) const {
    const NodeSteer* s = ns(n);
    return s ? s->*field : kAny;
  }
  /// The dtype drawn for node `n` (the root, a cast's or a compare's operand): steered, else random.
  DType steered_dtype(const Node& n) {
    const int d = steer_of(n, &NodeSteer::dtype);
    if (d != kAny) return static_cast<DType>(d);
    // Unsteered under a steer: a third of the time one of the steered dtypes, so a cast of a steered
    // operand to the same dtype (a no-op cast) and other coincidences come up.
    if (o_.steer && coin(r_, 0.33)) {
      std::vector<int> ds;
      for (const NodeSteer& x : o_.steer->nodes)
        if (x.dtype != kAny) ds.push_back(x.dtype);
      if (!ds.empty()) return static_cast<DType>(ds[pick(r_, 0, static_cast<int>(ds.size()) - 1)]);
    }
    return random_dtype(r_);
  }
  /// A dim in lo..hi, biased by the steered size class (some axis 0, every axis 1, some axis >= 2).
  /// Room beside a window (a slice's or dynamic_slice's operand beyond the window along an axis): 0..2,
  /// a third of the time 3..max(4, max_dim + 1). (With 0..2 only, a start was never above 2, and rules
  /// capping a start at 2 were PROVED: an adversarial review.)
  /// The room beside a slice's or dynamic_slice's window: 0..2, a third of the time 3..wide_extent
  /// (starts of 3 to 4 only let a rule clamping them at 4 pass: an audit, 2026-12-07).
  int64_t wide_room() { return coin(r_, 0.67) ? pick(r_, 0, 2) : pick(r_, 3, wide_extent(o_.max_dim)); }

  /// A rule's literal axis as an int: -1 (an axis no rank has, so the caller's range check fails the
  /// generation) beyond the largest rank. (A literal of 2^32 was cast to the axis 0.)
  static int lit_axis(int64_t v) { return v < 0 || v > kMaxTypeRank ? -1 : static_cast<int>(v); }

  int64_t draw_dim(int lo, int hi) {
    const int sizes = o_.steer ? o_.steer->sizes : kAny;
    if (sizes == 0 && lo <= 0 && coin(r_)) return 0;
    if (sizes == 1 && lo <= 1 && hi >= 1 && coin(r_, 0.85)) return 1;
    if (sizes == 2 && hi >= 2 && coin(r_, 0.7)) return pick(r_, std::max(lo, 2), hi);
    return pick(r_, lo, hi);
  }

  /// The extent of an operand axis the result does not show (NodeSteer::hidden): drawn as a dim, but
  /// steered beyond the bound, max(4, max-dim + 1)..wide_extent (only steered: larger operands on every
  /// instance made the library's proof 1.6 times slower; a single size let a rule capped just above it
  /// pass).
  int64_t hidden_dim(const Node& n, int lo) {
    // One such axis per node (a reduction over three axes of 4 each made the library's proof slower).
    if (steer_of(n, &NodeSteer::hidden) == 1 && !hidden_done_.count(&n)) {
      hidden_done_.insert(&n);
      return pick(r_, std::max(4, o_.max_dim + 1), wide_extent(o_.max_dim));
    }
    return draw_dim(lo, std::max(lo, o_.max_dim));
  }

  /// Generates `n` with result type `want`; `fixed` means the type is forced (not just a suggestion).
  int gen(const Node& n, TensorType want, bool fixed) {
    // An op bound with `as %r` whose %r occurred earlier was built there: this is that value.
    if (n.kind == Node::Kind::Op && !n.as_name.empty())
      if (auto it = captures_.find(n.as_name); it != captures_.end()) {
        if (fixed && vals[it->second].type != want) throw GenFail{"`as %" + n.as_name + "` value with two types"};
        return it->second;
      }
    if (!building_.insert(&n).second) throw GenFail{"a node uses its own `as` name"};
    if (!n.type_capture.empty()) {
      auto it = types_.find(n.type_capture);
      if (it != types_.end()) {
        if (fixed && it->second != want) throw GenFail{"type capture conflict"};
        want = it->second, fixed = true;
      }
    }
    int id = -1;
    switch (n.kind) {
      case Node::Kind::Value: id = value(n, want); break;
      case Node::Kind::Splat: id = splat(n, want); break;
      case Node::Kind::Const: {
        // A second const($c) is the same literal (the matcher requires equal literals).
        auto seen = lits_.find(n.name);
        if (seen != lits_.end() && seen->second.type == want && o_.perturb != Perturb::SplitCapture) {
          id = add({GVal::Kind::Literal, want, seen->second, OpCode::Constant, {}, {}});
          break;
        }
        Tensor lit = random_literal(want);
        // The start of a dynamic_slice / dynamic_update_slice: mostly inside its room on every axis.
        if (auto room = start_room_.find(&n); room != start_room_.end() && is_integer(want.dtype) &&
                                              lit.size() == static_cast<int64_t>(room->second.size()))
          for (int64_t i = 0; i < lit.size(); ++i) {
            const int64_t hi = room->second[i];
            // Outside the room a fifth of the time, clamped: just outside, far outside (a start of -2 was
            // never drawn, and a rule reading x[2] for a start of -2 was PROVED: an adversarial review),
            // and the start dtype's extremes.
            const bool wide = want.dtype == DType::SI64;
            const int64_t lo_ext = wide ? INT64_MIN : INT32_MIN, hi_ext = wide ? INT64_MAX : INT32_MAX;
            int64_t v = pick(r_, 0, static_cast<int>(hi));
            if (coin(r_, 0.2)) {
              switch (pick(r_, 0, 4)) {
                case 0: v = pick(r_, -1, static_cast<int>(hi) + 2); break;
                case 1: v = -pick(r_, 2, 6); break;
                case 2: v = hi + pick(r_, 2, 6); break;
                case 3: v = coin(r_) ? lo_ext : hi_ext; break;
                default: v = coin(r_) ? lo_ext + pick(r_, 0, 2) : hi_ext - pick(r_, 0, 2); break;
              }
            }
            lit.set_bits(i, static_cast<uint64_t>(v) & bits_mask(want.dtype));
          }
        lits_.emplace(n.name, lit);
        id = add({GVal::Kind::Literal, want, std::move(lit), OpCode::Constant, {}, {}});
        break;
      }
      case Node::Kind::Op: id = op(n, want); break;  // binds its type capture before its operands
    }
    if (!n.type_capture.empty()) types_.emplace(n.type_capture, vals[id].type);
    if (!n.as_name.empty()) {
      auto [it, fresh] = captures_.emplace(n.as_name, id);
      if (!fresh && it->second != id) throw GenFail{"`as %" + n.as_name + "` names two values"};
    }
    if (const int i = idx(n); i >= 0) node_val[i] = id;
    building_.erase(&n);
    return id;
  }

  int value(const Node& n, const TensorType& want) {
    auto it = captures_.find(n.name);
    if (it == captures_.end())
      if (auto d = as_defs_.find(n.name); d != as_defs_.end()) {
        // `%r` before (or inside an operand of) the node bound `as %r`: build that node here, once;
        // its own position then uses the same value (the matcher requires one SSA value).
        if (building_.count(d->second)) throw GenFail{"`as %" + n.name + "` is used inside the node it names"};
        gen(*d->second, want, /*fixed=*/true);
        it = captures_.find(n.name);
      }
    if (it != captures_.end()) {
      if (o_.perturb == Perturb::SplitCapture && !perturbed) {
        perturbed = true;
        return add({GVal::Kind::Param, vals[it->second].type, {}, OpCode::Constant, {}, {}});
      }
      if (vals[it->second].type != want) throw GenFail{"repeated capture with two types"};
      return it->second;
    }
    const int id = leaf(want);
    captures_.emplace(n.name, id);
    return id;
  }

  /// A capture's first occurrence: an input, or (leaf_variety) now and then a constant or the result
  /// of an op on an input. `%x` matches any value, and a pattern must be right whatever made it (C++
  /// code that treats a constant or a computed operand differently was PROVED on inputs alone).
  int leaf(const TensorType& want) {
    if (o_.leaf_variety) {
      const double u = std::uniform_real_distribution<double>(0, 1)(r_);
      // (No f64 constants: Z3 timed out on f64 arithmetic with a constant operand where the same
      // instance with an input was proved at once; f16, bf16 and f32 constants exercise the same code.)
      if (u < 0.1 && want.dtype != DType::F64) {
        varied = true;
        return add({GVal::Kind::Literal, want, random_literal(want), OpCode::Constant, {}, {}});
      }
      if (u < 0.2) {
        std::vector<OpCode> producers;
        // (neg and abs only without nsz: under nsz the sign of their zero results is a choice of the
        // source, which the checker's zero-sign enumeration leaves UNKNOWN when it reaches the output.)
        for (OpCode op : {OpCode::StopGradient, OpCode::Neg, OpCode::Abs})
          if (op_accepts_dtype(op, want.dtype) && (op == OpCode::StopGradient || !(o_.fastmath & rules::kNSZ)))
            producers.push_back(op);
        if (!producers.empty()) {
          const int in = add({GVal::Kind::Param, want, {}, OpCode::Constant, {}, {}});
          const OpCode op = producers[pick(r_, 0, static_cast<int>(producers.size()) - 1)];
          varied = varied || op != OpCode::StopGradient;  // stop_gradient is the identity on values
          return add({GVal::Kind::Op, want, {}, op, {}, {in}});
        }
      }
    }
    return add({GVal::Kind::Param, want, {}, OpCode::Constant, {}, {}});
  }

  int splat(const Node& n, const TensorType& want) {
    auto bits = rules::number_bits(want.dtype, n.number.value, n.number.is_float);
    if (!bits) throw GenFail{"splat value not representable in " + std::string(dtype_name(want.dtype))};
    uint64_t b = *bits;
    if (o_.perturb == Perturb::Splat && !perturbed) {
      perturbed = true;
      b = neighbour(want.dtype, b);
    }
    Tensor t(want);
    for (int64_t i = 0; i < t.size(); ++i) t.set_bits(i, b);
    return add({GVal::Kind::Literal, want, std::move(t), OpCode::Constant, {}, {}});
  }

  /// A value next to `b`: the other zero, one ulp away, or the integer next to it.
  uint64_t neighbour(DType d, uint64_t b) {
    if (d == DType::I1) return b ^ 1;
    if (is_float(d)) {
      if (float_is_zero(d, b) && coin(r_)) return b ^ sign_mask(d);
      if (float_is_nan(d, b)) return double_to_float(d, 1.0);
      return coin(r_) ? b + 1 : (b & ~sign_mask(d)) == 0 ? b + 1 : b - 1;
    }
    return (coin(r_) ? b + 1 : b - 1) & bits_mask(d);
  }

  /// MIN, MIN + 1, MIN + 2, MAX - 2, MAX - 1, MAX of integer dtype `t` and, for every narrower integer
  /// dtype, its MIN and MAX and one either side, where `t` holds them (as int64: ui64's MAX is -1).
  static std::vector<int64_t> near_extremes(DType t) {
    const bool sgn = is_signed_int(t);
    const int w = dtype_bits(t);
    // t's range in __int128, so that ui64's MAX and the candidates one past a bound compare exactly.
    auto holds = [&](__int128 v) {
      if (sgn) return v >= static_cast<__int128>(int_min(t)) && v <= static_cast<__int128>(int_max_bits(t));
      return v >= 0 && v <= static_cast<__int128>(int_max_bits(t));
    };
    std::vector<int64_t> out;
    auto put = [&](__int128 v) {
      if (holds(v)) out.push_back(static_cast<int64_t>(static_cast<uint64_t>(v)));
    };
    const __int128 lo = sgn ? static_cast<__int128>(int_min(t)) : 0, hi = static_cast<__int128>(int_max_bits(t));
    for (int k = 0; k <= 2; ++k) put(lo + k), put(hi - k);
    for (DType d : {DType::SI8, DType::UI8, DType::SI16, DType::UI16, DType::SI32, DType::UI32}) {
      if (dtype_bits(d) >= w && !(dtype_bits(d) == w && is_signed_int(d) != sgn)) continue;
      const __int128 dlo = is_signed_int(d) ? static_cast<__int128>(int_min(d)) : 0;
      const __int128 dhi = static_cast<__int128>(int_max_bits(d));
      for (int k = -1; k <= 1; ++k) put(dlo + k), put(dhi + k);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  Tensor random_literal(const TensorType& t) {
    const int mode = pick(r_, 0, 2);
    if (mode == 0 && is_float(t.dtype)) {
      // A splat of a power of two (the x / 2^k family): mostly small, a third of the time anywhere in
      // the dtype's range, its largest and its smallest (subnormal) power included. (Only 2^-3..2^3
      // were drawn, so `(x * c) * c => x * (c * c)` for a power of two c was PROVED: c * c overflows
      // from f16 c = 256 on. An adversarial review.)
      const DTypeInfo& fi = dtype_info(t.dtype);
      const int emax = (1 << (fi.exp_bits - 1)) - 1, emin = 2 - (1 << (fi.exp_bits - 1)) - fi.frac_bits;
      const int e = coin(r_, 0.67)   ? pick(r_, -3, 3)
                    : coin(r_, 0.25) ? (coin(r_) ? emax : emin)
                    : coin(r_)       ? pick(r_, emax / 2 - 1, emax)
                                     : pick(r_, emin, emin + 2 * fi.frac_bits);
      const double v = std::ldexp(coin(r_) ? 1.0 : -1.0, e);
      Tensor s(t);
      for (int64_t i = 0; i < s.size(); ++i) s.set_bits(i, double_to_float(t.dtype, v));
      return s;
    }
    if (mode == 0 && is_integer(t.dtype) && t.dtype != DType::I1) {
      // Near an extreme: MIN, MAX and one or two inside them, and the bounds of every narrower integer
      // dtype, one either side (random_tensor's edges are MIN, MAX and small values only, so a rule
      // wrong at MAX - 1, or at 255 compared in si32, was PROVED: an audit, 2026-12-07). A splat half of
      // the time, else each element drawn from the set.
      const std::vector<int64_t> vals = near_extremes(t.dtype);
      Tensor s(t);
      const bool splat = coin(r_);
      const int64_t v0 = vals[static_cast<size_t>(pick(r_, 0, static_cast<int>(vals.size()) - 1))];
      for (int64_t i = 0; i < s.size(); ++i) {
        const int64_t v = splat ? v0 : vals[static_cast<size_t>(pick(r_, 0, static_cast<int>(vals.size()) - 1))];
        s.set_bits(i, static_cast<uint64_t>(v) & bits_mask(t.dtype));
      }
      return s;
    }
    Tensor s = random_tensor(t, r_(), 0.5);
    if (mode == 1 && s.size() > 0)
      for (int64_t i = 1; i < s.size(); ++i) s.set_bits(i, s.bits(0));
    return s;
  }

  /// The dtype an operand of `n` must have because its `: $T` capture is already bound, else `dflt`.
  DType forced_dtype(const Node& n, DType dflt) {
    for (const auto& o : n.operands)
      if (!o->type_capture.empty())
        if (auto it = types_.find(o->type_capture); it != types_.end()) return it->second.dtype;
    return dflt;
  }

  // ---- attributes ----
  /// The attribute `name` of `n` as the rule fixes it (a constant or an already bound capture).
  const AttrValue* fixed_attr(const Node& n, const std::string& name) {
    for (const auto& a : n.attrs) {
      if (a.name != name) continue;
      if (a.kind == rules::AttrExpr::Kind::Capture) {
        auto it = attrs_.find(a.capture);
        return it == attrs_.end() ? nullptr : &it->second;
      }
      scratch_.emplace_back();
      AttrValue& v = scratch_.back();
      if (a.kind == rules::AttrExpr::Kind::Ints) v.ints = a.ints;
      if (a.kind == rules::AttrExpr::Kind::Word) {
        const AttrSpec* s = find_attr_spec(n.op, name);
        v.kind = s ? s->kind : AttrKind::Word;
        if (v.kind == AttrKind::DType) v.ints = {static_cast<int64_t>(*parse_dtype(a.word))};
        else if (v.kind == AttrKind::Bool) v.ints = {a.word == "true"};
        else v.text = a.word;
      }
      return &v;
    }
    return nullptr;
  }
  /// Records the attributes chosen for `n`, binding its captures.
  void bind_attrs(const Node& n, const AttrSet& set) {
    for (const auto& a : n.attrs)
      if (a.kind == rules::AttrExpr::Kind::Capture)
        if (const AttrValue* v = set.find(a.name)) attrs_.emplace(a.capture, *v);
  }
  static void put(AttrSet& s, std::string name, AttrKind k, std::vector<int64_t> ints, std::string text = {}) {
    AttrValue v;
    v.kind = k, v.ints = std::move(ints), v.text = std::move(text);
    s.attrs.push_back(Attr{std::move(name), std::move(v)});
  }

  std::vector<int64_t> random_perm(int n) {
    std::vector<int64_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), r_);
    return p;
  }

  /// Whether node n's optional attributes take other values than their defaults this time (steered by
  /// NodeSteer::opt_attrs, else half of the time).
  bool odd_attrs(const Node& n) {
    const int so = steer_of(n, &NodeSteer::opt_attrs);
    return so == kAny ? coin(r_) : so == 1;
  }
  /// A fill value (pad, extract_patches): another value than 0 of dtype `t`, or (`odd` false) none, or
  /// now and then +0 written out.
  void put_fill(const Node& n, DType t, bool odd, AttrSet& attrs) {
    if (const AttrValue* f = fixed_attr(n, "value")) {
      attrs.attrs.push_back(Attr{"value", *f});
      return;
    }
    uint64_t bits = 0;
    if (odd && coin(r_, 0.4)) {
      // Any bit pattern of the dtype (not 0): values below -1, above 7, not exact in narrower floats.
      for (int k = 0; k < 8 && bits == 0; ++k) bits = r_() & bits_mask(t);
      if (bits == 0) bits = 1;
    } else if (odd) {
      if (t == DType::I1) {
        bits = 1;
      } else if (is_float(t)) {
        const double vs[] = {1.0, -1.0, 0.5, -2.5, 7.0};
        switch (pick(r_, 0, 7)) {
          case 0: bits = sign_mask(t); break;  // -0.0
          case 1: bits = float_inf(t, coin(r_)); break;
          case 2: bits = canonical_nan(t); break;
          default: bits = double_to_float(t, vs[pick(r_, 0, 4)]);
        }
      } else {
        const uint64_t vs[] = {1, 7, bits_mask(t), int_max_bits(t), static_cast<uint64_t>(int_min(t)), uint64_t(0) - 5};
        bits = vs[pick(r_, 0, 5)] & bits_mask(t);
      }
    } else if (!coin(r_, 0.2)) {
      return;
    }
    AttrValue v;
    v.kind = AttrKind::Scalar;
    v.lit = Tensor::filled(TensorType{t, {}}, bits);
    attrs.attrs.push_back(Attr{"value", std::move(v)});
  }
  /// One axis of a window op: window, stride, window dilation, base dilation (reduce_window), pads, and
  /// the operand dim that gives the wanted result dim.
  struct WinAxis {
    int64_t w = 1, s = 1, wd = 1, bd = 1, pl = 0, ph = 0, d = 0;
  };
  /// The result dim of one axis (docs/semantics.md): reduce_window's, or extract_patches' (-1: invalid).
  static int64_t window_out(const WinAxis& a, bool patches) {
    const int64_t eff = (a.w - 1) * a.wd + 1;
    if (patches) {
      const int64_t num = a.d + a.pl + a.ph - eff;
      const int64_t q = num >= 0 ? num / a.s : -((-num + a.s - 1) / a.s);
      return q + 1;  // < 0: invalid
    }
    const int64_t dil = a.d == 0 ? 0 : (a.d - 1) * a.bd + 1;
    const int64_t padded = a.pl + dil + a.ph;
    return padded < eff ? 0 : (padded - eff) / a.s + 1;
  }
  /// An axis giving result dim `o`: the rule's fixed values where it writes them (`fixed[k]` for
  /// window, strides, window dilation, base dilation, pad_low, pad_high; -1 free), the rest drawn,
  /// defaults unless `odd`; the operand dim is searched for with the forward formula.
  WinAxis window_axis(int64_t o, bool patches, bool odd, const std::array<std::optional<int64_t>, 6>& fixed,
                      int force_wide = -1) {
    // The rule's own values: sizes, strides and dilations must be >= 1 (else the op does not verify and
    // a stride 0 would divide by zero below), and large ones are not searched.
    for (int k = 0; k < 4; ++k)
      if (fixed[k] && (*fixed[k] < 1 || *fixed[k] > kMaxLiteralAmount)) throw GenFail{"window attribute out of the searched range"};
    for (int k = 4; k < 6; ++k)
      if (fixed[k] && (*fixed[k] < -kMaxLiteralAmount || *fixed[k] > kMaxLiteralAmount)) throw GenFail{"window pad out of the searched range"};
    for (int t = 0; t < 40; ++t) {
      WinAxis a;
      // A fifth of the odd draws go wider (windows 4-5, strides 4-5, dilations 3-4, pads -4..-2 or 3-4): a rule
      // that clamps one of them at the narrow range's edge was PROVED (a red team, 2026-12-07).
      // `force_wide` (steered, NodeSteer::wide) makes that attribute wide on this axis.
      // (force_wide 4 / 5: pad_low / pad_high <= -2; 6 / 7: >= 3.)
      const auto wide = [&](int k) { return k == force_wide || (k >= 4 && k + 2 == force_wide) || (odd && coin(r_, 0.2)); };
      const auto wide_pad = [&](int k) {
        return force_wide == k ? pick(r_, -4, -2) : force_wide == k + 2 ? pick(r_, 3, 4) : coin(r_) ? pick(r_, -4, -2) : pick(r_, 3, 4);
      };
      a.w = wide(0) ? pick(r_, 4, 5) : force_wide == 2 ? pick(r_, 2, 3) : pick(r_, 1, 2 + (odd ? 1 : 0));
      if (odd) {
        if (force_wide == 1 || coin(r_)) a.s = wide(1) ? pick(r_, 4, 5) : pick(r_, 2, 3);
        if (force_wide == 2 || coin(r_)) a.wd = wide(2) ? pick(r_, 3, 4) : 2;
        if (!patches && (force_wide == 3 || coin(r_))) a.bd = wide(3) ? pick(r_, 3, 4) : 2;
        if (force_wide == 4 || force_wide == 6 || coin(r_)) a.pl = wide(4) ? wide_pad(4) : pick(r_, -1, 2);
        if (force_wide == 5 || force_wide == 7 || coin(r_)) a.ph = wide(5) ? wide_pad(5) : pick(r_, -1, 2);
      }
      int64_t* fields[] = {&a.w, &a.s, &a.wd, &a.bd, &a.pl, &a.ph};
      for (int k = 0; k < 6; ++k)
        if (fixed[k]) *fields[k] = *fixed[k];
      std::vector<int64_t> ds;
      const int64_t bound = o * a.s * a.bd + (a.w - 1) * a.wd + 4 + std::abs(a.pl) + std::abs(a.ph);
      for (int64_t d = force_wide == 3 ? 2 : 0; d <= std::min<int64_t>(bound, 1024); ++d) {  // base dilation: d >= 2
        a.d = d;
        if (window_out(a, patches) == o) ds.push_back(d);
      }
      if (ds.empty()) continue;
      a.d = ds[pick(r_, 0, static_cast<int>(ds.size()) - 1)];
      return a;
    }
    throw GenFail{"no window axis gives the result dim"};
  }
  /// The window attributes of node n (reduce_window or extract_patches) for result dims `out`: writes
  /// window and every optional list (a list at its default half of the time left out) and returns the
  /// operand dims.
  std::vector<int64_t> window_attrs(const Node& n, const std::vector<int64_t>& out, bool patches, bool odd,
                                    AttrSet& attrs) {
    const char* names[] = {"window", "strides", patches ? "dilation" : "window_dilation", "base_dilation", "pad_low",
                           "pad_high"};
    const int64_t dflt[] = {1, 1, 1, 1, 0, 0};
    std::array<const AttrValue*, 6> fixed{};
    for (int k = 0; k < 6; ++k) {
      if (patches && k == 3) continue;
      fixed[k] = fixed_attr(n, names[k]);
      if (fixed[k] && fixed[k]->ints.size() != out.size()) throw GenFail{std::string(names[k]) + " rank"};
    }
    std::vector<WinAxis> axes;
    // Steered wide (NodeSteer::wide): attribute k wide on one axis, the odd draws on the others.
    const int wk = steer_of(n, &NodeSteer::wide);
    int wide_axis = -1;
    if (wk >= 0 && wk < 8 && !out.empty()) {
      // A stride matters with two windows or more: an axis whose result dim is >= 2.
      std::vector<int> can;
      for (size_t j = 0; j < out.size(); ++j)
        if (wk != 1 || out[j] >= 2) can.push_back(static_cast<int>(j));
      if (can.empty()) throw GenFail{"no result axis of 2 or more for a wide stride"};
      wide_axis = can[pick(r_, 0, static_cast<int>(can.size()) - 1)];
    }
    if (wide_axis >= 0) odd = true;
    for (size_t j = 0; j < out.size(); ++j) {
      std::array<std::optional<int64_t>, 6> f;
      for (int k = 0; k < 6; ++k)
        if (fixed[k]) f[k] = fixed[k]->ints[j];
      axes.push_back(window_axis(out[j], patches, odd, f, static_cast<int>(j) == wide_axis ? wk : -1));
    }
    std::vector<int64_t> dims;
    for (const WinAxis& a : axes) dims.push_back(a.d);
    for (int k = 0; k < 6; ++k) {
      if (patches && k == 3) continue;
      std::vector<int64_t> v;
      bool all_default = true;
      for (const WinAxis& a : axes) {
        const int64_t x = k == 0 ? a.w : k == 1 ? a.s : k == 2 ? a.wd : k == 3 ? a.bd : k == 4 ? a.pl : a.ph;
        v.push_back(x);
        all_default = all_default && x == dflt[k];
      }
      if (k == 0 || fixed[k] || !all_default || coin(r_, 0.2)) put(attrs, names[k], AttrKind::Ints, v);
    }
    return dims;
  }

  /// The dtype of node n's index operand (operand 1): steered or drawn, where the verifier accepts it.
  DType index_dtype(const Node& n, OpCode op) {
    const DType d = steered_dtype(*n.operands[1]);
    if (index_dtype_accepted(op, d)) return d;
    return coin(r_) ? DType::SI32 : DType::SI64;
  }

  // ---- ops ----
  int op(const Node& n, TensorType want) {
    GVal g;
    g.kind = GVal::Kind::Op;
    g.op = n.op;
    std::vector<TensorType> in;  // operand types, one per operand node
    const size_t k = n.operands.size();
    switch (n.op) {
      case OpCode::Compare: {
        want.dtype = DType::I1;
        const AttrValue* dir = fixed_attr(n, "dir");
        const int sd = steer_of(n, &NodeSteer::dir);
        put(g.attrs, "dir", AttrKind::Word, {}, dir ? dir->text : kDirs[sd != kAny ? sd : pick(r_, 0, 5)]);
        TensorType o = want;
        o.dtype = forced_dtype(n, steered_dtype(*n.operands[0]));
        in.assign(k, o);
        break;
      }
      case OpCode::Select: {
        TensorType c = want;
        c.dtype = DType::I1;
        in = {c, want, want};
        break;
      }
      case OpCode::Cast: {
        TensorType o = want;
        const Node& from = *n.operands[0];
        const bool unsteered = steer_of(from, &NodeSteer::dtype) == kAny;
        const bool chain = from.kind == Node::Kind::Op && from.op == OpCode::Cast;
        // In a chain of casts, half of the time each cast rounds: an operand dtype the cast to `want`
        // does not hold exactly (rules::widens_exactly), and the inner cast likewise. Dtype classes are per
        // variable, and a rule folding cast(cast(x) : M) : T wrong only under double rounding (si32 -> f32
        // -> bf16, si64 -> f64 -> f32) was PROVED on four seeds (an audit, 2026-12-07). A bias beside the
        // joint classes "casts OP = L1 then L2" (coverage.cpp), which steer every dtype of the chain.
        if (unsteered && (chain || round_hint_.count(&n)) && coin(r_, 0.5)) {
          // The outer cast of a chain: from a float that holds every value of `want` and more (its
          // rounding to `want` is the second one); the inner cast: from any dtype `want` does not hold.
          std::vector<DType> rounds;
          for (int k = 0; k < kNumDTypes; ++k) {
            const auto d = static_cast<DType>(k);
            if (d == want.dtype || d == DType::I1 || !is_float(want.dtype) || rules::widens_exactly(d, want.dtype)) continue;
            if (chain && !(is_float(d) && rules::widens_exactly(want.dtype, d))) continue;
            rounds.push_back(d);
          }
          if (!rounds.empty()) {
            o.dtype = forced_dtype(n, rounds[static_cast<size_t>(pick(r_, 0, static_cast<int>(rounds.size()) - 1))]);
            if (chain) round_hint_.insert(&from);
            in = {o};
            break;
          }
        }
        // A quarter of the unsteered casts are to their own dtype (a no-op cast is an edge case).
        const bool same = unsteered && coin(r_, 0.25);
        o.dtype = forced_dtype(n, same ? want.dtype : steered_dtype(from));
        in = {o};
        break;
      }
      case OpCode::Transpose: {
        const AttrValue* f = fixed_attr(n, "perm");
        std::vector<int64_t> p = f ? f->ints : steered_perm(want.rank(), steer_of(n, &NodeSteer::perm));
        if (static_cast<int>(p.size()) != want.rank()) throw GenFail{"perm rank"};
        perms_.push_back(p);
        TensorType o = want;
        for (int i = 0; i < want.rank(); ++i) {
          if (p[i] < 0 || p[i] >= want.rank()) throw GenFail{"perm range"};
          o.dims[p[i]] = want.dims[i];
        }
        put(g.attrs, "perm", AttrKind::Ints, p);
        in = {o};
        break;
      }
      case OpCode::Reshape: in = {reshape_operand(want)}; break;
      case OpCode::BroadcastTo: {
        TensorType o = want;
        const int sr = steer_of(n, &NodeSteer::bcast_rank), se = steer_of(n, &NodeSteer::bcast_expand);
        if (sr == 2 && want.rank() < 2) throw GenFail{"moving an operand axis needs a result of rank >= 2"};
        const int drop = sr == 0 || want.rank() == 0 ? 0
                         : sr == 1                  ? pick(r_, 1, want.rank())
                         : sr == 2                  ? pick(r_, 1, want.rank() - 1)
                                                    : pick(r_, 0, want.rank());
        o.dims.erase(o.dims.begin(), o.dims.begin() + drop);
        if (se != 0 && sr != 2)
          for (int64_t& d : o.dims)
            if (coin(r_, 0.4)) d = 1;
        if (se == 1) {  // expand at least one axis whose result size is not 1
          std::vector<int> can;
          for (int k = 0; k < o.rank(); ++k)
            if (want.dims[drop + k] != 1) can.push_back(k);
          if (!can.empty()) o.dims[can[pick(r_, 0, static_cast<int>(can.size()) - 1)]] = 1;
        }
        in = {o};
        break;
      }
      case OpCode::Slice: {
        TensorType o = want;
        std::vector<int64_t> starts;
        const int ss = steer_of(n, &NodeSteer::starts);
        const bool unit = o_.steer && o_.steer->sizes == 1;
        const int forced = ss == 1 && want.rank() > 0 ? pick(r_, 0, want.rank() - 1) : -1;
        for (int k = 0; k < want.rank(); ++k) {
          int64_t extra = unit && coin(r_, 0.85) ? 0 : wide_room();
          if (k == forced) extra = std::max<int64_t>(extra, 1);
          starts.push_back(ss == 0 ? 0 : pick(r_, k == forced ? 1 : 0, static_cast<int>(extra)));
          o.dims[k] += extra;
        }
        const AttrValue* f = fixed_attr(n, "starts");
        // A slice of a value already built (a second slice of %x): its type is known, so the window
        // is placed inside it, half the time right after the previous window of the same value along
        // one axis (adjacent slices), instead of drawing a type that must then coincide.
        const Node& src = *n.operands[0];
        const auto bound = src.kind == Node::Kind::Value ? captures_.find(src.name) : captures_.end();
        if (!f && bound != captures_.end() && vals[bound->second].type.rank() == want.rank()) {
          o = vals[bound->second].type;
          o.dtype = want.dtype;
          for (int k = 0; k < want.rank(); ++k) {
            if (want.dims[k] > o.dims[k]) throw GenFail{"the window does not fit the sliced value"};
            starts[k] = ss == 0 ? 0 : pick(r_, 0, static_cast<int>(o.dims[k] - want.dims[k]));
          }
          auto prev = last_slice_.find(src.name);
          if (prev != last_slice_.end() && ss != 0 && coin(r_)) {
            const auto& [ps, pd] = prev->second;
            std::vector<int> axes;
            for (int a = 0; a < want.rank(); ++a) {
              bool ok = ps[a] + pd[a] + want.dims[a] <= o.dims[a];
              for (int k = 0; k < want.rank() && ok; ++k) ok = k == a || pd[k] == want.dims[k];
              if (ok) axes.push_back(a);
            }
            if (!axes.empty()) {
              const int a = axes[pick(r_, 0, static_cast<int>(axes.size()) - 1)];
              starts = ps;
              starts[a] = ps[a] + pd[a];
            }
          }
        }
        if (f) {
          starts = f->ints;
          if (static_cast<int>(starts.size()) != want.rank()) throw GenFail{"starts rank"};
          // A literal start must fit an operand of a few elements (a start of 2^63 - 1 overflowed the
          // operand's size, and 3e8 built a 300-million-element input: the prover crashed or ran for
          // minutes): beyond kMaxLiteralAmount the rule gets no instance (NOT EXERCISED, with this reason).
          for (int64_t v : starts)
            if (v < 0 || v > kMaxLiteralAmount) throw GenFail{"a literal slice start outside 0.." + std::to_string(kMaxLiteralAmount)};
          // The room after the window: 0..1 mostly, 2..4 a third of the time (only 0..1 was drawn, and a
          // rule placing the window one element early whenever two were left was PROVED).
          for (int i = 0; i < want.rank(); ++i)
            o.dims[i] = want.dims[i] + starts[i] + (coin(r_, 0.67) ? pick(r_, 0, 1) : pick(r_, 2, wide_extent(o_.max_dim)));
        }
        if (src.kind == Node::Kind::Value) last_slice_[src.name] = {starts, want.dims};
        put(g.attrs, "starts", AttrKind::Ints, starts);
        in = {o};
        break;
      }
      case OpCode::Pad: {
        // Result dim = low + high + d + max(d - 1, 0) * interior; low/high may be negative (cropping).
        // Padding that keeps the shape but moves elements (low 1, high -1) is in the domain too.
        TensorType o = want;
        std::vector<int64_t> lo, hi, in_;
        const int sn = steer_of(n, &NodeSteer::pad_neg), si = steer_of(n, &NodeSteer::interior);
        // Interiors 1-2, and 3-4 a fifth of the time (a rule clamping the interior at 2 was PROVED).
        const auto draw_interior = [&] { return coin(r_, 0.2) ? pick(r_, 3, 4) : pick(r_, 1, 2); };
        const int64_t interior = si == 0 ? 0 : si == 1 ? draw_interior() : coin(r_, 0.7) ? 0 : draw_interior();
        const int neg_axis = sn == 1 && want.rank() > 0 ? pick(r_, 0, want.rank() - 1) : -1;
        // Steered wide (NodeSteer::wide 0): one axis with an interior of 3-4 between 2-3 operand
        // elements, its result dim kept by cropping low/high.
        const int wide_axis = steer_of(n, &NodeSteer::wide) == 0 && want.rank() > 0 ? pick(r_, 0, want.rank() - 1) : -1;
        std::vector<int64_t> ins;  // interior per axis: mostly `interior`, now and then another (0-2)
        for (int64_t& d : o.dims) {
          const int axis = static_cast<int>(&d - o.dims.data());
          if (axis == wide_axis) {
            const int64_t i = pick(r_, 3, 4), x = pick(r_, 2, 3), total = d - (x + (x - 1) * i);
            // The rule's literal low or high where it writes one (the other crops the rest).
            const AttrValue* fl = fixed_attr(n, "low");
            const AttrValue* fh = fixed_attr(n, "high");
            const auto at = [&](const AttrValue* v) -> std::optional<int64_t> {
              if (!v || static_cast<size_t>(axis) >= v->ints.size()) return std::nullopt;
              return v->ints[axis];
            };
            int64_t l = pick(r_, static_cast<int>(std::min<int64_t>(total, 0)), static_cast<int>(std::max<int64_t>(total, 0)));
            if (at(fl)) l = *at(fl);
            else if (at(fh)) l = total - *at(fh);
            if (at(fl) && at(fh) && *at(fl) + *at(fh) != total) throw GenFail{"the literal pads leave no room for a wide interior"};
            lo.push_back(l), hi.push_back(total - l), ins.push_back(i);
            d = x;
            continue;
          }
          const int64_t interior_here = si != 0 && coin(r_, 0.3) ? (coin(r_, 0.3) ? 0 : draw_interior()) : interior;
          int64_t l = 0, h = 0, x = -1;
          const bool unit = o_.steer && o_.steer->sizes == 1;
          for (int t = 0; t < 24 && x < 0; ++t) {
            // An axis without padding now and then (a window may then read the operand alone).
            // Mostly -2..2; a quarter of the time -4..4 (only -2..2 was drawn, and a rule rewriting
            // low[-3] high[2] to low[-2] high[1] was PROVED: an adversarial review).
            const int span = coin(r_, 0.25) ? 4 : 2;
            if (coin(r_, 0.15) && sn != 1) l = h = 0;
            else l = pick(r_, -span, span), h = pick(r_, -span, span);
            if (sn == 0 && (l < 0 || h < 0)) continue;
            if (unit && t < 12 && d - l - h != 1) continue;  // operand axis 1 (m = 1 whatever the interior)
            if (axis == neg_axis && l >= 0 && h >= 0) continue;
            const int64_t m = d - l - h;
            if (m < 0) continue;
            if (interior_here == 0) x = m;
            else if (m == 0) x = 0;
            else if ((m + interior_here) % (1 + interior_here) == 0) x = (m + interior_here) / (1 + interior_here);
          }
          if (x < 0) {  // plain padding always fits
            l = pick(r_, 0, static_cast<int>(std::min<int64_t>(d, 2)));
            h = pick(r_, 0, static_cast<int>(std::min<int64_t>(d - l, 2)));
            x = interior_here == 0 ? d - l - h : -1;
            if (x < 0) throw GenFail{"pad interior"};
          }
          lo.push_back(l), hi.push_back(h), ins.push_back(interior_here);
          d = x;
        }
        put(g.attrs, "low", AttrKind::Ints, lo);
        put(g.attrs, "high", AttrKind::Ints, hi);
        const bool some_interior = std::any_of(ins.begin(), ins.end(), [](int64_t v) { return v != 0; });
        if (some_interior || (si != 1 && coin(r_, 0.2))) put(g.attrs, "interior", AttrKind::Ints, ins);
        put_fill(n, want.dtype, odd_attrs(n), g.attrs);
        in = {o};
        break;
      }
      case OpCode::Concat: {
        if (want.rank() == 0) throw GenFail{"concat needs rank >= 1"};
        const AttrValue* f = fixed_attr(n, "axis");
        const bool unit = o_.steer && o_.steer->sizes == 1;
        int axis = f && !f->ints.empty() ? lit_axis(f->ints[0]) : pick(r_, 0, want.rank() - 1);
        // Steered to "every axis 1": the axis of the exact leaf count, where there is one.
        if (unit && !f)
          for (int a = 0; a < want.rank(); ++a)
            if (want.dims[a] == concat_leaves(n) && want.dims[a] > 1) axis = a;
        // Steered (NodeSteer::wide 0): the first two operands of 2 or more along the axis (the largest
        // root axis, 4 or more under the class's steer: a rule reading concat(x, x) as np.repeat was
        // PROVED when two operands of 2 were never built).
        const bool two_big = steer_of(n, &NodeSteer::wide) == 0 && k >= 2;
        if (two_big && !f)
          axis = static_cast<int>(std::max_element(want.dims.begin(), want.dims.end()) - want.dims.begin());
        if (axis < 0 || axis >= want.rank()) throw GenFail{"concat axis"};
        if (two_big && want.dims[axis] < 4) throw GenFail{"two concat operands of 2 need an axis of 4"};
        put(g.attrs, "axis", AttrKind::Int, {axis});
        int64_t left = want.dims[axis];
        for (size_t i = 0; i < k; ++i) {
          TensorType o = want;
          const int64_t share = concat_leaves(*n.operands[i]);  // each leaf of size 1
          o.dims[axis] = i + 1 == k ? left
                         : two_big && i < 2 ? pick(r_, 2, static_cast<int>(left) - (i == 0 ? 2 : 0))
                         : unit ? std::min<int64_t>(share, left) : pick(r_, 0, static_cast<int>(left));
          left -= o.dims[axis];
          in.push_back(o);
        }
        break;
      }
      case OpCode::ReduceSum:
      case OpCode::ReduceMax:
      case OpCode::ReduceMin: in = {reduce_operand(n, want, g.attrs)}; break;
      case OpCode::DotGeneral: in = dot_operands(n, want, g.attrs); break;
      case OpCode::Tile: {
        TensorType o = want;
        std::vector<int64_t> reps;
        const int sr = steer_of(n, &NodeSteer::repeats);
        for (int64_t& d : o.dims) {
          // A repeat > 1 divides the dim (2 or the dim itself); steered to "all 1", none.
          std::vector<int64_t> divs;
          for (int64_t q = 2; q <= d; ++q)
            if (d % q == 0) divs.push_back(q);
          int64_t rep = 1;
          if (!divs.empty() && sr != 0 && (sr >= 2 || coin(r_)))
            rep = divs[pick(r_, 0, static_cast<int>(divs.size()) - 1)];
          // Steered to a repeat of an operand axis >= 2 (sr 3) or a repeat >= 3 of one (sr 4): any divisor
          // leaving the operand >= 2 (the smallest one only, 2, proved a rule wrong for repeats of 3).
          if (sr == 3 || sr == 4) {
            std::vector<int64_t> fit;
            for (int64_t q : divs)
              if (d / q >= 2 && q >= sr - 1) fit.push_back(q);
            if (!fit.empty()) rep = fit[pick(r_, 0, static_cast<int>(fit.size()) - 1)];
          }
          if (d == 0 && sr != 0 && coin(r_, sr == 1 ? 0.5 : 0.75)) {
            rep = 0;  // an empty result from a non-empty operand: its elements are computed, never read
            reps.push_back(rep);
            d = pick(r_, 1, 2);
            continue;
          }
          if (d == 0 && sr != 0 && coin(r_)) {
            // An empty operand axis stays empty whatever the repeat (0, 2 or 3): the shape is kept.
            reps.push_back(sr == 1 ? 0 : pick(r_, 2, 3));
            continue;
          }
          reps.push_back(rep);
          d /= rep;
        }
        put(g.attrs, "repeats", AttrKind::Ints, reps);
        in = {o};
        break;
      }
      case OpCode::DynamicSlice: {
        // x: the window's dims plus 0..2 per axis; start: a 1-D si32/si64 of rank(x) entries, mostly
        // inside 0..dim - size (start values outside are clamped: docs/semantics.md).
        TensorType o = want;
        std::vector<int64_t> room;
        for (int64_t& d : o.dims) {
          const int64_t extra = wide_room();
          d += extra;
          room.push_back(extra);
        }
        in = {o, TensorType{coin(r_) ? DType::SI32 : DType::SI64, {static_cast<int64_t>(want.rank())}}};
        start_room_[n.operands[1].get()] = room;
        break;
      }
      case OpCode::DynamicUpdateSlice: {
        TensorType u = want;
        std::vector<int64_t> room;
        for (int64_t& d : u.dims) {
          const int64_t full = d;
          d = pick(r_, 0, static_cast<int>(full));
          if (coin(r_, 0.3)) d = full;
          room.push_back(full - d);
        }
        in = {want, u, TensorType{coin(r_) ? DType::SI32 : DType::SI64, {static_cast<int64_t>(want.rank())}}};
        start_room_[n.operands[2].get()] = room;
        break;
      }
      case OpCode::Iota: {
        if (want.rank() == 0) throw GenFail{"iota needs rank >= 1"};
        const AttrValue* f = fixed_attr(n, "axis");
        const int axis = f && !f->ints.empty() ? lit_axis(f->ints[0]) : pick(r_, 0, want.rank() - 1);
        put(g.attrs, "axis", AttrKind::Int, {axis});
        break;
      }
      case OpCode::Argmax: {
        // The result is an integer index; x has the reduced axis (kept as size 1 under keepdims[true]).
        if (!is_integer(want.dtype)) want.dtype = coin(r_) ? DType::SI32 : DType::SI64;  // steered root dtypes are integers
        const AttrValue* fk = fixed_attr(n, "keepdims");
        const int so = steer_of(n, &NodeSteer::opt_attrs);
        const int mode = fk && !fk->ints.empty() ? (fk->ints[0] ? 2 : 1)
                         : so == 1 && want.rank() > 0 ? 2 : so == 0 ? pick(r_, 0, 1) : pick(r_, 0, 2);
        const bool keep = mode == 2;
        if (keep && want.rank() == 0) throw GenFail{"argmax keepdims needs rank >= 1"};
        const AttrValue* fa = fixed_attr(n, "axis");
        const int axis = fa && !fa->ints.empty() ? lit_axis(fa->ints[0])
                                                 : pick(r_, 0, keep ? want.rank() - 1 : want.rank());
        TensorType o = want;
        o.dtype = forced_dtype(n, steered_dtype(*n.operands[0]));
        if (keep) {
          if (axis < 0 || axis >= want.rank()) throw GenFail{"argmax axis"};
          want.dims[axis] = 1;
          o.dims = want.dims;
          o.dims[axis] = hidden_dim(n, 1);
        } else {
          if (axis < 0 || axis > want.rank()) throw GenFail{"argmax axis"};
          o.dims = want.dims;
          o.dims.insert(o.dims.begin() + axis, hidden_dim(n, 1));
        }
        put(g.attrs, "axis", AttrKind::Int, {axis});
        if (mode != 0) put(g.attrs, "keepdims", AttrKind::Bool, {keep ? 1 : 0});
        in = {o};
        break;
      }
      case OpCode::Take: {
        // result dims = idx.dims ++ x.dims[1:]; indices outside x's axis 0 are UB (the prover's inputs
        // avoid or report it).
        const int lead = pick(r_, 0, want.rank());
        TensorType x = want, idx{index_dtype(n, OpCode::Take), {}};
        x.dims.assign(want.dims.begin() + lead, want.dims.end());
        // x's axis 0 may be empty (every index is then out of range: UB wherever the result is read).
        x.dims.insert(x.dims.begin(), hidden_dim(n, 0));
        idx.dims.assign(want.dims.begin(), want.dims.begin() + lead);
        in = {x, idx};
        break;
      }
      case OpCode::Gather: {
        if (want.rank() == 0) throw GenFail{"gather needs rank >= 1"};
        const AttrValue* f = fixed_attr(n, "axis");
        const int axis = f && !f->ints.empty() ? lit_axis(f->ints[0]) : pick(r_, 0, want.rank() - 1);
        if (axis < 0 || axis >= want.rank()) throw GenFail{"gather axis"};
        TensorType x = want, idx = want;
        // x's gathered axis may be empty (every index out of range: UB wherever the result is read).
        // The other axes of x: the index's, or 1 larger; 2..wide_extent larger a third of the time (only 0..1 was
        // drawn, and a rule reading x one element further along such an axis was PROVED).
        for (int d = 0; d < want.rank(); ++d)
          x.dims[d] = d == axis ? hidden_dim(n, 0)
                                : want.dims[d] + (coin(r_, 0.67) ? pick(r_, 0, 1) : pick(r_, 2, wide_extent(o_.max_dim)));
        idx.dtype = index_dtype(n, OpCode::Gather);
        put(g.attrs, "axis", AttrKind::Int, {axis});
        in = {x, idx};
        break;
      }
      case OpCode::ScatterReduce: {
        if (want.rank() == 0) throw GenFail{"scatter_reduce needs rank >= 1"};
        const AttrValue* f = fixed_attr(n, "axis");
        const int axis = f && !f->ints.empty() ? lit_axis(f->ints[0]) : pick(r_, 0, want.rank() - 1);
        if (axis < 0 || axis >= want.rank()) throw GenFail{"scatter_reduce axis"};
        TensorType idx = want, src = want;
        // The scatter axis of idx and src is not shown by the result: a hidden axis (a rule reading only
        // the first 3 entries along it was PROVED when it was at most 3).
        for (int d = 0; d < want.rank(); ++d)
          idx.dims[d] = d == axis ? hidden_dim(n, 0) : pick(r_, 0, static_cast<int>(want.dims[d]));
        idx.dtype = index_dtype(n, OpCode::ScatterReduce);
        src.dims = idx.dims;
        const AttrValue* fr = fixed_attr(n, "reduce");
        const char* const kReduce[] = {"add", "max", "min", "replace"};
        put(g.attrs, "axis", AttrKind::Int, {axis});
        put(g.attrs, "reduce", AttrKind::Word, {}, fr ? fr->text : kReduce[pick(r_, 0, 3)]);
        in = {want, idx, src};
        break;
      }
      case OpCode::ScatterAdd: {
        // XLA scatter configurations. Leading (odd_attrs off): indices [n, 1] (index_vector_dim 1) name
        // a start along axis 0 (inserted), updates [n, w1.. w(r-1)] with windows no larger than x's
        // axes. Otherwise: inserted_window_dims a random subset of x's axes, an index vector of 1-2
        // distinct axes in any order (scatter_dims_to_operand_dims), 0-2 scatter dims, the index vector
        // at any position of the indices or implicit, and the window dims anywhere among the updates'.
        if (want.rank() == 0) throw GenFail{"scatter_add needs rank >= 1"};
        const int R = want.rank();
        const DType idt = index_dtype(n, OpCode::ScatterAdd);
        const int sw = steer_of(n, &NodeSteer::wide);  // 0: an index vector of 3, 1: a scatter dim >= 3
        if (sw == 0 && R < 3) throw GenFail{"an index vector of 3 needs rank >= 3"};
        if (sw != 0 && sw != 1 && !odd_attrs(n)) {
          const int64_t nidx = pick(r_, 0, 3);
          TensorType idx{idt, {nidx, 1}}, upd = want;
          std::vector<int64_t> uwd;
          upd.dims[0] = nidx;
          for (int d = 1; d < R; ++d) {
            upd.dims[d] = pick(r_, 0, static_cast<int>(want.dims[d]));
            uwd.push_back(d);
          }
          put(g.attrs, "update_window_dims", AttrKind::Ints, uwd);
          put(g.attrs, "inserted_window_dims", AttrKind::Ints, {0});
          put(g.attrs, "scatter_dims_to_operand_dims", AttrKind::Ints, {0});
          put(g.attrs, "index_vector_dim", AttrKind::Int, {1});
          in = {want, idx, upd};
          break;
        }
        std::vector<int64_t> iwd, xwin;
        for (int a = 0; a < R; ++a) (coin(r_, 0.4) ? iwd : xwin).push_back(a);
        // The index vector's length: 1-3, or now and then 0 (every start 0; the index operand may then
        // hold no element at all). Scatter dims of 0-2, now and then 3-4 (a rule that swapped the
        // third index entry, and one that dropped updates past the second, were PROVED when the
        // vector was at most 2 long and the scatter dims at most 2: a red team, 2026-12-07).
        const int L = sw == 0 ? 3 : coin(r_, 0.15) ? 0 : pick(r_, 1, std::min(R, 3));
        std::vector<int64_t> sd = random_perm(R);
        if (sw == 0) {  // three axes of size >= 2 (an entry naming a size-1 axis can only index 0)
          std::vector<int64_t> big;
          for (int64_t a : sd)
            if (want.dims[a] >= 2) big.push_back(a);
          if (big.size() < 3) throw GenFail{"an index vector of 3 needs three axes of size >= 2"};
          sd = big;
        }
        sd.resize(L);
        if (sw == 0) {  // the indexed axes inserted (window 1), so each start is read, not clamped away
          for (int64_t a : sd)
            if (std::find(iwd.begin(), iwd.end(), a) == iwd.end()) {
              iwd.insert(std::upper_bound(iwd.begin(), iwd.end(), a), a);
              xwin.erase(std::find(xwin.begin(), xwin.end(), a));
            }
        }
        const int nb = sw == 1 ? pick(r_, 1, 2) : pick(r_, 0, 2);
        std::vector<int64_t> batch;
        for (int b = 0; b < nb; ++b) batch.push_back(coin(r_, 0.2) ? pick(r_, 3, 4) : pick(r_, 0, 2));
        if (sw == 1) batch[pick(r_, 0, nb - 1)] = pick(r_, 3, 4);
        TensorType idx{idt, batch};
        int64_t ivd = nb;  // implicit: the index vector has length 1
        if (L != 1 || coin(r_, 0.7)) {
          ivd = pick(r_, 0, nb);
          idx.dims.insert(idx.dims.begin() + ivd, L);
        }
        const int urank = nb + static_cast<int>(xwin.size());
        std::vector<int64_t> pos(urank);
        std::iota(pos.begin(), pos.end(), 0);
        std::shuffle(pos.begin(), pos.end(), r_);
        std::vector<int64_t> uwd(pos.begin(), pos.begin() + static_cast<long>(xwin.size()));
        std::sort(uwd.begin(), uwd.end());
        TensorType upd{want.dtype, std::vector<int64_t>(urank, 0)};
        size_t wj = 0, bj = 0;
        for (int d = 0; d < urank; ++d) {
          if (std::binary_search(uwd.begin(), uwd.end(), d)) upd.dims[d] = pick(r_, 0, static_cast<int>(want.dims[xwin[wj++]]));
          else upd.dims[d] = batch[bj++];
        }
        put(g.attrs, "update_window_dims", AttrKind::Ints, uwd);
        put(g.attrs, "inserted_window_dims", AttrKind::Ints, iwd);
        put(g.attrs, "scatter_dims_to_operand_dims", AttrKind::Ints, sd);
        put(g.attrs, "index_vector_dim", AttrKind::Int, {ivd});
        in = {want, idx, upd};
        break;
      }
      case OpCode::SegmentReduce: {
        // result [num_segments, x.dims[1:]]; segment ids: a 1-D integer tensor of x's dim 0.
        if (want.rank() == 0) throw GenFail{"segment_reduce needs rank >= 1"};
        TensorType x = want;
        x.dims[0] = hidden_dim(n, 0);
        const AttrValue* fk = fixed_attr(n, "kind");
        put(g.attrs, "kind", AttrKind::Word, {}, fk ? fk->text : coin(r_) ? "sum" : "max");
        put(g.attrs, "num_segments", AttrKind::Int, {want.dims[0]});
        in = {x, TensorType{index_dtype(n, OpCode::SegmentReduce), {x.dims[0]}}};
        break;
      }
      case OpCode::ReduceWindow: {
        // Windows of 1-3, and (odd_attrs) strides 2-3, dilations 2, pads -1..2 on some axes, a fifth of
        // those wider (window_axis): the operand dim is searched for with the result-dim formula of
        // docs/semantics.md.
        TensorType x = want;
        const AttrValue* fk = fixed_attr(n, "kind");
        const char* const kKinds[] = {"sum", "max", "min"};
        put(g.attrs, "kind", AttrKind::Word, {}, fk ? fk->text : kKinds[pick(r_, 0, 2)]);
        x.dims = window_attrs(n, want.dims, /*patches=*/false, odd_attrs(n), g.attrs);
        in = {x};
        break;
      }
      case OpCode::ExtractPatches: {
        // result = the window positions ++ [the product of the window]; windows, strides, dilation and
        // pads as reduce_window's (without base dilation), and a fill value.
        if (want.rank() == 0) throw GenFail{"extract_patches needs rank >= 1"};
        TensorType x = want;
        x.dims.pop_back();
        const bool odd = odd_attrs(n);
        x.dims = window_attrs(n, x.dims, /*patches=*/true, odd, g.attrs);
        int64_t prod = 1;
        for (int64_t w : g.attrs.ints("window")) prod *= w;
        want.dims.back() = prod;
        put_fill(n, want.dtype, odd, g.attrs);
        in = {x};
        break;
      }
      case OpCode::Quantize:
      case OpCode::Dequantize:
      case OpCode::Requantize: {
        // Opaque (a registered kernel's meaning): any operand types. Leading: x of the result's shape, a
        // scalar scale and zero point. Otherwise (odd_attrs) x of another shape half of the time, a scale
        // and zero point of rank 1 (x's axis size where `axis` is written) half of the time, and `axis`
        // written on an x of rank >= 1.
        const bool odd = odd_attrs(n);
        TensorType x = want;
        x.dtype = forced_dtype(n, steered_dtype(*n.operands[0]));
        if (odd && coin(r_)) {
          x.dims.assign(static_cast<size_t>(pick(r_, 0, 3)), 0);
          for (int64_t& d : x.dims) d = draw_dim(0, std::max(1, o_.max_dim));
        }
        int axis = -1;
        if (const AttrValue* fa = fixed_attr(n, "axis")) {
          put(g.attrs, "axis", AttrKind::Int, fa->ints);
          axis = fa->ints.empty() ? -1 : lit_axis(fa->ints[0]);
        } else if (x.rank() > 0 && odd) {
          axis = pick(r_, 0, x.rank() - 1);
          put(g.attrs, "axis", AttrKind::Int, {axis});
        }
        TensorType sc{steered_dtype(*n.operands[1]), {}}, zp{steered_dtype(*n.operands[2]), {}};
        if (odd && coin(r_)) {
          const int64_t len = axis >= 0 && axis < x.rank() ? x.dims[axis] : draw_dim(1, std::max(1, o_.max_dim));
          sc.dims = {len};
          zp.dims = {len};
        }
        in = {x, sc, zp};
        break;
      }
      default:
        if (!has_trait(n.op, OpTrait::Elementwise))
          throw GenFail{"generator: no shape rule for " + std::string(mnemonic(n.op))};
        in.assign(k, want);
    }
    if (in.size() != k) throw GenFail{"operand count"};
    bind_attrs(n, g.attrs);
    // Top-down: the op's own type is known now, so a `: $T` here constrains the operands below it
    // (cast(cast(%x : $T) : $M) : $T makes %x the root's type).
    if (!n.type_capture.empty()) {
      auto [it, fresh] = types_.emplace(n.type_capture, want);
      if (!fresh && it->second != want) throw GenFail{"type capture conflict"};
    }
    for (size_t i = 0; i < k; ++i) g.operands.push_back(gen(*n.operands[i], in[i], /*fixed=*/true));
    // A commutative op is matched in both operand orders, so instances come in both orders too: a C++
    // pattern that only looks at one side is caught.
    if (has_trait(n.op, OpTrait::Commutative) && k == 2 && coin(r_)) std::swap(g.operands[0], g.operands[1]);
    // Operands chosen by captures may have other types than planned: the result type stays `want` for
    // elementwise ops only when the operands agree; the verifier rejects what does not fit.
    g.type = want;
    return add(std::move(g));
  }

  TensorType reshape_operand(const TensorType& want) {
    TensorType o = want;
    const int64_t n = want.num_elements();
    if (coin(r_)) {  // insert or drop size-1 axes
      o.dims.clear();
      for (int64_t d : want.dims)
        if (d != 1 || coin(r_)) o.dims.push_back(d);
      if (coin(r_)) o.dims.insert(o.dims.begin() + pick(r_, 0, static_cast<int>(o.dims.size())), 1);
      return o;
    }
    for (int attempt = 0; attempt < 40; ++attempt) {
      std::vector<int64_t> d;
      const int rank = pick(r_, 0, 3);
      int64_t prod = 1;
      for (int i = 0; i < rank; ++i) d.push_back(pick(r_, 0, std::max(2, o_.max_dim * 2))), prod *= d.back();
      if (prod == n) {
        o.dims = d;
        return o;
      }
    }
    o.dims = {n};
    return o;
  }

  /// keepdims leaves size-1 axes in the result, so `want` may change.
  TensorType reduce_operand(const Node& n, TensorType& want, AttrSet& attrs) {
    const AttrValue* fk = fixed_attr(n, "keepdims");
    // keepdims: absent, written false, or true (a rule matching `keepdims = false` needs it written).
    int mode = steer_of(n, &NodeSteer::keepdims);
    if (fk && !fk->ints.empty()) mode = fk->ints[0] != 0 ? 2 : 1;
    if (mode == kAny) mode = coin(r_, 0.4) ? 0 : coin(r_, 0.33) ? 1 : 2;
    const bool keep = mode == 2;
    TensorType o;
    o.dtype = want.dtype;
    std::vector<int64_t> axes;
    // The axes list: increasing, or (a quarter of the time, or steered) in another order, which the
    // semantics allows and a rule reading `$a` in order (at($a, 0), permute_axes) may mishandle.
    // Steered by axes_order: 1 not increasing (two or more), 2 none, 3 three or more, 5 exactly one
    // (keepdims: at least one); unsteered the
    // count is mostly 1-2, now and then 0 or 3.
    const int order = steer_of(n, &NodeSteer::axes_order);
    const int want_axes = order == 1 ? 2 : order == 5 ? 1 : order >= 3 ? 3 : 0;  // at least this many (keepdims: where the rank allows)
    if (keep) {
      o = want;
      if (order != 2)
        for (int i = 0; i < want.rank(); ++i)
          if (coin(r_) || (axes.size() < static_cast<size_t>(want_axes) &&
                           want.rank() - i <= want_axes - static_cast<int>(axes.size())))
            axes.push_back(i), want.dims[i] = 1, o.dims[i] = hidden_dim(n, 0);
    } else {
      const int extra = order == 1 ? 2 : order == 2 ? 0 : order == 5 ? 1 : order >= 3 ? 3
                        : coin(r_, 0.1) ? 0 : coin(r_, 0.15) ? 3 : pick(r_, 1, 2);
      o.dims = want.dims;
      for (int e = 0; e < extra; ++e) {
        const int at = pick(r_, 0, static_cast<int>(o.dims.size()));
        o.dims.insert(o.dims.begin() + at, hidden_dim(n, 0));
        for (int64_t& a : axes)
          if (a >= at) ++a;
        axes.push_back(at);
      }
      std::sort(axes.begin(), axes.end());
    }
    if (axes.size() >= 2 && (order == 1 || (order == kAny && coin(r_, 0.25)))) std::reverse(axes.begin(), axes.end());
    // Any other order too (axes[0, 2, 1]): a rule wrong only for an order neither increasing nor
    // decreasing was PROVED when orders were only sorted or reversed (a red team, 2026-12-07).
    else if (axes.size() >= 3 && ((order == kAny && coin(r_, 0.2)) || order == 4)) {
      for (int t = 0; t < 8 && (std::is_sorted(axes.begin(), axes.end()) ||
                                std::is_sorted(axes.begin(), axes.end(), std::greater<>())); ++t)
        std::shuffle(axes.begin(), axes.end(), r_);
      if (std::is_sorted(axes.begin(), axes.end()) || std::is_sorted(axes.begin(), axes.end(), std::greater<>()))
        std::swap(axes[0], axes[1]);  // [a1, a0, a2, ...]: neither
    }
    if (const AttrValue* fa = fixed_attr(n, "axes")) axes = fa->ints;
    put(attrs, "axes", AttrKind::Ints, axes);
    if (mode != 0) put(attrs, "keepdims", AttrKind::Bool, {keep ? 1 : 0});
    put_accum(n, want.dtype, attrs);
    return o;
  }

  /// accum: as the rule fixes it, else steered (-1 none, else that dtype), else none half of the time
  /// and otherwise any dtype the verifier accepts for `elem` (the generator varies it: a rule that is
  /// wrong only under some accum is found).
  void put_accum(const Node& n, DType elem, AttrSet& attrs) {
    if (const AttrValue* fa = fixed_attr(n, "accum")) {
      put(attrs, "accum", AttrKind::DType, fa->ints);
      return;
    }
    int acc = steer_of(n, &NodeSteer::accum);
    if (acc == kAny) {
      std::vector<int> ok;
      for (int d = 0; d < kNumDTypes; ++d)
        if (accum_accepted(elem, static_cast<DType>(d))) ok.push_back(d);
      acc = ok.empty() || coin(r_) ? -1 : ok[pick(r_, 0, static_cast<int>(ok.size()) - 1)];
    }
    if (acc >= 0) put(attrs, "accum", AttrKind::DType, {acc});
  }

  /// A permutation of `r` axes: steered to the identity (0), one that is not (1), one that does not
  /// commute with the last permutation of `r` axes drawn in this instance (2; the first of a pair just
  /// avoids the identity), or one of order k (10 + k). Random otherwise, and where the rank makes the
  /// steer impossible.
  std::vector<int64_t> steered_perm(int r, int mode) {
    std::vector<int64_t> id(r);
    std::iota(id.begin(), id.end(), 0);
    if (mode == 0) return id;
    if (mode >= 10) {  // 10 + k: a permutation of order k (coverage's perm-order classes)
      const int want = mode - 10;
      for (int t = 0; t < 400; ++t) {
        std::vector<int64_t> p = random_perm(r);
        std::vector<bool> seen(r, false);
        int order = 1;
        for (int s0 = 0; s0 < r; ++s0) {
          int len = 0;
          for (int j = s0; !seen[j]; j = static_cast<int>(p[j])) seen[j] = true, ++len;
          if (len > 0) order = std::lcm(order, len);
        }
        if (order == want) return p;
      }
      mode = 1;
    }
    if (mode == 2)
      for (auto q = perms_.rbegin(); q != perms_.rend(); ++q)
        if (static_cast<int>(q->size()) == r) {
          for (int t = 0; t < 60; ++t) {
            std::vector<int64_t> p = random_perm(r);
            if (!commute(p, *q)) return p;
          }
          break;
        }
    if ((mode == 1 || mode == 2) && r >= 2)
      for (int t = 0; t < 60; ++t) {
        std::vector<int64_t> p = random_perm(r);
        if (p != id) return p;
      }
    return random_perm(r);
  }

  std::vector<TensorType> dot_operands(const Node& n, const TensorType& want, AttrSet& attrs) {
    // want = batch ++ lhs_free ++ rhs_free. The leading layout: lhs = batch ++ free ++ contract,
    // rhs = batch ++ contract ++ free. Placed (half of the time unsteered; steered by NodeSteer::dot to
    // a DotLayout class): each operand's batch and contracting axes at random positions of their own
    // (the free axes take the rest, in increasing order), so the two sides' lists differ, are out of
    // order, and free axes come before or between the others: a rule that ties the lhs's list to the
    // rhs's, or assumes an order, fails on such instances (docs/verification.md, "The generator").
    const int r = want.rank();
    const int steer = steer_of(n, &NodeSteer::dot);
    int b = pick(r_, 0, r), lf = pick(r_, 0, r - b), rf = r - b - lf;
    int c = coin(r_, 0.15) ? 3 : pick(r_, 0, 2);  // three contracting axes now and then
    // Steered: the counts a class needs (b + lf + rf = r throughout).
    auto split_free = [&] { lf = pick(r_, 0, r - b), rf = r - b - lf; };
    if (steer == kDotBatchApart && b == 0 && r >= 1) b = 1, split_free();
    if (steer == kDotBatchApart && c == 0 && lf + rf == 0) c = 1;  // an axis to move the batch axis past
    if (steer == kDotBatchOrder && b < 2 && r >= 2) b = pick(r_, 2, r), split_free();
    if (steer == kDotContractApart && c == 0) c = pick(r_, 1, 2);
    if (steer == kDotContractApart && r == 0) c = 2;  // one contracting axis alone is at 0 on both sides
    if (steer == kDotContractOrder) c = 2;
    if (steer == kDotInterleaved && r >= 1) {
      if (lf + rf == 0) b = r - 1, lf = 1, rf = 0;  // a free axis
      if (b + c == 0) c = 1;                        // and an axis to place among the free ones
    }
    // A transposed operand steered to a permutation of order 5 or 6 needs 5 axes: every free dim on its
    // side and two contracting dims (else the class is reached only by chance).
    for (int side = 0; side < 2; ++side) {
      const Node& o = *n.operands[side];
      if (o.kind == Node::Kind::Op && o.op == OpCode::Transpose && steer_of(o, &NodeSteer::perm) >= 15)
        b = 0, c = 2, lf = side == 0 ? r : 0, rf = r - lf;
    }
    std::vector<int64_t> cd;
    for (int i = 0; i < c; ++i) cd.push_back(hidden_dim(n, 0));
    // Positions of one operand's batch and contracting axes (leading, or placed at random); its free
    // axes fill the other positions in increasing order.
    auto layout = [&](int nfree, bool rhs, bool placed, std::vector<int64_t>& bpos, std::vector<int64_t>& cpos) {
      const int n_ax = b + nfree + c;
      std::vector<int64_t> order(n_ax);
      std::iota(order.begin(), order.end(), 0);
      if (placed) std::shuffle(order.begin(), order.end(), r_);
      bpos.assign(order.begin(), order.begin() + b);
      if (placed) {
        cpos.assign(order.begin() + b, order.begin() + b + c);
      } else {
        cpos.clear();
        for (int i = 0; i < c; ++i) cpos.push_back(rhs ? b + i : b + nfree + i);
      }
    };
    auto build = [&](int nfree, int free_first, const std::vector<int64_t>& bpos, const std::vector<int64_t>& cpos) {
      TensorType t;
      t.dtype = want.dtype;
      const int n_ax = b + nfree + c;
      t.dims.assign(n_ax, -1);
      for (int i = 0; i < b; ++i) t.dims[bpos[i]] = want.dims[i];
      for (int i = 0; i < c; ++i) t.dims[cpos[i]] = cd[i];
      int f = 0;
      for (int a = 0; a < n_ax; ++a)
        if (t.dims[a] < 0) t.dims[a] = want.dims[free_first + f++];
      return t;
    };
    const bool placed = steer != kAny ? steer != kDotLeading : coin(r_);
    std::vector<int64_t> bl, br, cl, cr;
    for (int t = 0;; ++t) {
      layout(lf, false, placed, bl, cl);
      layout(rf, true, placed, br, cr);
      if (steer == kAny || steer == kDotLeading || t >= 40 || dot_layout_has(steer, b + lf + c, b + rf + c, bl, br, cl, cr))
        break;
    }
    TensorType l = build(lf, b, bl, cl), h = build(rf, b + lf, br, cr);
    // Batch lists are written when there are batch dims, and also empty when the node names them (a
    // rule that matches `batch_lhs = $b` fires at rank 0 only on a dot that writes batch_lhs[]).
    bool names_batch = false;
    for (const auto& a : n.attrs) names_batch = names_batch || a.name == "batch_lhs" || a.name == "batch_rhs";
    if (b || names_batch) put(attrs, "batch_lhs", AttrKind::Ints, bl), put(attrs, "batch_rhs", AttrKind::Ints, br);
    put(attrs, "contract_lhs", AttrKind::Ints, cl);
    put(attrs, "contract_rhs", AttrKind::Ints, cr);
    put_accum(n, want.dtype, attrs);
    return {l, h};
  }

  const InstanceOptions& o_;
  Rng& r_;
  std::map<std::string, int> captures_;
  std::map<std::string, TensorType> types_;
  std::map<std::string, AttrValue> attrs_;
  std::map<std::string, Tensor> lits_;             ///< const($c) literals built so far
  std::map<const Node*, std::vector<int64_t>> start_room_;  ///< dynamic_slice start nodes: dim - size per axis
  std::deque<AttrValue> scratch_;
  std::map<const Node*, int> idx_;                 ///< pre-order numbers
  std::map<std::string, const Node*> as_defs_;     ///< `as %r` name -> the op node it names
  std::set<const Node*> building_;                 ///< nodes under construction (cycle guard)
  std::vector<std::vector<int64_t>> perms_;        ///< transpose perms drawn so far (outermost first)
  /// The last window (starts, dims) drawn for a slice of each captured value.
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>> last_slice_;
  std::set<const Node*> round_hint_;   ///< inner casts of a chain whose outer cast rounds: they round too
  std::set<const Node*> hidden_done_;  ///< nodes that got their one wide hidden axis (hidden_dim)
};

}  // namespace

bool dot_layout_has(int kind, int lhs_rank, int rhs_rank, const std::vector<int64_t>& bl, const std::vector<int64_t>& br,
                    const std::vector<int64_t>& cl, const std::vector<int64_t>& cr) {
  auto run = [](const std::vector<int64_t>& v, int64_t from) {  // v == from, from + 1, ...
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != from + static_cast<int64_t>(i)) return false;
    return true;
  };
  auto set_is_run = [](std::vector<int64_t> v, int64_t from) {  // the set of v == {from, from + 1, ...}
    std::sort(v.begin(), v.end());
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != from + static_cast<int64_t>(i)) return false;
    return true;
  };
  const int64_t nb = static_cast<int64_t>(bl.size()), nc = static_cast<int64_t>(cl.size());
  switch (kind) {
    case kDotBatchApart: return bl != br;
    case kDotContractApart: return cl != cr;
    case kDotContractOrder: return !std::is_sorted(cl.begin(), cl.end()) || !std::is_sorted(cr.begin(), cr.end());
    case kDotBatchOrder: return !std::is_sorted(bl.begin(), bl.end()) || !std::is_sorted(br.begin(), br.end());
    case kDotInterleaved:
      return !set_is_run(bl, 0) || !set_is_run(cl, lhs_rank - nc) || !set_is_run(br, 0) || !set_is_run(cr, nb);
    case kDotLeading:
      return run(bl, 0) && run(br, 0) && run(cl, lhs_rank - nc) && run(cr, nb) && rhs_rank >= nb + nc;
    default: return false;
  }
}

std::vector<const Node*> preorder(const Node& root) {
  std::vector<const Node*> out;
  number(root, out);
  return out;
}

namespace {
bool verifies(OpCode op, const std::vector<TensorType>& operands, const TensorType& result, const AttrSet& attrs) {
  Program p;
  const BodyId b = p.add_body("main", false);
  std::vector<ValueId> ops;
  for (size_t i = 0; i < operands.size(); ++i) ops.push_back(p.add_param(b, p.intern_type(operands[i]), "x" + std::to_string(i)));
  const TypeId t = p.intern_type(result);
  const InstId inst = p.create_inst(b, op, ops, p.intern_attrs(attrs), std::span<const TypeId>(&t, 1));
  p.body(b).result_types.push_back(t);
  const ValueId r = p.result(inst, 0);
  p.set_return(b, std::span<const ValueId>(&r, 1));
  return verify_program(p).empty();
}
AttrSet attrs_of(std::initializer_list<std::pair<const char*, std::vector<int64_t>>> l, AttrKind k = AttrKind::Ints) {
  AttrSet s;
  for (const auto& [name, ints] : l) {
    AttrValue v;
    v.kind = std::string_view(name) == "axis" ? AttrKind::Int : k;
    v.ints = ints;
    s.attrs.push_back(Attr{name, v});
  }
  return s;
}
/// One instruction of `op` whose main operand has dtype `d`, rank 1 of size 1 (rank 0 for elementwise
/// ops), with attributes that keep the shape.
bool accepts(OpCode op, DType d) {
  const TensorType s{d, {}}, v{d, {1}};
  switch (op) {
    case OpCode::Compare: {
      AttrSet a;
      AttrValue dir;
      dir.kind = AttrKind::Word, dir.text = "eq";
      a.attrs.push_back(Attr{"dir", dir});
      return verifies(op, {s, s}, TensorType{DType::I1, {}}, a);
    }
    case OpCode::Select: return verifies(op, {TensorType{DType::I1, {}}, s, s}, s, {});
    case OpCode::Cast: return verifies(op, {s}, s, {});
    case OpCode::Transpose: return verifies(op, {v}, v, attrs_of({{"perm", {0}}}));
    case OpCode::Reshape: return verifies(op, {v}, v, {});
    case OpCode::BroadcastTo: return verifies(op, {v}, v, {});
    case OpCode::Slice: return verifies(op, {v}, v, attrs_of({{"starts", {0}}}));
    case OpCode::Pad: return verifies(op, {v}, v, attrs_of({{"low", {0}}, {"high", {0}}}));
    case OpCode::Concat: return verifies(op, {v}, v, attrs_of({{"axis", {0}}}));
    case OpCode::Tile: return verifies(op, {v}, v, attrs_of({{"repeats", {1}}}));
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin: return verifies(op, {v}, s, attrs_of({{"axes", {0}}}));
    case OpCode::DotGeneral: return verifies(op, {v, v}, s, attrs_of({{"contract_lhs", {0}}, {"contract_rhs", {0}}}));
    case OpCode::DynamicSlice: return verifies(op, {v, TensorType{DType::SI32, {1}}}, v, {});
    case OpCode::DynamicUpdateSlice: return verifies(op, {v, v, TensorType{DType::SI32, {1}}}, v, {});
    case OpCode::Iota: return verifies(op, {}, v, attrs_of({{"axis", {0}}}));
    case OpCode::Argmax: return verifies(op, {v}, TensorType{DType::SI32, {}}, attrs_of({{"axis", {0}}}));
    case OpCode::Take: return verifies(op, {v, TensorType{DType::SI32, {}}}, s, {});
    case OpCode::Gather: return verifies(op, {v, TensorType{DType::SI32, {1}}}, v, attrs_of({{"axis", {0}}}));
    case OpCode::ScatterAdd: {
      AttrSet a = attrs_of({{"update_window_dims", {}}, {"inserted_window_dims", {0}}, {"scatter_dims_to_operand_dims", {0}}});
      AttrValue ivd;
      ivd.kind = AttrKind::Int, ivd.ints = {1};
      a.attrs.push_back(Attr{"index_vector_dim", ivd});
      return verifies(op, {v, TensorType{DType::SI32, {1, 1}}, v}, v, a);
    }
    case OpCode::SegmentReduce:
    case OpCode::ReduceWindow: {
      AttrSet a = op == OpCode::ReduceWindow ? attrs_of({{"window", {1}}}) : AttrSet{};
      AttrValue kind;
      kind.kind = AttrKind::Word, kind.text = "sum";
      a.attrs.push_back(Attr{"kind", kind});
      if (op == OpCode::ReduceWindow) return verifies(op, {v}, v, a);
      AttrValue num;
      num.kind = AttrKind::Int, num.ints = {1};
      a.attrs.push_back(Attr{"num_segments", num});
      return verifies(op, {v, TensorType{DType::SI32, {1}}}, v, a);
    }
    case OpCode::ExtractPatches: return verifies(op, {v}, TensorType{d, {1, 1}}, attrs_of({{"window", {1}}}));
    case OpCode::ScatterReduce: {
      // reduce[replace] takes every dtype (add / max / min only numbers: the generator draws all four).
      AttrSet a = attrs_of({{"axis", {0}}});
      AttrValue red;
      red.kind = AttrKind::Word, red.text = "replace";
      a.attrs.push_back(Attr{"reduce", red});
      return verifies(op, {v, TensorType{DType::SI32, {1}}, v}, v, a);
    }
    default: break;
  }
  if (!has_trait(op, OpTrait::Elementwise)) return true;  // no generator shape rule: never instantiated
  const int k = op_info(op).min_operands;
  return verifies(op, std::vector<TensorType>(k, s), s, {});
}
}  // namespace

bool op_accepts_dtype(OpCode op, DType d) {
  static const auto table = [] {
    std::vector<std::array<bool, kNumDTypes>> t(kNumOps);
    for (int o = 0; o < kNumOps; ++o)
      for (int d = 0; d < kNumDTypes; ++d) t[o][d] = accepts(static_cast<OpCode>(o), static_cast<DType>(d));
    return t;
  }();
  return table[static_cast<int>(op)][static_cast<int>(d)];
}

bool index_dtype_accepted(OpCode op, DType d) {
  static const auto table = [] {
    std::vector<std::array<bool, kNumDTypes>> t(kNumOps);
    for (int o = 0; o < kNumOps; ++o)
      for (int e = 0; e < kNumDTypes; ++e) {
        const OpCode op = static_cast<OpCode>(o);
        const DType ix = static_cast<DType>(e);
        const TensorType v{DType::F32, {1}};
        AttrSet a;
        auto word = [&](const char* name, const char* w) {
          AttrValue x;
          x.kind = AttrKind::Word, x.text = w;
          a.attrs.push_back(Attr{name, x});
        };
        auto one = [&](const char* name, int64_t k, AttrKind kind = AttrKind::Int) {
          AttrValue x;
          x.kind = kind, x.ints = {k};
          a.attrs.push_back(Attr{name, x});
        };
        switch (op) {
          case OpCode::Take: t[o][e] = verifies(op, {v, TensorType{ix, {}}}, TensorType{DType::F32, {}}, {}); break;
          case OpCode::Gather: one("axis", 0), t[o][e] = verifies(op, {v, TensorType{ix, {1}}}, v, a); break;
          case OpCode::ScatterReduce:
            one("axis", 0), word("reduce", "add"), t[o][e] = verifies(op, {v, TensorType{ix, {1}}, v}, v, a);
            break;
          case OpCode::ScatterAdd: {
            AttrValue none;
            none.kind = AttrKind::Ints;
            a.attrs.push_back(Attr{"update_window_dims", none});
            one("inserted_window_dims", 0, AttrKind::Ints), one("scatter_dims_to_operand_dims", 0, AttrKind::Ints);
            one("index_vector_dim", 1);
            t[o][e] = verifies(op, {v, TensorType{ix, {1, 1}}, v}, v, a);
            break;
          }
          case OpCode::SegmentReduce:
            word("kind", "sum"), one("num_segments", 1), t[o][e] = verifies(op, {v, TensorType{ix, {1}}}, v, a);
            break;
          default: t[o][e] = false;
        }
      }
    return t;
  }();
  return table[static_cast<int>(op)][static_cast<int>(d)];
}

bool accum_accepted(DType elem, DType acc) {
  static const auto table = [] {
    std::array<std::array<bool, kNumDTypes>, kNumDTypes> t{};
    for (int e = 0; e < kNumDTypes; ++e)
      for (int a = 0; a < kNumDTypes; ++a) {
        const TensorType v{static_cast<DType>(e), {1}}, s{static_cast<DType>(e), {}};
        AttrSet attrs = attrs_of({{"axes", {0}}});
        AttrValue av;
        av.kind = AttrKind::DType, av.ints = {a};
        attrs.attrs.push_back(Attr{"accum", av});
        t[e][a] = verifies(OpCode::ReduceSum, {v}, s, attrs);
      }
    return t;
  }();
  return table[static_cast<int>(elem)][static_cast<int>(acc)];
}

bool generator_supports(OpCode op) {
  switch (op) {
    case OpCode::Compare: case OpCode::Select: case OpCode::Cast: case OpCode::Transpose:
    case OpCode::Reshape: case OpCode::BroadcastTo: case OpCode::Slice: case OpCode::Pad:
    case OpCode::Concat: case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
    case OpCode::DotGeneral: case OpCode::Tile: case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice:
    case OpCode::Iota: case OpCode::Argmax: case OpCode::Take: case OpCode::Gather: case OpCode::ScatterReduce:
    case OpCode::ScatterAdd: case OpCode::SegmentReduce: case OpCode::ReduceWindow: case OpCode::ExtractPatches:
    case OpCode::Quantize: case OpCode::Dequantize: case OpCode::Requantize:
      return true;
    default:
      return has_trait(op, OpTrait::Elementwise);
  }
}

const std::vector<OpCode>& op_siblings(OpCode op) {
  static const std::vector<std::vector<OpCode>> table = [] {
    constexpr uint32_t kExcluded = OpTrait::Opaque | OpTrait::Effect | OpTrait::Regions | OpTrait::Terminator;
    auto same_schema = [](OpCode a, OpCode b) {
      const auto x = op_attr_schema(a), y = op_attr_schema(b);
      if (x.size() != y.size()) return false;
      for (size_t k = 0; k < x.size(); ++k)
        if (x[k].name != y[k].name || x[k].kind != y[k].kind || x[k].required != y[k].required || x[k].role != y[k].role)
          return false;
      return true;
    };
    std::vector<std::vector<OpCode>> t(kNumOps);
    for (int a = 0; a < kNumOps; ++a)
      for (int b = 0; b < kNumOps; ++b) {
        const OpCode x = static_cast<OpCode>(a), y = static_cast<OpCode>(b);
        const OpInfo &ix = op_info(x), &iy = op_info(y);
        if (a == b || x == OpCode::Constant || y == OpCode::Constant || (ix.traits & kExcluded) || (iy.traits & kExcluded) ||
            !generator_supports(x) || !generator_supports(y))
          continue;
        if (ix.min_operands != iy.min_operands || ix.max_operands != iy.max_operands || ix.num_results != iy.num_results ||
            has_trait(x, OpTrait::Elementwise) != has_trait(y, OpTrait::Elementwise) || !same_schema(x, y))
          continue;
        t[a].push_back(y);
      }
    return t;
  }();
  return table[static_cast<int>(op)];
}

bool scatter_leading(const AttrSet& a) {
  return a.ints("inserted_window_dims") == std::vector<int64_t>{0} &&
         a.ints("scatter_dims_to_operand_dims") == std::vector<int64_t>{0} && a.int_or("index_vector_dim", -1) == 1;
}

Instance make_instance(const Node& source, const InstanceOptions& opts, std::mt19937_64& rng) {
  Instance out;
  Generator g(source, opts, rng);
  int root = -1;
  try {
    root = g.root(source);
  } catch (const GenFail& f) {
    out.why_not = f.why;
    return out;
  }
  auto p = std::make_unique<Program>();
  const BodyId b = p->add_body("main", false);
  p->body(b).fastmath.bits = opts.fastmath;  // the rule's assumptions: the function promises them
  std::vector<ValueId> ids(g.vals.size(), kNone);
  int params = 0;
  for (size_t i = 0; i < g.vals.size(); ++i) {
    const GVal& v = g.vals[i];
    switch (v.kind) {
      case GVal::Kind::Param:
        ids[i] = p->add_param(b, p->intern_type(v.type), "x" + std::to_string(params++));
        break;
      case GVal::Kind::Literal: ids[i] = p->literal_value(p->intern_literal(v.lit)); break;
      case GVal::Kind::Op: {
        std::vector<ValueId> ops;
        for (int o : v.operands) ops.push_back(ids[o]);
        const TypeId t = p->intern_type(v.type);
        const InstId inst = p->create_inst(b, v.op, ops, p->intern_attrs(v.attrs), std::span<const TypeId>(&t, 1));
        ids[i] = p->result(inst, 0);
        break;
      }
    }
  }
  std::vector<ValueId> results = {ids[root]};
  // ExtraUse: an inner op's value is also returned, so it has a second use.
  if (opts.perturb == Perturb::ExtraUse)
    for (size_t i = 0; i < g.vals.size(); ++i)
      if (static_cast<int>(i) != root && g.vals[i].kind == GVal::Kind::Op) {
        results.push_back(ids[i]);
        out.perturbed = true;
        break;
      }
  // leaf_variety: now and then the root, or a capture's value, is also returned (a second use).
  // (Not under nsz: a second result that is an inner zero of the source asks the checker for the
  // source's zero-sign choices across results, which it leaves UNKNOWN.)
  if (opts.leaf_variety && opts.perturb == Perturb::None && !(opts.fastmath & rules::kNSZ)) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    if (u < 0.08) {
      results.push_back(ids[root]);
    } else if (u < 0.16) {
      std::vector<int> leaves;
      for (const auto& [name, id] : g.capture_ids())
        if (id != root) leaves.push_back(id);
      if (!leaves.empty()) results.push_back(ids[leaves[pick(rng, 0, static_cast<int>(leaves.size()) - 1)]]);
    }
  }
  for (ValueId v : results) p->body(b).result_types.push_back(p->type_id(v));
  p->set_return(b, results);
  if (auto d = verify_program(*p); !d.empty()) {
    out.why_not = "ill-typed: " + d[0].message;
    return out;
  }
  out.perturbed = out.perturbed || g.perturbed;
  out.varied_leaves = g.varied;
  out.node_values.assign(g.node_val.size(), kNone);
  for (size_t i = 0; i < g.node_val.size(); ++i)
    if (g.node_val[i] >= 0) out.node_values[i] = ids[g.node_val[i]];
  out.shape = to_string(p->type_of(ids[root]));
  out.dtype = dtype_name(p->type_of(ids[root]).dtype);
  out.program = std::move(p);
  return out;
}

}  // namespace ptir::prove
