// replay_rewrite: extract the old and new cones of a rewrite over shared boundary values, evaluate both.
#include "rewriter/replay.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cmath>
#include <boost/container/flat_map.hpp>
#include <boost/container/flat_set.hpp>
#include <boost/container/small_vector.hpp>

#include "ir/text.h"
#include "rewriter/describe.h"

namespace ptir {
namespace {

// A replay's bookkeeping is a few dozen ids (its cones are bounded by ReplayOptions), built for each of
// thousands of rewrites: sorted vectors with their first entries inline allocate nothing for a small
// rewrite, where node-based hash tables allocated per entry (a sixth of a checked pipeline's
// allocations).
template <class K, class V, size_t N = 16>
using SmallMap = boost::container::flat_map<K, V, std::less<K>, boost::container::small_vector<std::pair<K, V>, N>>;
template <class K, size_t N = 16>
using SmallSet = boost::container::flat_set<K, std::less<K>, boost::container::small_vector<K, N>>;

/// The edge values of a dtype, as bit patterns, most telling first.
std::vector<uint64_t> edge_values(DType t) {
  if (t == DType::I1) return {0, 1};
  if (is_float(t)) {
    const DTypeInfo& d = dtype_info(t);
    uint64_t s = sign_mask(t), inf = float_inf(t, false);
    uint64_t max_sub = (uint64_t{1} << d.frac_bits) - 1;
    return {s,                 // -0.0
            0,                 // +0.0
            canonical_nan(t),  // NaN
            inf,               // +inf
            inf | s,           // -inf
            double_to_float(t, 1.0),
            double_to_float(t, -1.0),
            1,                 // smallest subnormal
            max_sub | s,       // largest subnormal, negative
            inf - 1,           // largest finite
            (inf - 1) | s};
  }
  uint64_t mask = bits_mask(t);
  uint64_t min = static_cast<uint64_t>(int_min(t)) & mask, max = int_max_bits(t);
  return {0, 1, mask /* -1, or MAX for unsigned */, min, max, 2};
}

enum View : int { kOld = 0, kNew = 1 };
constexpr uint8_t kInserted = 1, kErased = 2, kModified = 4;

std::string value_label(const Program& p, ValueId v) {
  std::string_view n = p.name(v);
  return "%" + (n.empty() ? "v" + std::to_string(v) : std::string(n));
}

std::string body_label(const Program& p, BodyId b) {
  return (p.body(b).is_region ? "^" : "@") + p.body(b).name;
}

/// Work of evaluating instruction i: elements computed; a dot counts its multiply-adds.
int64_t work_of(const Program& p, InstId i) {
  int64_t out = 0;
  for (uint32_t k = 0; k < p.num_results(i); ++k) out += p.type_of(p.result(i, k)).num_elements();
  int64_t in = 0;
  for (uint32_t k = 0; k < p.num_operands(i); ++k) in = std::max(in, p.type_of(p.operand(i, k)).num_elements());
  if (p.op(i) == OpCode::DotGeneral && p.num_operands(i) == 2 && out > 0) {
    double a = double(p.type_of(p.operand(i, 0)).num_elements()), b = double(p.type_of(p.operand(i, 1)).num_elements());
    return int64_t(double(out) * std::sqrt(a * b / double(out))) + 1;
  }
  return std::max(out, in) + 1;
}

/// Evaluates `op` with attributes `attrs` on `args` in a one-instruction program of its own (for an
/// instruction's old attributes, and for windowed replays whose types are not the program's).
RunResult eval_detached(OpCode op, const AttrSet& attrs, std::span<const Tensor> args,
                        std::span<const TensorType> result_types, const InterpOptions& o) {
  Program q;
  BodyId b = q.add_body("replay", false);
  std::vector<ValueId> params;
  for (const Tensor& t : args) params.push_back(q.add_param(b, q.intern_type(t.type), ""));
  std::vector<TypeId> rt;
  for (const TensorType& t : result_types) rt.push_back(q.intern_type(t));
  InstId i = q.create_inst(b, op, params, q.intern_attrs(attrs), rt);
  return eval_inst(q, i, args, o);
}

/// Literals up to this many elements are printed in full in a failure report; larger ones are summarized.
constexpr int64_t kFullLiteral = 64;

std::string short_literal(const Tensor& t) {
  if (t.size() <= kFullLiteral) return print_literal(t);
  std::string s = to_string(t.type) + " (" + std::to_string(t.size()) + " elements; first 8: ";
  for (int64_t k = 0; k < 8; ++k) s += (k ? ", " : "") + format_elem(t.dtype(), t.bits(k));
  return s + ", ...)";
}

/// Equal elements, except that a zero may have either sign in either tensor: what a value computed under
/// fastmath[nsz] may differ by (the sign of a zero result of a governed op is unspecified).
bool equal_up_to_zero_signs(const Tensor& a, const Tensor& b) {
  if (a.type != b.type || !is_float(a.dtype())) return false;
  const uint64_t sign = sign_mask(a.dtype());
  for (int64_t k = 0, n = a.size(); k < n; ++k) {
    const uint64_t x = a.bits(k), y = b.bits(k);
    if (x == y || ((x & ~sign) == 0 && (y & ~sign) == 0)) continue;  // equal, or two zeros
    if (float_is_nan(a.dtype(), x) && float_is_nan(a.dtype(), y)) continue;  // results_equal's rule for NaNs
    return false;
  }
  return true;
}

Tensor window_of(const Tensor& t, int64_t start, int64_t w) {
  Tensor out(TensorType{t.dtype(), {w}});
  for (int64_t k = 0; k < w; ++k) out.set_bits(k, t.bits(start + k));
  return out;
}

class Replay {
 public:
  Replay(const Program& p, const RewriteDelta& d, const ReplayOptions& o, ReplayInputCache* cache)
      : p_(p), d_(d), o_(o), cache_(cache) {
    for (InstId i : d.inserted) flags_[i] |= kInserted;
    for (InstId i : d.erased) flags_[i] |= kErased;
    for (const InstSnapshot& s : d.modified) {
      flags_[s.inst] |= kModified;
      snap_.emplace(s.inst, &s);
    }
  }

