// The bounded encoder's side of the index maps (ir/index_map.h): an op's map evaluated at each concrete
// point over the index-term builder (verify/smt/index_terms.h). Variables are numerals; a Read of an
// index operand is its element as a 66-bit term, so a data-dependent position (take, gather, dynamic
// slices, scatters, segment ids) selects through if-then-else over the positions its bounds allow.
// The geometry of every data-movement op is its map; the encoders only add the element semantics.
#pragma once
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "ir/index_map.h"
#include "verify/encode/ops.h"
#include "verify/smt/index_terms.h"

namespace ptir::verify::enc {

using smt::ITerm;

/// The op's index map (Sizes::Concrete); an EncodeError naming the op when it has none.
imap::IndexMap map_of(const OpEnv& env);

/// Evaluates a map's expressions at one point.
class MapEval {
 public:
  MapEval(const OpEnv& env, const imap::IndexMap& m);
  /// Moves to a point (the values of the variables).
  void at(std::span<const int64_t> vars);
  ITerm operator()(imap::ExprId e);
  /// The conjunction of `when`.
  ITerm all(const std::vector<imap::ExprId>& when);
  /// The element the access reads at this point (if-then-else over the candidate positions when the
  /// position is symbolic; a numeral position out of range reads the last element of its axis, like a
  /// mux: only an input with UB gets there).
  Expr pick(const imap::Access& a);
  /// The flat positions of `dims` that the index can name at this point, each with the condition that
  /// it does and `when` holds (known-false ones left out).
  std::vector<std::pair<int64_t, Expr>> candidates(const std::vector<imap::ExprId>& index,
                                                   const std::vector<int64_t>& dims, const ITerm& when);
  const smt::IndexTerms& terms() const { return T_; }

  // ---- the evaluation domain of imap::eval ----
  using Val = ITerm;
  Val konst(int64_t v) const { return T_.num(v); }
  Val var(int k) const;
  Val dim(int a, int axis) const;
  Val attr(const std::string& name, int k, int64_t dflt) const;
  Val read(int operand, std::span<const Val> idx) const;
  Val add(const Val& a, const Val& b) const { return T_.add(a, b); }
  Val sub(const Val& a, const Val& b) const { return T_.sub(a, b); }
  Val mul(const Val& a, const Val& b) const { return T_.mul(a, b); }
  Val floordiv(const Val& a, const Val& b) const { return T_.floordiv(a, b); }
  Val mod(const Val& a, const Val& b) const { return T_.mod(a, b); }
  Val min(const Val& a, const Val& b) const { return T_.min(a, b); }
  Val max(const Val& a, const Val& b) const { return T_.max(a, b); }
  Val clamp(const Val& x, const Val& lo, const Val& hi) const { return T_.clamp(x, lo, hi); }
  Val lt(const Val& a, const Val& b) const { return T_.lt(a, b); }
  Val le(const Val& a, const Val& b) const { return T_.le(a, b); }
  Val eq(const Val& a, const Val& b) const { return T_.eq(a, b); }
  Val ne(const Val& a, const Val& b) const { return T_.ne(a, b); }
  Val and_(const Val& a, const Val& b) const { return T_.and_(a, b); }
  Val or_(const Val& a, const Val& b) const { return T_.or_(a, b); }
  Val not_(const Val& a) const { return T_.not_(a); }
  Val select(const Val& c, const Val& t, const Val& e) const { return T_.select(c, t, e); }

 private:
  Expr pick_rec(int operand, const SymTensor& x, std::vector<ITerm>& comps, std::vector<int64_t>& pos,
                std::vector<size_t>& sym, size_t n);

  const OpEnv& env_;
  const imap::IndexMap& m_;
  smt::IndexTerms T_;
  std::vector<int64_t> vars_;
  std::vector<std::optional<ITerm>> memo_;
  /// Selections already built: neighbouring outputs share their inner choices (the one-axis-at-a-time
  /// slicing of a dynamic_slice). Key: operand, axes left, the fixed positions, the terms still chosen.
  std::map<std::vector<int64_t>, Expr> picks_;
  std::vector<Expr> keep_;
};

/// The extents of a space.
std::vector<int64_t> extents(const imap::IndexMap& m, const std::vector<imap::ExprId>& space, MapEval& ev);

/// Calls f(point) for every point of `dims` in row-major order (nothing for an empty space).
template <typename F>
void for_points(const std::vector<int64_t>& dims, F&& f) {
  for (int64_t n : dims)
    if (n <= 0) return;
  std::vector<int64_t> idx(dims.size(), 0);
  for (;;) {
    f(static_cast<const std::vector<int64_t>&>(idx));
    size_t k = dims.size();
    while (k-- > 0) {
      if (++idx[k] < dims[k]) break;
      idx[k] = 0;
    }
    if (k == static_cast<size_t>(-1)) return;
  }
}

/// ORs the map's UB checks into env.ub.
void add_checks(OpEnv& env, const imap::IndexMap& m, MapEval& ev);

/// Encodes a Move map: each result element is its first holding case's element, else the padding value
/// (`value[...]`) or the iota integer. Adds the UB checks.
Results encode_move(OpEnv& env);

/// Walks a Fold map: for each result position (row-major) `begin(oi)`, then `point(real, elems)` for each
/// reduction point in fold order whose realness is not known false (real: its condition; elems: the
/// elements its reads pick), then `end(oi)`.
template <typename Begin, typename Point, typename End>
void walk_fold(OpEnv& env, const imap::IndexMap& m, Begin&& begin, Point&& point, End&& end) {
  MapEval ev(env, m);
  const std::vector<int64_t> space = extents(m, m.space, ev);
  const std::vector<int64_t> odims(space.begin(), space.begin() + m.out_vars), rdims(space.begin() + m.out_vars, space.end());
  int64_t oi = 0;
  std::vector<int64_t> p;
  std::vector<Expr> elems;
  for_points(odims, [&](const std::vector<int64_t>& o) {
    env.check_stop();
    begin(oi);
    for_points(rdims, [&](const std::vector<int64_t>& r) {
      p = o;
      p.insert(p.end(), r.begin(), r.end());
      ev.at(p);
      const ITerm real = ev.all(m.cases[0].when);
      if (real.is_false()) return;
      elems.clear();
      for (const imap::Access& a : m.cases[0].reads) elems.push_back(ev.pick(a));
      point(real, static_cast<const std::vector<Expr>&>(elems));
    });
    end(oi++);
  });
  add_checks(env, m, ev);
}

/// Walks a Scatter map: for each point of its space (row-major) whose case may hold, `apply(src, targets)`
/// with the element read and the (result offset, condition) pairs of the positions it may go to.
template <typename Apply>
void walk_scatter(OpEnv& env, const imap::IndexMap& m, Apply&& apply) {
  MapEval ev(env, m);
  const std::vector<int64_t> space = extents(m, m.space, ev);
  const std::vector<int64_t>& rdims = env.out().dims;
  for_points(space, [&](const std::vector<int64_t>& u) {
    env.check_stop();
    ev.at(u);
    const ITerm when = ev.all(m.cases[0].when);
    if (when.is_false()) return;
    const auto targets = ev.candidates(m.target, rdims, when);
    if (targets.empty()) return;
    apply(ev.pick(m.cases[0].reads[0]), targets);
  });
  add_checks(env, m, ev);
}

}  // namespace ptir::verify::enc
