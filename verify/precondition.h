// Slicing the precondition of a refinement query: "the source is defined and every loop finished within
// the bound" as its separate failure conditions, grouped by the inputs they read.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/program.h"
#include "verify/smt/expr.h"

namespace ptir::verify {

/// The failure conditions (disjuncts) of a precondition, grouped into connected components of shared
/// free constants. A query for one output element needs only the conditions in the components its own
/// formula reaches: dropping the others can only add models, so an unsat answer stays a proof.
class Precondition {
 public:
  /// `bad`: the disjunction of everything that makes an input not count (UB, a loop past the bound).
  explicit Precondition(const smt::Expr& bad);
  /// The negation of the conditions in the components `f` reads (closed conditions are always kept).
  smt::Expr for_formula(const smt::Expr& f);

 private:
  unsigned index(unsigned c);
  unsigned find(unsigned i);

  std::vector<smt::Expr> parts_;
  std::vector<unsigned> first_;  ///< a constant of each part (kNone: it reads none)
  std::unordered_map<unsigned, unsigned> ids_;  ///< constant id -> union-find index
  std::vector<unsigned> parent_;
};

}  // namespace ptir::verify