  ReplayReport run(std::string_view pattern, InstId root) {
    collect_pairs();
    if (pairs_.empty()) return std::move(rep_);
    if (identical_twins()) {
      rep_.structural = true;
      rep_.compared = static_cast<int>(pairs_.size());
      return std::move(rep_);
    }
    // Fast-math (docs/semantics.md): nnan/ninf make a NaN/inf of a governed op UB, which the interpreter
    // reports (a trial whose old side is UB is skipped below). reassoc lets any association of an add/mul
    // tree stand, whose rounding a bit-exact replay cannot judge: not replayed. nsz leaves the sign of a
    // zero result unspecified: compared values may differ in zero signs.
    const FastMath fm = root != kNone ? p_.fastmath_of(p_.inst(root).body) : FastMath{};
    if (fm.has(FastMathFlag::Reassoc)) {
      rep_.skipped = "the rewrite is in a body with fastmath[reassoc], where any association of an add or mul "
                     "tree is allowed: a bit-exact replay does not apply";
      return std::move(rep_);
    }
    const bool nsz = fm.has(FastMathFlag::NSZ);
    // A boundary value computed from a value the other side reads would be fed an input the program can
    // never produce: such values are replayed instead, until none is left.
    for (int round = 0; round < 4; ++round) {
      build_cones();
      if (!force_more()) break;
    }
    if (!rep_.skipped.empty()) return std::move(rep_);
    decide_window();
    int randoms = o_.random_trials, edges = o_.edge_trials;
    int64_t per_trial = 1;
    for (int v = 0; v < 2; ++v)
      for (InstId i : cone_[v]) per_trial += window_ ? o_.window : work_of(p_, i);
    while (randoms + edges > 2 && per_trial * (randoms + edges) > o_.max_work) {
      if (randoms > 1) --randoms;
      else --edges;
    }
    // The trials are a function of the cones, the boundary types and these options: a replay identical
    // to one that already passed passes again, so it is not run twice.
    thread_local std::string key;  // reused: a key is copied only when it is kept
    key.clear();
    const bool memo = cache_ && memo_key(key, randoms, edges, nsz);
    if (memo && (cache_->memo ? cache_->memo->contains(key) : cache_->passed.count(key) != 0)) {
      rep_.memoized = true;
      return std::move(rep_);
    }
    for (int t = 0; t < randoms + edges; ++t) {
      make_inputs(t, t < randoms, t < randoms ? t : t - randoms);
      if (!evaluate(kOld)) continue;  // UB (or no kernel, or a bound) before: nothing to keep
      bool ran = evaluate(kNew);
      for (size_t k = 0; k < pairs_.size(); ++k) {
        const Tensor* a = value_tensor(kOld, pairs_[k].first);
        const Tensor* b = ran ? value_tensor(kNew, pairs_[k].second) : nullptr;
        if (a && b && (*a == *b || results_equal(*a, *b))) continue;  // equal bits are equal results
        if (a && b && nsz && equal_up_to_zero_signs(*a, *b)) continue;
        rep_.ok = false;
        rep_.message = describe_failure(pattern, root, k, a, b);
        return std::move(rep_);
      }
    }
    if (memo && cache_->memo) {
      cache_->memo->insert(key);
    } else if (memo) {
      if (cache_->passed.size() >= ReplayInputCache::kMaxPassed) cache_->passed.clear();  // start over
      cache_->passed.emplace(key);
    }
    return std::move(rep_);
  }

