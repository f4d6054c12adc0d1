// dot_general in the all-shape encoding (verify/allshape/encoder.h, docs/verification.md "Folds:
// dot_general"). The element of a dot at output index i is Fold_D(seq), seq_k the product of the
// operands at contraction coordinate k, in row-major order of k in contract_lhs order. A general fold is
// not decidable as such, so the source's fold is a FRESH value per output index (an over-approximation:
// every real fold is one of its values, so unsat stays a proof), recorded with its product operands
// evaluated at symbolic contraction coordinates k_0..k_{nc-1}. A target fold takes that value only when
// its accumulation and element dtypes are the same, its extents are the same terms and its lhs and rhs
// elements at the SAME coordinates are the same terms (values and UB): then its sequence of products is
// the source's, element for element, for every k in range, and the fold is a function of that sequence.
// Every other target fold is a fresh value with a fresh UB (more target behaviours: a counterexample
// must replay). The coordinates k are axes of the rank argument like the output axes (Enc::read).
#include <numeric>

#include "verify/allshape/encoder.h"
#include "verify/encode/ops.h"

namespace ptir::allshape::detail {

using rules::Node;
using smt::Expr;
using smt::Sort;

namespace {
const char* kBatch[2] = {"batch_lhs", "batch_rhs"};
const char* kContract[2] = {"contract_lhs", "contract_rhs"};

/// Operand index of one side at output index i and contraction coordinates k: batch axes read i_m,
/// contracting axes k_j, the free axes (in increasing order) read the output axes from `free0` on.
std::vector<Expr> side_index(int rank, const std::vector<int64_t>& b, const std::vector<int64_t>& c,
                             const std::vector<Expr>& i, const std::vector<Expr>& k, size_t free0) {
  std::vector<Expr> j(rank);
  std::vector<bool> used(rank, false);
  for (size_t m = 0; m < b.size(); ++m) j[b[m]] = i[m], used[b[m]] = true;
  for (size_t m = 0; m < c.size(); ++m) j[c[m]] = k[m], used[c[m]] = true;
  size_t o = free0;
  for (int a = 0; a < rank; ++a)
    if (!used[a]) j[a] = i[o++];
  return j;
}
}  // namespace

std::vector<int64_t> Enc::dot_list(const Node& n, const std::string& name, int count, int rank,
                                   std::vector<int64_t>& rest) {
  // An ordered choice of `count` distinct axes among those not yet listed (every placement).
  std::vector<int64_t> out;
  for (int m = 0; m < count; ++m) {
    const int k = ch_.choose(static_cast<int>(rest.size()));
    out.push_back(rest[k]);
    rest.erase(rest.begin() + k);
  }
  const rules::AttrExpr* a = node_attr(n, name);
  if (a && a->kind != rules::AttrExpr::Kind::Capture) throw Outside{"dot_general " + name + " not a capture"};
  if (a) {
    auto it = attrs_.find(a->capture);
    if (it == attrs_.end()) attrs_[a->capture] = AttrB{true, out, {}, "", false};
    else if (!it->second.concrete || it->second.is_word || it->second.c != out)
      throw Infeasible{"$" + a->capture + " bound to another list"};
  }
  (void)rank;
  return out;
}

SVal Enc::src_dot(const Node& n, int rank, CNode& cn) {
  if (src_dot_) throw Outside{"two dot_general in the source (one fold's contraction coordinates are axes of the argument)"};
  src_dot_ = true;
  // The split of the root's axes: batch, lhs free, rhs free; then the contracting dims.
  const int nb = ch_.choose(rank + 1);
  const int fl = ch_.choose(rank - nb + 1);
  const int fr = rank - nb - fl;
  const int nc = ch_.choose(std::max(0, max_contract_) + 1);
  const int lr = nb + nc + fl, rr = nb + nc + fr;
  std::vector<int64_t> restl(lr), restr(rr);
  std::iota(restl.begin(), restl.end(), 0);
  std::iota(restr.begin(), restr.end(), 0);
  const std::vector<int64_t> bl = dot_list(n, kBatch[0], nb, lr, restl), cl = dot_list(n, kContract[0], nc, lr, restl);
  const std::vector<int64_t> br = dot_list(n, kBatch[1], nb, rr, restr), cr = dot_list(n, kContract[1], nc, rr, restr);
  // Batch lists written or not (absent is none): a choice where there are no batch dims and the rule
  // does not name them.
  const bool named = node_attr(n, kBatch[0]) || node_attr(n, kBatch[1]);
  // A `has_attr(%d, batch_lhs/batch_rhs)` or its negation decides the choice; a configuration it rejects
  // is not an instance (the constraint is still checked in run()).
  const std::optional<bool> want_batch = attr_required(n.as_name, {kBatch[0], kBatch[1]});
  if (want_batch == false && (named || nb > 0)) throw Infeasible{"constraint has_attr false"};
  const bool written = named || nb > 0 || (want_batch ? *want_batch : ch_.choose(2) == 1);
  // accum: captured (every dtype), a word, or not named (absent, or any dtype).
  const rules::AttrExpr* acc_a = node_attr(n, "accum");
  if (acc_a && acc_a->kind != rules::AttrExpr::Kind::Word && acc_a->kind != rules::AttrExpr::Kind::Capture)
    throw Outside{"dot_general accum given by a helper"};
  SVal l = src(*n.operands[0], lr, std::nullopt);
  SVal r = src(*n.operands[1], rr, TypeV{l.dtype, fresh_dims(rr, "dot.rhs")});
  const DType t = l.dtype;
  if (r.dtype != t || !dtype_valid(OpCode::DotGeneral, t)) throw Infeasible{"dtype"};
  // The accum is chosen once the element dtype is known, among the dtypes the verifier accepts for it
  // (choose_accum): the same configurations as every dtype followed by the check, without encoding
  // both operands for each of the invalid ones.
  int acc_choice = 0;  // 0: no accum attribute
  if (acc_a && attr_required(n.as_name, {"accum"}) == false) throw Infeasible{"constraint has_attr false"};
  if (acc_a && acc_a->kind == rules::AttrExpr::Kind::Word) {
    const std::optional<DType> d = parse_dtype(acc_a->word);
    if (!d) throw Infeasible{"accum word"};
    acc_choice = static_cast<int>(*d) + 1;
  } else if (acc_a) {
    auto it = attrs_.find(acc_a->capture);
    if (it == attrs_.end()) {
      acc_choice = choose_accum(t, /*absent=*/false);
      attrs_[acc_a->capture] = AttrB{true, {}, {}, dtype_name(static_cast<DType>(acc_choice - 1)), true};
    } else {
      // Bound by an operand: that dtype, if it is one.
      const std::optional<DType> d = it->second.is_word ? parse_dtype(it->second.word) : std::nullopt;
      if (!d) throw Infeasible{"accum bound twice"};
      acc_choice = static_cast<int>(*d) + 1;
    }
  } else {
    // `has_attr(%d, accum)` or its negation decides whether there is one.
    const std::optional<bool> want = attr_required(n.as_name, {"accum"});
    acc_choice = want == false ? 0 : choose_accum(t, /*absent=*/!want);
  }
  const DType acc = acc_choice == 0 ? verify::sem::default_accum(t) : static_cast<DType>(acc_choice - 1);
  if (acc_choice != 0 && !accum_valid(t, acc)) throw Infeasible{"dtype"};
  for (int m = 0; m < nb; ++m) assume.push_back(l.dims[bl[m]] == r.dims[br[m]]);
  for (int m = 0; m < nc; ++m) assume.push_back(l.dims[cl[m]] == r.dims[cr[m]]);
  SVal out;
  out.dtype = t;
  for (int m = 0; m < nb; ++m) out.dims.push_back(l.dims[bl[m]]);
  {
    std::vector<bool> used(lr, false);
    for (int64_t a : bl) used[a] = true;
    for (int64_t a : cl) used[a] = true;
    for (int a = 0; a < lr; ++a)
      if (!used[a]) out.dims.push_back(l.dims[a]);
    std::vector<bool> usedr(rr, false);
    for (int64_t a : br) usedr[a] = true;
    for (int64_t a : cr) usedr[a] = true;
    for (int a = 0; a < rr; ++a)
      if (!usedr[a]) out.dims.push_back(r.dims[a]);
  }
  std::vector<Expr> k, extents;
  for (int m = 0; m < nc; ++m) {
    k.push_back(fresh_int("k." + std::to_string(m)));
    extents.push_back(l.dims[cl[m]]);
  }
  kvars_ = k;
  contract_extents = extents;
  if (!n.as_name.empty()) {
    present_[n.as_name] = {{"batch_lhs", written}, {"batch_rhs", written}, {"contract_lhs", true},
                           {"contract_rhs", true}, {"accum", acc_choice != 0}};
    reduce_accum_[n.as_name] = {t, acc_choice != 0, acc};
  }
  // The source root is a governed op: under nsz either zero is accepted there (Enc::run).
  if (&n == r_.source.get()) src_root_governed_ = true;
  auto fold = std::make_shared<smt::Func>("fold.dot." + std::to_string(fresh_++), std::vector<Sort>(rank, Sort::integer()),
                                          verify::sem::sort_of(t));
  const Expr fold0 = Expr::var("fold.dot0." + std::to_string(fresh_++), verify::sem::sort_of(t));
  out.at = [this, l, r, bl, cl, br, cr, lr, rr, nb, fl, k, extents, t, acc, fold, fold0](const std::vector<Expr>& i) {
    const Elem a = l.at(side_index(lr, bl, cl, i, k, nb));
    const Elem b = r.at(side_index(rr, br, cr, i, k, nb + fl));
    const Expr v = i.empty() ? fold0 : (*fold)(i);
    folds_.push_back(FoldRec{k, extents, t, acc, a.v, b.v, a.ub, b.ub, v});
    // The fold's own UB (nnan/ninf) is left out: fewer source UBs, more counterexamples (sound).
    return Elem{v, Expr::boolean(false)};
  };
  if (written) cn.cints.push_back({"batch_lhs", bl}), cn.cints.push_back({"batch_rhs", br});
  cn.cints.push_back({"contract_lhs", cl});
  cn.cints.push_back({"contract_rhs", cr});
  if (acc_choice != 0) cn.cints.push_back({"accum", {static_cast<int64_t>(acc)}});
  cn.operands.push_back(l.cnode);
  cn.operands.push_back(r.cnode);
  return out;
}

SVal Enc::tgt_dot(const Node& n, const std::optional<TypeV>& given) {
  if (!given) throw Outside{"a dot_general in the result without its type (the root's, or ': $T')"};
  if (!tgt_full_)
    throw Outside{"a target dot_general under slice/tile/broadcast_to: its unread elements' UB would not be checked"};
  // A dot reads no element of its operands when its output is empty (or, for one side, when the other
  // side has an empty free or batch axis): its operands are not read in full, so an operand that can be
  // UB is outside the fragment, as under slice/tile/broadcast_to. (Evaluated in full, `div(%w, %w)` as
  // the lhs of a dot with an empty output was proved: its UB was checked only through output elements.)
  SVal l, r;
  {
    NotFull nf(tgt_full_);
    l = tgt(*n.operands[0], nullptr, false);
    r = tgt(*n.operands[1], nullptr, false);
  }
  auto list = [&](const char* name, bool optional) -> std::vector<int64_t> {
    if (!node_attr(n, name)) {
      if (optional) return {};
      throw Outside{std::string("dot_general without ") + name};
    }
    return concrete_attr(n, name);  // a capture, a literal, or a helper's value (Infeasible: it does not apply)
  };
  const std::vector<int64_t> bl = list(kBatch[0], true), br = list(kBatch[1], true);
  const std::vector<int64_t> cl = list(kContract[0], false), cr = list(kContract[1], false);
  std::optional<DType> acc_given;
  if (const rules::AttrExpr* a = node_attr(n, "accum")) {
    std::string w = a->word;
    if (a->kind == rules::AttrExpr::Kind::Capture) {
      auto it = attrs_.find(a->capture);
      if (it == attrs_.end() || !it->second.is_word) throw Outside{"$" + a->capture + " is not an accum dtype"};
      w = it->second.word;
    } else if (a->kind != rules::AttrExpr::Kind::Word) {
      throw Outside{"dot_general accum given by a helper"};
    }
    acc_given = parse_dtype(w);
    if (!acc_given) return ill_value(*given);
  }
  // The verifier's rules (ir/verify/dot.cpp): otherwise the built instruction is rejected (ill-formed).
  const DType t = l.dtype;
  const int lr = static_cast<int>(l.dims.size()), rr = static_cast<int>(r.dims.size());
  if (r.dtype != t || !dtype_valid(OpCode::DotGeneral, t) || (acc_given && !accum_valid(t, *acc_given)) ||
      bl.size() != br.size() || cl.size() != cr.size())
    return ill_value(*given);
  auto side_ok = [](const std::vector<int64_t>& b, const std::vector<int64_t>& c, int rk, std::vector<bool>& used) {
    used.assign(rk, false);
    for (const auto* v : {&b, &c})
      for (int64_t a : *v) {
        if (a < 0 || a >= rk || used[a]) return false;
        used[a] = true;
      }
    return true;
  };
  std::vector<bool> usedl, usedr;
  if (!side_ok(bl, cl, lr, usedl) || !side_ok(br, cr, rr, usedr)) return ill_value(*given);
  std::vector<Expr> dims;
  for (int64_t a : bl) dims.push_back(l.dims[a]);
  const size_t nb = bl.size();
  size_t fl = 0;
  for (int a = 0; a < lr; ++a)
    if (!usedl[a]) dims.push_back(l.dims[a]), ++fl;
  for (int a = 0; a < rr; ++a)
    if (!usedr[a]) dims.push_back(r.dims[a]);
  if (given->first != t || given->second.size() != dims.size()) return ill_value(*given);
  // Sizes that must agree: a pair that is the same term, or whose equality the source assumed (the
  // same terms), cannot differ; the rest is ill-formed where they do.
  auto must_equal = [&](const Expr& a, const Expr& b) {
    if (a.same(b)) return;
    // Built once (== orders its operands: a == b and b == a are one term).
    const Expr eq = a == b;
    for (const Expr& x : assume)
      if (x.same(eq)) return;
    tgt_ill = tgt_ill || !eq;
  };
  for (size_t m = 0; m < bl.size(); ++m) must_equal(l.dims[bl[m]], r.dims[br[m]]);
  for (size_t m = 0; m < cl.size(); ++m) must_equal(l.dims[cl[m]], r.dims[cr[m]]);
  for (size_t m = 0; m < dims.size(); ++m) must_equal(dims[m], given->second[m]);
  const DType acc = acc_given ? *acc_given : verify::sem::default_accum(t);
  std::vector<Expr> extents;
  for (int64_t a : cl) extents.push_back(l.dims[a]);
  SVal out;
  out.dtype = t;
  out.dims = given->second;
  const int tag = fresh_++;
  const Sort es = verify::sem::sort_of(t);
  auto fresh_v = std::make_shared<smt::Func>("fold.tdot." + std::to_string(tag), std::vector<Sort>(idx_.size(), Sort::integer()), es);
  auto fresh_u = std::make_shared<smt::Func>("fold.tdot.ub." + std::to_string(tag),
                                             std::vector<Sort>(idx_.size(), Sort::integer()), Sort::boolean());
  out.at = [this, l, r, bl, cl, br, cr, lr, rr, nb, fl, extents, t, acc, tag, fresh_v, fresh_u](const std::vector<Expr>& i) {
    std::optional<Expr> v;
    for (size_t f = 0; f < folds_.size() && !v; ++f) {
      const FoldRec rec = folds_[f];  // a copy: evaluating the operands below may record more folds
      if (rec.k.size() != extents.size() || rec.elem != t || rec.acc != acc) continue;
      bool same = true;
      for (size_t m = 0; same && m < extents.size(); ++m) same = extents[m].same(rec.extents[m]);
      if (!same) continue;
      const Elem a = l.at(side_index(lr, bl, cl, i, rec.k, nb));
      const Elem b = r.at(side_index(rr, br, cr, i, rec.k, nb + fl));
      if (a.v.same(rec.lv) && b.v.same(rec.rv) && a.ub.same(rec.lub) && b.ub.same(rec.rub)) v = rec.value;
    }
    if (!v) {
      // No source fold with this sequence of products: any value, any UB (more target behaviours).
      ++fold_mismatch;
      const Expr fv = i.empty() ? Expr::var("fold.tdot0." + std::to_string(tag), verify::sem::sort_of(t)) : (*fresh_v)(i);
      const Expr fu = i.empty() ? Expr::var("fold.tdot0.ub." + std::to_string(tag), Sort::boolean()) : (*fresh_u)(i);
      return Elem{fv, fu};
    }
    // The same products in the same order: the source's fold, and its UB is the source's (fast-math UB
    // on the same elements and result; operand UB the same terms), which a counterexample excludes.
    Expr res = *v;
    if (is_float(t)) {  // nsz: the target's zero result may take either sign
      smt::Func sign("nsz.t" + std::to_string(tag), std::vector<Sort>(idx_.size(), Sort::integer()), Sort::boolean());
      const Expr s = idx_.empty() ? Expr::var("nsz.t" + std::to_string(tag), Sort::boolean()) : sign(idx_);
      const smt::FPFormat ff = verify::sem::fp_format(t);
      res = Expr::ite(nsz_ && res.isZero(), Expr::ite(s, Expr::zero(ff, true), Expr::zero(ff, false)), res);
    }
    return Elem{res, Expr::boolean(false)};
  };
  return out;
}

}  // namespace ptir::allshape::detail
