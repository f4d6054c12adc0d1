// The rank bound (docs/verification.md "The rank bound"): a rule with no counterexample at ranks 0..B has
// none at any rank, B counted from the distinct reads of every configuration, the conditions, and the
// axes the argument must keep (concat axes, witnesses).
#include <algorithm>

#include "verify/allshape/encoder.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {

int bound_of(const Enc& e) {
  int pairs = 0;
  for (const auto& [cap, set] : e.reads) {
    const int n = static_cast<int>(set.size());
    pairs += n * (n - 1) / 2;
  }
  // Value-level index conditions: none of the fragment's ops selects between values by an index
  // condition (pad, concat of several operands and dynamic_update_slice, which would, are not in it).
  // A target fold given a fresh value (encode_dot.cpp) differs from the source's fold in its product
  // operands, extents or dtypes: one witness axis keeps that difference (P8).
  // A reduction with keepdims = true has its reduced axes among the output axes (size 1): its fold's
  // "empty" or "one element" condition needs one witness axis kept (a red team's reading of this
  // function, 2026-12-07: only fold mismatches were counted, although the proof lists these conditions).
  const int conditions = (e.fold_mismatch > 0 ? 1 : 0) + e.keep_reductions;
  return std::max(1, conditions + pairs);
}

RuleAxes rule_axes(const rules::Rule& r, const RuleFacts& f) {
  RuleAxes a;
  // Distinguished axes: a concat's axis is never dropped by the argument (its conditions are on that
  // axis alone); a literal axis k pins axes 0..k.
  // (One per captured axis name, shared by the concats that use it; a concat without an axis in the
  // source has its own.)
  bool has_dot = false;
  std::function<void(const rules::Node&)> scan = [&](const rules::Node& n) {
    if (n.kind == rules::Node::Kind::Op && n.op == OpCode::Transpose) a.has_transpose = true;
    if (n.kind == rules::Node::Kind::Op && n.op == OpCode::DotGeneral) has_dot = true;
    if (n.kind == rules::Node::Kind::Op && n.op == OpCode::Concat) {
      bool named = false;
      for (const auto& x : n.attrs) {
        if (x.name != "axis") continue;
        named = true;
        if (x.kind == rules::AttrExpr::Kind::Ints && x.ints.size() == 1)
          a.literal_pins = std::max(a.literal_pins, static_cast<int>(x.ints[0]) + 1);
        else if (x.kind == rules::AttrExpr::Kind::Capture) a.axis_caps.insert(x.capture);
        else ++a.unnamed_axes;
      }
      if (!named) ++a.unnamed_axes;
    }
    for (const auto& c : n.operands) scan(*c);
  };
  scan(*r.source);
  scan(*r.result);
  // An existential size condition (some_axis_size) needs its witness axis kept: one more axis each.
  for (const rules::Constraint& c : r.where)
    if (const PredicateSpec* s = predicate_spec_named(c.pred); s && !c.negated) a.witness_axes += s->witness_axes;
  a.root_rank_only = !has_dot && !f.rank_of.empty();
  for (const auto& [cap, k] : f.rank_of) {
    a.fixed_rank += std::max(k, 0);
    const bool root = (!r.source->type_capture.empty() && cap == r.source->type_capture) ||
                      (!r.source->as_name.empty() && cap == r.source->as_name);
    if (root) a.root_rank = std::max(a.root_rank, k);
    else a.root_rank_only = false;
  }
  return a;
}

std::optional<int> rank_bound(const rules::Rule& r, const RuleFacts& f, const RuleAxes& a, smt::UnitBudget& budget,
                              std::string* premise) {
  // Every configuration evaluated at ranks 1 to 3, not 1 alone: a configuration infeasible at rank 1
  // still has reads.
  int bound = 1, ill_witness = 0, feasible = 0;
  for (int rk = 1; rk <= 3; ++rk) {
    Chooser ch;
    do {
      if (budget.exhausted()) return std::nullopt;
      ch.start();
      Enc e(r, f, rk, ch);
      e.max_contract_ = 3 - rk;  // output and contraction axes together up to 3, like the ranks
      // Reductions without keepdims over up to two axes (one at rank 3), so that P2 (checked here too)
      // sees reads through a multi-axis reduction (a review: the default of one left them unexamined
      // whenever B was 1).
      e.max_reduced_ = rk < 3 ? 2 : 1;
      try {
        e.run();
        ++feasible;
        if (premise && premise->empty() && !e.premise.empty())
          *premise = e.premise[0] + " (at rank " + std::to_string(rk) + ")";
        bound = std::max(bound, bound_of(e));
        // An ill-formed target is "some axis is bad": its witness axis is one more condition, unless
        // the source's assumptions already exclude it (e.g. operands the source made equal).
        if (!ill_witness && !e.tgt_ill.isFalse()) {
          smt::Solver s(200);
          for (const smt::Expr& x : e.assume) s.add(x);
          s.add(e.tgt_ill);
          if (s.check() != smt::Result::Unsat) ill_witness = 1;
          budget.charge(s.units());
        }
      } catch (const Infeasible&) {
      }
    } while (ch.next());
  }
  // Reads and conditions are counted on the configurations above: a rule none of whose configurations
  // is feasible at ranks 1 to 3 (a literal concat axis of 3, rank_is(%x, 4) on a broadcast operand) would
  // count none, and its B would be too small (a red team's rule, wrong only at rank 6, was PROVED FOR ALL
  // SHAPES with B = 5). Such a rule is bounded only.
  if (feasible == 0 && premise && premise->empty())
    *premise = "the rank bound is counted on the configurations at ranks 1 to 3, and none is feasible for "
               "this rule (it needs a larger rank), so its reads were not counted";
  // A transpose's permutations are all the identity below rank 2: check rank 2 so the premise
  // check (every read in place) sees a real permutation.
  bound += ill_witness;
  if (a.has_transpose) bound = std::max(bound, 2);
  bound += static_cast<int>(a.axis_caps.size()) + a.unnamed_axes + a.literal_pins;
  bound += a.witness_axes;
  // rank_is(X, N): X's N axes are kept whole, beside the witnesses counted above. (Taking the larger of
  // N and the count for every rank_is, as before, left no room for contracting axes when a dot_general
  // operand and the root were both fixed at N: a wrong rule's symbolic proof succeeded; found by an
  // audit.) Only the root's rank fixed, without a dot_general: every instance has exactly N output
  // axes, so output rank N (B >= N) is every instance's; a source reduction's reduced axes are not
  // output axes, and are enumerated separately, up to B of them (max_reduced_ = B, allshape.cpp), which
  // covers the one reduced axis per reduction and per witness that a counterexample needs (a review
  // found the earlier wording, "all output axes", wrong for reductions; no verdict depended on it).
  if (a.root_rank_only) bound = std::max(bound, a.root_rank);
  else bound += a.fixed_rank;
  return bound;
}

}  // namespace ptir::allshape::detail