 private:
  uint8_t flags(InstId i) const {
    auto it = flags_.find(i);
    return it == flags_.end() ? 0 : it->second;
  }
  const InstSnapshot* snapshot(InstId i) const {
    auto it = snap_.find(i);
    return it == snap_.end() ? nullptr : it->second;
  }
  /// Whether value v exists in the program before (kOld) or after (kNew) the rewrite.
  bool exists(ValueId v, View view) const {
    InstId d = p_.def_inst(v);
    if (d == kNone) return true;
    return !(flags(d) & (view == kOld ? kInserted : kErased));
  }
  ValueId operand(InstId i, uint32_t k, View view) const {
    if (view == kOld)
      if (const InstSnapshot* s = snapshot(i)) return s->operands[k];
    return p_.operand(i, k);
  }

  /// Appends to `k` everything the trials of this replay depend on, by value (so that a key means the
  /// same in every program: a ReplayMemo may serve many runs): the options (with the interpreter's
  /// bound and budget; never memoized under a time budget, chosen zero signs or contractions), the
  /// boundary values'
  /// types (their inputs are a function of the trial, the position and the type), and for each side the
  /// replayed instructions in order, each with its op, attributes (the snapshot's on the old side), the
  /// fast-math flags of its body, its result types and where each operand comes from (a boundary value,
  /// a literal with its type, form and bytes, a result earlier in the replay), then the compared pairs
  /// in the same terms. False (nothing memoized) when an instruction reads more than its operands:
  /// regions (the bodies may change between rewrites), opaque ops (kernels) and effects; and when the
  /// key would pass kMaxKeyBytes (large literals: such a replay runs every time).
  static constexpr size_t kMaxKeyBytes = 16384;
  bool memo_key(std::string& k, int randoms, int edges, bool nsz) const {
    auto put = [&](uint64_t x) { k.append(reinterpret_cast<const char*>(&x), sizeof x); };
    auto put_bytes = [&](const void* d, size_t n) {
      put(n);
      k.append(static_cast<const char*>(d), n);
    };
    auto put_type = [&](const TensorType& t) {
      put(static_cast<uint64_t>(t.dtype)), put(t.dims.size());
      for (int64_t d : t.dims) put(static_cast<uint64_t>(d));
    };
    auto put_tensor = [&](const Tensor& t) {
      put_type(t.type), put(t.splat), put_bytes(t.data.data(), t.data.size());
    };
    auto put_attrs = [&](const AttrSet& a) {
      put(a.attrs.size());
      for (const Attr& at : a.attrs) {
        put_bytes(at.name.data(), at.name.size());
        put(static_cast<uint64_t>(at.value.kind));
        put(at.value.ints.size());
        for (int64_t x : at.value.ints) put(static_cast<uint64_t>(x));
        put_bytes(at.value.text.data(), at.value.text.size());
        put_tensor(at.value.lit);
      }
    };
    // A value as evaluate() finds it: 1 literal, 2 boundary input, 3/4 a result of the old/new side.
    auto ref = [&](View view, ValueId v) {
      const ValueInfo& vi = p_.value(v);
      if (vi.kind == ValueKind::Literal) return put(1), put_tensor(p_.literal(vi.def));
      if (auto l = leaf_index_.find(v); l != leaf_index_.end()) return put(2), put(l->second);
      if (vi.kind != ValueKind::Result) return put(5), put(v);
      const View at = shared_.count(vi.def) ? kOld : view;
      auto r = pos_[at].find(vi.def);
      if (r == pos_[at].end()) return put(6), put(v);
      put(3 + at), put(r->second), put(vi.index);
    };
    const InterpOptions& io = o_.interp;
    if (io.zero_signs || io.contracted || io.deadline != std::chrono::steady_clock::time_point::max()) return false;
    put(static_cast<uint64_t>(io.max_while_iterations)), put(io.max_bytes);
    put(io.fastmath.has_value()), put(io.fastmath ? io.fastmath->bits : 0);
    put(o_.seed), put(randoms), put(edges), put(nsz), put(window_), put(total_), put(o_.window);
    put(leaves_.size());
    for (ValueId l : leaves_) put_type(p_.type_of(l));
    for (int v = 0; v < 2; ++v) {
      const View view = static_cast<View>(v);
      put(cone_[v].size());
      for (InstId i : cone_[v]) {
        const OpCode op = p_.op(i);
        if (has_trait(op, OpTrait::Regions) || has_trait(op, OpTrait::Opaque) || has_trait(op, OpTrait::Effect))
          return false;
        if (view == kNew && shared_.count(i)) {
          put(7);  // read from the old side
          continue;
        }
        const InstSnapshot* snap = view == kOld ? snapshot(i) : nullptr;
        // eval_one's choice: the instruction itself, or a detached copy (old attributes, other types).
        bool detached = window_ || (snap && snap->attrs != p_.inst(i).attrs);
        for (uint32_t r = 0; r < p_.num_operands(i) && !detached; ++r)
          detached = p_.type_id(operand(i, r, view)) != p_.type_id(p_.operand(i, r));
        put(static_cast<uint64_t>(op)), put_attrs(p_.attrs(snap ? snap->attrs : p_.inst(i).attrs)), put(detached);
        put(p_.fastmath_of(p_.inst(i).body).bits);
        put(p_.num_results(i));
        for (uint32_t r = 0; r < p_.num_results(i); ++r) put_type(p_.type_of(p_.result(i, r)));
        put(p_.num_operands(i));
        for (uint32_t r = 0; r < p_.num_operands(i); ++r) ref(view, operand(i, r, view));
        if (k.size() > kMaxKeyBytes) return false;
      }
    }
    put(pairs_.size());
    for (const auto& [a, b] : pairs_) ref(kOld, a), ref(kNew, b);
    return k.size() <= kMaxKeyBytes;
  }

