// Pattern sets: filtering and the root-op index.
#include "rewriter/pattern.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace ptir {
namespace {
bool contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}
}  // namespace

bool Pattern::has_label(std::string_view l) const { return contains(labels_, l); }

bool PatternFilter::keeps(const Pattern& p) const {
  if (contains(disabled_names, p.debug_name())) return false;
  for (const std::string& l : p.labels())
    if (contains(disabled_labels, l)) return false;
  if (enabled_names.empty() && enabled_labels.empty()) return true;
  if (contains(enabled_names, p.debug_name())) return true;
  for (const std::string& l : p.labels())
    if (contains(enabled_labels, l)) return true;
  return false;
}

const FrozenPatternSet::Lists& FrozenPatternSet::no_lists() {
  static const Lists empty;
  return empty;
}

FrozenPatternSet PatternSet::freeze(const PatternFilter& filter) && {
  FrozenPatternSet f;
  auto lists = std::make_shared<FrozenPatternSet::Lists>();
  FrozenPatternSet::Lists& L = *lists;
  auto owned = std::make_shared<std::vector<std::unique_ptr<Pattern>>>(std::move(patterns_));
  patterns_.clear();
  for (const auto& p : *owned) p->freeze_provenance();
  for (const auto& p : *owned) {
    if (filter.keeps(*p)) L.all.push_back(p.get());
    else L.filtered_out.emplace_back(p->debug_name());
  }
  for (const Pattern* p : L.all) {
    if (p->matches_any_op()) {
      for (auto& list : L.by_root) list.push_back(p);
      continue;
    }
    for (OpCode op : p->roots()) {
      auto& list = L.by_root[static_cast<size_t>(op)];
      if (std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
    }
  }
  for (auto& list : L.by_root)
    std::stable_sort(list.begin(), list.end(),
                     [](const Pattern* a, const Pattern* b) { return a->benefit() > b->benefit(); });
  {
    std::unordered_map<const Pattern*, uint32_t> pos;
    for (const Pattern* p : L.all) pos.emplace(p, static_cast<uint32_t>(pos.size()));
    for (size_t op = 0; op < L.by_root.size(); ++op)
      for (const Pattern* p : L.by_root[op]) L.by_root_pos[op].push_back(pos.at(p));
  }
  // The index: which patterns of each list admit each operand class at positions 0 and 1.
  using Index = FrozenPatternSet::RootIndex;
  auto index = std::make_shared<std::array<std::unique_ptr<Index>, kNumOps>>();
  constexpr int kConst = kNumOps, kAbsent = kNumOps + 2;
  auto admits = [&](const RootShape& s, int k, int c) {
    if (c == kAbsent) return s.num_operands < 0 || s.num_operands <= k;
    if (s.num_operands >= 0 && s.num_operands <= k) return false;  // an operand the root must not have
    const OperandNeed& n = s.operand[k];
    switch (n.kind) {
      case OperandNeed::Kind::Any: return true;
      case OperandNeed::Kind::Constant:
      case OperandNeed::Kind::Splat: return c == kConst;
      case OperandNeed::Kind::Op:
        // A `constant` op's result is classed as a constant: admit it there too.
        return c == static_cast<int>(n.op) || (n.op == OpCode::Constant && c == kConst);
    }
    return true;
  };
  for (size_t op = 0; op < L.by_root.size(); ++op) {
    const auto& list = L.by_root[op];
    if (list.empty()) continue;
    auto ix = std::make_unique<Index>();
    for (size_t j = 0; j < list.size() && j < FrozenPatternSet::kIndexedPatterns; ++j) {
      const RootShape s = list[j]->root_shape_for(static_cast<OpCode>(op));
      const uint64_t bit = uint64_t{1} << j;
      for (int k = 0; k < 2; ++k)
        for (int c = 0; c < Index::kClasses; ++c)
          if (admits(s, k, c)) ix->admits[k][c] |= bit;
      if (s.either_order) ix->either_order |= bit;
      if (s.same_operands && s.num_operands != 0 && s.num_operands != 1) ix->same_operands |= bit;
      for (int k = 0; k < 2; ++k) {
        const OperandNeed& n = s.operand[k];
        if (n.kind != OperandNeed::Kind::Splat || (s.num_operands >= 0 && s.num_operands <= k)) continue;
        size_t d = 0;
        while (d < ix->splats.size() && !(ix->splats[d].nan == n.nan && ix->splats[d].splat_bits == n.splat_bits)) ++d;
        if (d == ix->splats.size()) {
          if (d == Index::kMaxSplats) continue;  // indexed as a constant only
          ix->splats.push_back(n);
        }
        ix->needs_splat[k] |= bit;
        ix->splat_need[k][d] |= bit;
      }
      // Type facts hold of an operand in its own position: not indexed for an either-order match.
      for (int k = 0; k < 2 && !s.either_order; ++k)
        for (int f = 0; f < kNumTypeFacts; ++f)
          if (s.operand_facts[k] >> f & 1u) ix->needs_fact[k][f] |= bit, ix->fact_needy_at[k] |= bit;
    }
    (*index)[op] = std::move(ix);
  }
  f.index_ = std::move(index);
  f.lists_ = std::move(lists);
  f.owner_ = std::move(owned);
  return f;
}

namespace {
/// TypeFact bits of operand k of i (pattern.h); the natives' own dtype tests (is_float, is_integer, i1).
inline uint8_t facts_of(const Program& p, InstId i, uint32_t k) {
  if (k >= p.num_operands(i) || p.num_results(i) == 0) return 0;
  const ValueId v = p.operand(i, k);
  const TensorType& t = p.type_of(v);
  uint8_t f = 0;
  if (is_float(t.dtype)) f |= kFactFloat;
  if (is_integer(t.dtype)) f |= kFactInt;
  if (t.dtype == DType::I1) f |= kFactBool;
  if (t.num_elements() == 0) f |= kFactEmpty;
  if (p.type_id(v) == p.type_id(p.result(i, 0))) f |= kFactResultType;
  return f;
}
}  // namespace

uint64_t FrozenPatternSet::candidates(const Program& p, InstId i) const {
  if (!index_) return ~uint64_t{0};
  const RootIndex* ix = (*index_)[static_cast<size_t>(p.op(i))].get();
  if (!ix) return ~uint64_t{0};
  const uint32_t nops = p.num_operands(i);
  const Tensor* lit[2] = {nullptr, nullptr};  // each operand's constant, looked up once
  auto cls = [&](uint32_t k) -> int {
    if (k >= nops) return kNumOps + 2;
    const ValueId v = p.operand(i, k);
    if ((lit[k] = p.constant_of(v))) return kNumOps;
    const InstId d = p.def_inst(v);
    return d == kNone ? kNumOps + 1 : static_cast<int>(p.op(d));
  };
  const int c0 = cls(0), c1 = cls(1);
  uint64_t a0 = ix->admits[0][c0], a1 = ix->admits[1][c1];  // operand 0 at position 0, operand 1 at 1
  uint64_t b0 = ix->admits[0][c1], b1 = ix->admits[1][c0];  // swapped
  if (!ix->splats.empty() && (c0 == kNumOps || c1 == kNumOps)) {
    // Which splat needs each constant operand meets (necessary: its first element's bits).
    auto meets = [&](uint32_t k) {
      uint32_t m = 0;
      const Tensor* t = lit[k];
      if (!t || t->size() == 0) return m;
      const DType d = t->dtype();
      const uint64_t b = t->bits(0);
      const bool nan = is_float(d) && float_is_nan(d, b);
      for (size_t j = 0; j < ix->splats.size(); ++j) {
        const OperandNeed& n = ix->splats[j];
        const auto& want = n.splat_bits[static_cast<size_t>(d)];
        if (n.nan ? nan : (want && *want == b)) m |= 1u << j;
      }
      return m;
    };
    auto admitted = [&](int pos, uint32_t m) {  // patterns whose splat need at `pos` (if any) is in m
      uint64_t ok = ~ix->needs_splat[pos];
      for (; m; m &= m - 1) ok |= ix->splat_need[pos][std::countr_zero(m)];
      return ok;
    };
    const uint32_t m0 = c0 == kNumOps ? meets(0) : 0, m1 = c1 == kNumOps ? meets(1) : 0;
    a0 &= admitted(0, m0), a1 &= admitted(1, m1), b0 &= admitted(0, m1), b1 &= admitted(1, m0);
  }
  uint64_t cand = (a0 & a1) | (ix->either_order & b0 & b1);
  if (ix->same_operands && (nops < 2 || p.operand(i, 0) != p.operand(i, 1))) cand &= ~ix->same_operands;
  // Drop the patterns needing a type fact operand 0 or 1 lacks (facts computed only where needed).
  for (uint32_t k = 0; k < 2; ++k) {
    if (!(cand & ix->fact_needy_at[k])) continue;
    const uint32_t lacks = ~static_cast<uint32_t>(facts_of(p, i, k)) & ((1u << kNumTypeFacts) - 1);
    for (uint32_t m = lacks; m; m &= m - 1) cand &= ~ix->needs_fact[k][std::countr_zero(m)];
  }
  return cand;
}

uint8_t type_facts(const Program& p, InstId i, uint32_t k) { return facts_of(p, i, k); }

}  // namespace ptir
