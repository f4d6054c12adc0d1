// Pattern sets: filtering and the root-op index.
#include "rewriter/pattern.h"

#include <algorithm>

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

FrozenPatternSet PatternSet::freeze(const PatternFilter& filter) && {
  FrozenPatternSet f;
  auto owned = std::make_shared<std::vector<std::unique_ptr<Pattern>>>(std::move(patterns_));
  patterns_.clear();
  for (const auto& p : *owned) {
    if (filter.keeps(*p)) f.all_.push_back(p.get());
    else f.filtered_out_.emplace_back(p->debug_name());
  }
  for (const Pattern* p : f.all_) {
    if (p->matches_any_op()) {
      for (auto& list : f.by_root_) list.push_back(p);
      continue;
    }
    for (OpCode op : p->roots()) {
      auto& list = f.by_root_[static_cast<size_t>(op)];
      if (std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
    }
  }
  for (auto& list : f.by_root_)
    std::stable_sort(list.begin(), list.end(),
                     [](const Pattern* a, const Pattern* b) { return a->benefit() > b->benefit(); });
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
      case OperandNeed::Kind::Constant: return c == kConst;
      case OperandNeed::Kind::Op:
        // A `constant` op's result is classed as a constant: admit it there too.
        return c == static_cast<int>(n.op) || (n.op == OpCode::Constant && c == kConst);
    }
    return true;
  };
  for (size_t op = 0; op < f.by_root_.size(); ++op) {
    const auto& list = f.by_root_[op];
    if (list.empty()) continue;
    auto ix = std::make_unique<Index>();
    for (size_t j = 0; j < list.size() && j < FrozenPatternSet::kIndexedPatterns; ++j) {
      const RootShape s = list[j]->root_shape();
      const uint64_t bit = uint64_t{1} << j;
      for (int k = 0; k < 2; ++k)
        for (int c = 0; c < Index::kClasses; ++c)
          if (admits(s, k, c)) ix->admits[k][c] |= bit;
      if (s.either_order) ix->either_order |= bit;
    }
    (*index)[op] = std::move(ix);
  }
  f.index_ = std::move(index);
  f.owner_ = std::move(owned);
  return f;
}

uint64_t FrozenPatternSet::candidates(const Program& p, InstId i) const {
  if (!index_) return ~uint64_t{0};
  const RootIndex* ix = (*index_)[static_cast<size_t>(p.op(i))].get();
  if (!ix) return ~uint64_t{0};
  auto cls = [&](uint32_t k) -> int {
    if (k >= p.num_operands(i)) return kNumOps + 2;
    const ValueId v = p.operand(i, k);
    if (p.constant_of(v)) return kNumOps;
    const InstId d = p.def_inst(v);
    return d == kNone ? kNumOps + 1 : static_cast<int>(p.op(d));
  };
  const int c0 = cls(0), c1 = cls(1);
  return (ix->admits[0][c0] & ix->admits[1][c1]) | (ix->either_order & ix->admits[0][c1] & ix->admits[1][c0]);
}

}  // namespace ptir