  /// Whether every pair is (result k of an erased instruction i, result k of an unchanged instruction e)
  /// with i and e the same deterministic op (pure, no effect, no regions, not opaque) in the same body,
  /// with the same attributes, result types and operand values, and the rewrite did nothing else: no
  /// instruction inserted, every erased one such an i, every in-place change a redirection of uses from
  /// a replaced value to its replacement. The operands of i are upstream of its results, so nothing the
  /// rewrite changed reaches them: e computes, on the same values, what i computed. (CSE's merges; any
  /// other rewrite, or a merge of instructions that differ in anything, is replayed as usual.)
  bool identical_twins() const {
    if (!d_.inserted.empty() || d_.erased.empty()) return false;
    for (const InstSnapshot& s : d_.modified) {
      const InstId i = s.inst;
      if (p_.inst(i).erased || s.attrs != p_.inst(i).attrs || s.operands.size() != p_.num_operands(i)) return false;
      for (uint32_t k = 0; k < s.operands.size(); ++k) {
        const ValueId was = s.operands[k], now = p_.operand(i, k);
        if (was != now && std::find(d_.replaced.begin(), d_.replaced.end(), std::make_pair(was, now)) == d_.replaced.end())
          return false;
      }
    }
    for (InstId i : d_.erased) {  // each erased instruction must be the source of a compared pair
      bool found = false;
      for (const auto& [a, b] : pairs_) found |= p_.def_inst(a) == i;
      if (!found) return false;
    }
    for (const auto& [a, b] : pairs_) {
      if (std::find(d_.replaced.begin(), d_.replaced.end(), std::make_pair(a, b)) == d_.replaced.end()) return false;
      const ValueInfo &va = p_.value(a), &vb = p_.value(b);
      if (va.kind != ValueKind::Result || vb.kind != ValueKind::Result) return false;
      const InstId i = va.def, e = vb.def;
      if (i == e || flags(i) != kErased || flags(e) != 0 || p_.inst(e).erased) return false;
      const OpCode op = p_.op(i);
      if (op != p_.op(e) || !has_trait(op, OpTrait::Pure) || has_trait(op, OpTrait::Effect) ||
          has_trait(op, OpTrait::Regions) || has_trait(op, OpTrait::Opaque))
        return false;
      if (p_.inst(i).body != p_.inst(e).body || p_.inst(i).attrs != p_.inst(e).attrs) return false;
      if (p_.num_operands(i) != p_.num_operands(e) || p_.num_results(i) != p_.num_results(e)) return false;
      for (uint32_t k = 0; k < p_.num_operands(i); ++k)
        if (p_.operand(i, k) != p_.operand(e, k)) return false;
      bool same_index = false;
      for (uint32_t k = 0; k < p_.num_results(i); ++k) {
        if (p_.type_id(p_.result(i, k)) != p_.type_id(p_.result(e, k))) return false;
        same_index |= p_.result(i, k) == a && p_.result(e, k) == b;
      }
      if (!same_index) return false;
    }
    return true;
  }

  /// The values to compare: each replaced value with its replacement, each operand an in-place update
  /// redirected (old operand with new operand), and the results of an instruction whose attributes changed.
  void collect_pairs() {
    auto add = [&](ValueId a, ValueId b) {
      if (a == b && !(p_.def_inst(a) != kNone && (flags(p_.def_inst(a)) & kModified))) return;
      if (p_.value(a).kind == ValueKind::Literal && a == b) return;
      if (!exists(a, kOld) || !exists(b, kNew)) return;  // a value made and dropped within the rewrite
      for (const auto& pr : pairs_)
        if (pr.first == a && pr.second == b) return;
      pairs_.emplace_back(a, b);
    };
    for (const auto& [a, b] : d_.replaced) add(a, b);
    for (const InstSnapshot& s : d_.modified) {
      InstId i = s.inst;
      if (p_.inst(i).erased || (flags(i) & kInserted)) continue;
      // A user whose operands moved only from replaced values to their replacements is covered by those
      // pairs; any other in-place change (an operand swap, new attributes, a direct replace_all_uses) is
      // compared on the instruction's results, or for a return on its operands (the body's results).
      bool covered = s.attrs == p_.inst(i).attrs;
      for (uint32_t k = 0; k < s.operands.size() && covered; ++k) {
        ValueId was = s.operands[k], now = p_.operand(i, k);
        covered = was == now || std::find(d_.replaced.begin(), d_.replaced.end(), std::make_pair(was, now)) !=
                                    d_.replaced.end();
      }
      if (covered) continue;
      if (p_.op(i) == OpCode::Return) {
        for (uint32_t k = 0; k < s.operands.size(); ++k) add(s.operands[k], p_.operand(i, k));
      } else {
        for (uint32_t k = 0; k < p_.num_results(i); ++k) add(p_.result(i, k), p_.result(i, k));
      }
    }
    rep_.compared = static_cast<int>(pairs_.size());
  }

