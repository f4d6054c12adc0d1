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
  f.owner_ = std::move(owned);
  return f;
}

}  // namespace ptir
