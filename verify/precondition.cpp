// Precondition slicing: a union-find over the free constants of the precondition's conditions.
#include "verify/precondition.h"

#include <algorithm>

namespace ptir::verify {

using smt::Expr;

Precondition::Precondition(const Expr& bad) : parts_(bad.disjuncts()) {
  for (const Expr& p : parts_) {
    const std::vector<unsigned> cs = p.constants();
    for (unsigned c : cs) index(c);
    for (size_t k = 1; k < cs.size(); ++k) parent_[find(index(cs[0]))] = find(index(cs[k]));
    first_.push_back(cs.empty() ? kNone : cs[0]);
  }
}

Expr Precondition::for_formula(const Expr& f) {
  std::vector<unsigned> roots;
  for (unsigned c : f.constants())
    if (auto it = ids_.find(c); it != ids_.end()) roots.push_back(find(it->second));
  std::vector<Expr> keep;
  for (size_t k = 0; k < parts_.size(); ++k) {
    if (first_[k] == kNone) {
      keep.push_back(parts_[k]);
      continue;
    }
    const unsigned r = find(ids_.at(first_[k]));
    if (std::find(roots.begin(), roots.end(), r) != roots.end()) keep.push_back(parts_[k]);
  }
  return !Expr::any(keep);
}

unsigned Precondition::index(unsigned c) {
  auto [it, fresh] = ids_.emplace(c, static_cast<unsigned>(parent_.size()));
  if (fresh) parent_.push_back(it->second);
  return it->second;
}

unsigned Precondition::find(unsigned i) {
  while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
  return i;
}

}  // namespace ptir::verify