  /// Walks back from both sides of every pair. Changed instructions are always replayed; an unchanged
  /// producer is replayed when it is shallow and cheap, else its value is a boundary input. The decision
  /// is per value, so both sides see the same boundary.
  /// Marks for replay every unchanged value on a path (at most kSearchDepth levels) from a boundary value
  /// back to a value only one side reads or computes (fold_transpose_pair: the new side reads %x, the
  /// old side's boundary value %t1 is transpose(%x)). True when something was added.
  bool force_more() {
    constexpr int kSearchDepth = 4;
    constexpr size_t kSearchNodes = 64;
    // The values only one side reads or computes: what the rewrite newly relates to the rest. (A value
    // both sides read is fed the same input on both, so its relation to other inputs cannot matter
    // unless the pattern looked deeper than the cones, which cone_depth covers.)
    SmallSet<ValueId, 32> side[2];
    for (int v = 0; v < 2; ++v)
      for (InstId i : cone_[v]) {
        for (uint32_t k = 0; k < p_.num_results(i); ++k) side[v].insert(p_.result(i, k));
        for (uint32_t k = 0; k < p_.num_operands(i); ++k) side[v].insert(operand(i, k, static_cast<View>(v)));
      }
    for (const auto& [a, b] : pairs_) {
      side[kOld].insert(a);
      side[kNew].insert(b);
    }
    SmallSet<ValueId> known;
    for (int v = 0; v < 2; ++v)
      for (ValueId x : side[v])
        if (!side[1 - v].count(x)) known.insert(x);
    if (known.empty()) return false;
    bool added = false;
    for (ValueId leaf : leaves_) {
      if (p_.def_inst(leaf) == kNone) continue;
      // Depth-first search from the leaf through unchanged producers; parent links give the path back.
      SmallMap<ValueId, ValueId, 32> parent{{leaf, kNone}};
      boost::container::small_vector<std::pair<ValueId, int>, 16> stack{{leaf, 0}};
      while (!stack.empty() && parent.size() < kSearchNodes) {
        auto [v, depth] = stack.back();
        stack.pop_back();
        InstId d = p_.def_inst(v);
        if (d == kNone || depth >= kSearchDepth) continue;
        for (uint32_t k = 0; k < p_.num_operands(d); ++k) {
          ValueId u = p_.operand(d, k);
          if (p_.value(u).kind == ValueKind::Literal || !parent.emplace(u, v).second) continue;
          if (known.count(u)) {
            for (ValueId w = v; w != kNone; w = parent[w]) added |= force_.insert(w).second;
            continue;
          }
          stack.emplace_back(u, depth + 1);
        }
      }
    }
    return added;
  }

  void build_cones() {
    leaves_.clear();
    leaf_index_.clear();
    expand_.clear();
    shared_.clear();
    for (int v = 0; v < 2; ++v) {
      cone_[v].clear();
      pos_[v].clear();
    }
    struct Item {
      ValueId v;
      View view;
      int depth;
    };
    boost::container::small_vector<Item, 32> q;  // a FIFO: items before `head` are done
    size_t head = 0;
    for (const auto& [a, b] : pairs_) {
      q.push_back({a, kOld, 0});
      q.push_back({b, kNew, 0});
    }
    SmallSet<ValueId, 32> seen[2];
    SmallSet<InstId> in_cone[2];
    size_t unchanged = 0;
    while (head < q.size()) {
      const Item it = q[head++];
      if (!seen[it.view].insert(it.v).second) continue;
      const ValueInfo& vi = p_.value(it.v);
      if (vi.kind == ValueKind::Literal) continue;
      if (vi.kind == ValueKind::Param) {
        add_leaf(it.v);
        continue;
      }
      InstId d = vi.def;
      if (!flags(d)) {
        auto [e, fresh] = expand_.emplace(it.v, false);
        // A compared value itself (depth 0) is always replayed, whatever its cost and even when its
        // producer runs regions: as a boundary input it would get random values, compared with what the
        // other side computes (CSE replacing one scan by an identical one was reported as changing the
        // results), and a pattern may rely on what computes it (abs(abs(x)) => abs(x) compares abs(y)
        // with y = abs(x): fed, y could be negative).
        if (fresh)
          e->second = p_.op(d) == OpCode::Constant || force_.count(it.v) || it.depth == 0 ||
                      (it.depth < o_.cone_depth && unchanged < o_.max_unchanged &&
                       !has_trait(p_.op(d), OpTrait::Regions) && work_of(p_, d) <= o_.max_expand_work);
        if (!e->second) {
          add_leaf(it.v);
          continue;
        }
      }
      if (!in_cone[it.view].insert(d).second) continue;
      if (!flags(d)) ++unchanged;
      cone_[it.view].push_back(d);
      if (it.view == kOld && (flags(d) & kModified)) {
        const InstSnapshot* s = snapshot(d);
        if (s->attrs != p_.inst(d).attrs && has_trait(p_.op(d), OpTrait::Regions))
          rep_.skipped = "the old attributes of " + std::string(mnemonic(p_.op(d))) + " (it runs regions)";
      }
      for (uint32_t k = 0; k < p_.num_operands(d); ++k) q.push_back({operand(d, k, it.view), it.view, it.depth + 1});
    }
    // Evaluation order: program order of the producers is not at hand for inserted instructions, so sort
    // each side topologically (operands first) with an explicit stack.
    for (int v = 0; v < 2; ++v) topo_sort(static_cast<View>(v), in_cone[v]);
    // An unchanged instruction in both cones whose operands are the same on both sides computes the same
    // tensors on both: the new side reads it from the old side's results.
    for (int v = 0; v < 2; ++v) {
      results_[v].resize(cone_[v].size());
      for (size_t k = 0; k < cone_[v].size(); ++k) pos_[v][cone_[v][k]] = k;
    }
    for (InstId i : cone_[kOld]) {
      if (flags(i) || !in_cone[kNew].count(i)) continue;
      bool same = true;
      for (uint32_t k = 0; k < p_.num_operands(i) && same; ++k) {
        InstId d = p_.def_inst(p_.operand(i, k));
        same = d == kNone || leaf_index_.count(p_.operand(i, k)) || shared_.count(d);
      }
      if (same) shared_.insert(i);
    }
  }

  void add_leaf(ValueId v) {
    if (leaf_index_.emplace(v, leaves_.size()).second) leaves_.push_back(v);
  }

  void topo_sort(View view, const SmallSet<InstId>& members) {
    std::vector<InstId> order;
    order.reserve(cone_[view].size());
    SmallMap<InstId, uint8_t> state;  // 1 open, 2 done
    boost::container::small_vector<std::pair<InstId, uint32_t>, 16> stack;
    for (InstId start : cone_[view]) {
      if (state[start]) continue;
      stack.assign(1, {start, 0});
      state[start] = 1;
      while (!stack.empty()) {
        auto& [i, k] = stack.back();
        if (k < p_.num_operands(i)) {
          InstId d = p_.def_inst(operand(i, k++, view));
          if (d != kNone && members.count(d) && !state[d]) {
            state[d] = 1;
            stack.emplace_back(d, 0);
          }
          continue;
        }
        state[i] = 2;
        order.push_back(i);
        stack.pop_back();
      }
    }
    cone_[view] = std::move(order);
  }

  /// Windowed when every replayed instruction is elementwise (or a constant) over the same N elements,
  /// N larger than the window, and so is every boundary value.
  void decide_window() {
    int64_t n = -1;
    auto same = [&](ValueId v) {
      int64_t e = p_.type_of(v).num_elements();
      if (n < 0) n = e;
      return e == n;
    };
    for (int v = 0; v < 2; ++v)
      for (InstId i : cone_[v]) {
        OpCode op = p_.op(i);
        if (op != OpCode::Constant && !has_trait(op, OpTrait::Elementwise)) return;
        for (uint32_t k = 0; k < p_.num_results(i); ++k)
          if (!same(p_.result(i, k))) return;
        for (uint32_t k = 0; k < p_.num_operands(i); ++k)
          if (!same(operand(i, k, static_cast<View>(v)))) return;
      }
    for (ValueId l : leaves_)
      if (!same(l)) return;
    for (const auto& [a, b] : pairs_)
      if (!same(a) || !same(b)) return;
    if (n <= o_.window) return;
    window_ = true;
    total_ = n;
    rep_.windowed = true;
  }

  void make_inputs(int t, bool random, int k) {
    inputs_.resize(leaves_.size());  // each kept tensor's buffer is reused by the copy below
    uint64_t salt = o_.seed * 7919 + static_cast<uint64_t>(t);
    start_ = window_ ? static_cast<int64_t>((salt * 0x9e3779b97f4a7c15ULL >> 11) % uint64_t(total_ - o_.window + 1)) : 0;
    for (size_t j = 0; j < leaves_.size(); ++j) {
      TensorType ty = p_.type_of(leaves_[j]);
      if (window_) ty = TensorType{ty.dtype, {o_.window}};
      auto make = [&] {
        return random ? random_tensor(ty, salt * 1000003 + j, 0.25) : edge_tensor(ty, k + 3 * j);
      };
      if (const Tensor* kept = input(ty, static_cast<uint64_t>(t), j, make)) inputs_[j] = *kept;
      else inputs_[j] = make();
    }
  }

  /// The input of trial t for the j-th boundary value of type ty, from the cache (made and kept on its
  /// first use); nullptr when it is not kept (no cache, or over 4,096 elements).
  template <typename Make>
  const Tensor* input(const TensorType& ty, uint64_t t, size_t j, Make make) {
    if (!cache_ || ty.num_elements() > 4096) return nullptr;
    auto& bucket = cache_->by_key[t << 32 | j];
    for (const auto& [type, tensor] : bucket)
      if (type == ty) return &tensor;
    if (bucket.size() >= 16) bucket.clear();  // a cache serving many programs meets many types: start over
    bucket.emplace_back(ty, make());
    return &bucket.back().second;
  }

  const Tensor* value_tensor(View view, ValueId v) {
    const ValueInfo& vi = p_.value(v);
    if (vi.kind == ValueKind::Literal) {
      if (!window_) return &p_.literal(vi.def);
      auto it = lit_window_.find(v);
      if (it == lit_window_.end() || it->second.first != start_)
        it = lit_window_.insert_or_assign(v, std::make_pair(start_, window_of(p_.literal(vi.def), start_, o_.window))).first;
      return &it->second.second;
    }
    auto l = leaf_index_.find(v);
    if (l != leaf_index_.end()) return &inputs_[l->second];
    if (vi.kind != ValueKind::Result) return nullptr;
    if (shared_.count(vi.def)) view = kOld;
    auto r = pos_[view].find(vi.def);
    if (r == pos_[view].end() || vi.index >= results_[view][r->second].size()) return nullptr;
    return &results_[view][r->second][vi.index];
  }

  /// Runs one side; false when it has no result (UB, a bound, an error), with the reason kept.
  bool evaluate(View view) {
    for (auto& r : results_[view]) r.clear();
    for (size_t c = 0; c < cone_[view].size(); ++c) {
      InstId i = cone_[view][c];
      if (view == kNew && shared_.count(i)) continue;
      uint32_t n = p_.num_operands(i);
      if (args_.size() < n) args_.resize(n);
      for (uint32_t k = 0; k < n; ++k) {
        const Tensor* t = value_tensor(view, operand(i, k, view));
        if (!t) return fail(view, "operand missing");
        args_[k] = *t;  // copy-assignment reuses the buffer of the last trial
      }
      ++rep_.runs;
      RunResult r = eval_one(view, i, std::span<const Tensor>(args_.data(), n));
      if (r.status != RunStatus::Ok) return fail(view, std::string(mnemonic(p_.op(i))) + ": " + r.message);
      results_[view][c] = std::move(r.results);
    }
    return true;
  }

  bool fail(View view, std::string why) {
    why_[view] = std::move(why);
    return false;
  }

  RunResult eval_one(View view, InstId i, std::span<const Tensor> args) {
    OpCode op = p_.op(i);
    const InstSnapshot* s = view == kOld ? snapshot(i) : nullptr;
    AttrSetId attrs = s ? s->attrs : p_.inst(i).attrs;
    if (window_ && op == OpCode::Constant) {
      const AttrValue* a = p_.attrs(attrs).find("value");
      RunResult r;
      if (!a) return RunResult{RunStatus::Error, {}, "constant without value", i};
      r.results.push_back(window_of(a->lit, start_, o_.window));
      return r;
    }
    bool same_types = true;
    for (uint32_t k = 0; k < args.size(); ++k) same_types &= args[k].type == p_.type_of(p_.operand(i, k));
    if (!window_ && same_types && attrs == p_.inst(i).attrs) return eval_inst(p_, i, args, o_.interp);
    std::vector<TensorType> rt;
    for (uint32_t k = 0; k < p_.num_results(i); ++k) {
      TensorType t = p_.type_of(p_.result(i, k));
      rt.push_back(window_ ? TensorType{t.dtype, {o_.window}} : t);
    }
    return eval_detached(op, p_.attrs(attrs), args, rt, o_.interp);
  }

  std::string describe_failure(std::string_view pattern, InstId root, size_t k, const Tensor* a, const Tensor* b) {
    const auto& [va, vb] = pairs_[k];
    BodyId body = root != kNone ? p_.inst(root).body : 0;
    std::string s = "rewrite '" + std::string(pattern) + "' changed the results of " + body_label(p_, body) +
                    "\n  root: " + (root != kNone ? describe_inst(p_, root) : std::string("(none)")) +
                    "\n  compared: " + value_label(p_, va) + " before the rewrite with " + value_label(p_, vb) +
                    " after it";
    if (window_)
      s += "\n  window: elements [" + std::to_string(start_) + ", " + std::to_string(start_ + o_.window) + ") of " +
           std::to_string(total_);
    s += "\n  input:";
    for (size_t j = 0; j < leaves_.size(); ++j)
      s += "\n    " + value_label(p_, leaves_[j]) + " = " + short_literal(inputs_[j]);
    if (leaves_.empty()) s += "\n    (no boundary values)";
    std::string idx = std::to_string(k);
    int64_t at = a && b && a->type == b->type ? first_difference(*a, *b) : -1;
    s += "\n  before: result " + idx + " = " + (a ? short_literal(*a) : "no result: " + why_[kOld]);
    s += "\n  after:  result " + idx + " = " + (b ? short_literal(*b) : "no result: " + why_[kNew]);
    if (at >= 0 && a->size() > kFullLiteral)
      s += "\n  first difference at element " + std::to_string(at) + ": before " +
           format_elem(a->dtype(), a->bits(at)) + ", after " + format_elem(b->dtype(), b->bits(at));
    return s;
  }

  const Program& p_;
  const RewriteDelta& d_;
  const ReplayOptions& o_;
  ReplayInputCache* cache_;
  SmallMap<InstId, uint8_t> flags_;
  SmallMap<InstId, const InstSnapshot*, 8> snap_;
  std::vector<std::pair<ValueId, ValueId>> pairs_;
  SmallMap<ValueId, bool> expand_;
  std::vector<ValueId> leaves_;
  SmallMap<ValueId, size_t> leaf_index_;
  std::vector<InstId> cone_[2];
  std::vector<std::vector<Tensor>> results_[2];  ///< parallel to cone_
  SmallMap<InstId, size_t> pos_[2];      ///< instruction -> position in cone_
  SmallSet<InstId> shared_;
  SmallSet<ValueId, 8> force_;  ///< unchanged values that must be replayed, not fed
  std::vector<Tensor> args_;
  std::string why_[2];
  std::vector<Tensor> inputs_;
  std::unordered_map<ValueId, std::pair<int64_t, Tensor>> lit_window_;
  bool window_ = false;
  int64_t total_ = 0, start_ = 0;
  ReplayReport rep_;
};

}  // namespace

ReplayMemo::ReplayMemo(size_t arena_bytes, size_t slots)
    : arena_(new char[arena_bytes]), arena_bytes_(arena_bytes), table_(new Slot[std::bit_ceil(std::max<size_t>(slots, 16))]),
      mask_(std::bit_ceil(std::max<size_t>(slots, 16)) - 1) {}

size_t ReplayMemo::find(std::string_view key, uint64_t h) const {
  for (size_t at = h & mask_;; at = (at + 1) & mask_) {  // the table is never full (see insert)
    const Slot& s = table_[at];
    if (s.length == 0) return at;
    if (s.hash == h && s.length == key.size() && std::memcmp(arena_.get() + s.offset, key.data(), key.size()) == 0)
      return at;
  }
}

bool ReplayMemo::contains(std::string_view key) const {
  if (key.empty()) return false;
  return table_[find(key, std::hash<std::string_view>{}(key))].length != 0;
}

void ReplayMemo::insert(std::string_view key) {
  if (key.empty() || key.size() > arena_bytes_ || key.size() > UINT32_MAX) return;
  const uint64_t h = std::hash<std::string_view>{}(key);
  size_t at = find(key, h);
  if (table_[at].length != 0) return;
  if (used_ + key.size() > arena_bytes_ || (count_ + 1) * 4 > (mask_ + 1) * 3) {  // full: start over
    std::fill(table_.get(), table_.get() + mask_ + 1, Slot{});
    used_ = 0;
    count_ = 0;
    ++restarts_;
    at = find(key, h);
  }
  std::memcpy(arena_.get() + used_, key.data(), key.size());
  table_[at] = Slot{h, static_cast<uint32_t>(used_), static_cast<uint32_t>(key.size())};
  used_ += key.size();
  ++count_;
}

Tensor edge_tensor(const TensorType& t, uint64_t rotation) {
  static const std::array<std::vector<uint64_t>, kNumDTypes> table = [] {  // built once
    std::array<std::vector<uint64_t>, kNumDTypes> v;
    for (int d = 0; d < kNumDTypes; ++d) v[static_cast<size_t>(d)] = edge_values(static_cast<DType>(d));
    return v;
  }();
  Tensor out(t);
  const std::vector<uint64_t>& vals = table[static_cast<size_t>(t.dtype)];
  for (int64_t k = 0, n = out.size(); k < n; ++k) out.set_bits(k, vals[(k + rotation) % vals.size()]);
  return out;
}

ReplayReport replay_rewrite(const Program& p, const RewriteDelta& d, const ReplayOptions& o,
                            std::string_view pattern, InstId root, ReplayInputCache* cache) {
  return Replay(p, d, o, cache).run(pattern, root);
}

}  // namespace ptir
