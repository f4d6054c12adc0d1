// Index maps in the bounded encoder (verify/encode/index_exec.h).
#include "verify/encode/index_exec.h"

#include <algorithm>

namespace ptir::verify::enc {

imap::IndexMap map_of(const OpEnv& env) {
  std::vector<TensorType> ops;
  for (const SymTensor& a : env.args) ops.push_back(a.type);
  std::string error;
  auto m = imap::index_map(env.op(), env.attrs, ops, env.result_types, imap::Sizes::Concrete, &error);
  if (!m) throw EncodeError(error);  // names the op
  return std::move(*m);
}

MapEval::MapEval(const OpEnv& env, const imap::IndexMap& m)
    : env_(env), m_(m), T_(smt::IndexTerms::Mode::BV66), memo_(m.nodes.size()) {}

void MapEval::at(std::span<const int64_t> vars) {
  vars_.assign(vars.begin(), vars.end());
  std::fill(memo_.begin(), memo_.end(), std::nullopt);
}

ITerm MapEval::operator()(imap::ExprId e) { return imap::eval_memo(m_, e, *this, memo_); }

ITerm MapEval::all(const std::vector<imap::ExprId>& when) {
  ITerm r = T_.truth(true);
  for (imap::ExprId e : when) {
    r = T_.and_(r, (*this)(e));
    if (r.is_false()) break;
  }
  return r;
}

ITerm MapEval::var(int k) const {
  if (k < 0 || static_cast<size_t>(k) >= vars_.size()) env_.fail("index map variable out of range");
  return T_.num(vars_[static_cast<size_t>(k)]);
}

ITerm MapEval::dim(int a, int axis) const {
  const TensorType& t = a >= 0 ? env_.args[static_cast<size_t>(a)].type : env_.out(static_cast<size_t>(-1 - a));
  return T_.num(t.dims[static_cast<size_t>(axis)]);
}

ITerm MapEval::attr(const std::string& name, int k, int64_t dflt) const {
  const AttrValue* v = env_.attrs.find(name);
  if (!v || k < 0 || static_cast<size_t>(k) >= v->ints.size()) return T_.num(dflt);
  return T_.num(v->ints[static_cast<size_t>(k)]);
}

ITerm MapEval::read(int operand, std::span<const ITerm> idx) const {
  if (operand < 0 || static_cast<size_t>(operand) >= env_.args.size()) env_.fail("index map reads a missing operand");
  const SymTensor& t = env_.args[static_cast<size_t>(operand)];
  if (!is_integer(t.type.dtype)) env_.fail("index map reads a non-integer operand");
  if (idx.size() != static_cast<size_t>(t.type.rank())) env_.fail("index map reads with the wrong rank");
  int64_t flat = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (!idx[k].known) env_.fail("index map reads at a data-dependent position");
    const int64_t v = *idx[k].known;
    if (v < 0 || v >= t.type.dims[k]) env_.fail("index map reads outside an operand");
    flat = flat * t.type.dims[k] + v;
  }
  return T_.element(t.elems[static_cast<size_t>(flat)], static_cast<unsigned>(dtype_bits(t.type.dtype)),
                    is_signed_int(t.type.dtype));
}

Expr MapEval::pick_rec(int operand, const SymTensor& x, std::vector<ITerm>& comps, std::vector<int64_t>& pos,
                       std::vector<size_t>& sym, size_t n) {
  if (n == 0) return x.elems[static_cast<size_t>(ravel(pos, x.type.dims))];
  // The last symbolic axis is the outermost choice (the dynamic_slice encoding sliced axis 0 first).
  std::vector<int64_t> key{operand, static_cast<int64_t>(n)};
  for (size_t d = 0; d < pos.size(); ++d)
    if (std::find(sym.begin(), sym.begin() + static_cast<std::ptrdiff_t>(n), d) == sym.begin() + static_cast<std::ptrdiff_t>(n))
      key.push_back(pos[d]);
  for (size_t k = 0; k < n; ++k) {
    const ITerm& c = comps[sym[k]];
    key.insert(key.end(), {static_cast<int64_t>(sym[k]), static_cast<int64_t>(c.base.id()), c.sign, c.offset, c.lo, c.hi});
  }
  if (auto it = picks_.find(key); it != picks_.end()) return it->second;
  // Term ids are only unique while the terms live: keep the keyed terms alive with the memo.
  for (size_t k = 0; k < n; ++k) keep_.push_back(comps[sym[k]].base);
  const size_t d = sym[n - 1];
  const int64_t dim = x.type.dims[d];
  const ITerm& c = comps[d];
  int64_t lo = std::max<int64_t>(0, c.lo), hi = std::min<int64_t>(dim - 1, c.hi);
  if (lo > hi) lo = 0, hi = dim - 1;  // no position in range: only on inputs with UB
  Expr r;
  for (int64_t k = hi; k >= lo; --k) {
    pos[d] = k;
    const Expr opt = pick_rec(operand, x, comps, pos, sym, n - 1);
    if (k == hi) {
      r = opt;
      continue;
    }
    const ITerm hit = T_.eq(c, T_.num(k));
    if (hit.is_false()) continue;
    r = hit.is_true() ? opt : Expr::ite(T_.expr(hit), opt, r);
  }
  picks_.emplace(std::move(key), r);
  return r;
}

Expr MapEval::pick(const imap::Access& a) {
  const SymTensor& x = env_.args[static_cast<size_t>(a.operand)];
  std::vector<ITerm> comps;
  for (imap::ExprId e : a.index) comps.push_back((*this)(e));
  if (a.flat) {
    if (!comps[0].known || *comps[0].known < 0 || *comps[0].known >= x.type.num_elements())
      env_.fail("a flat read at a data-dependent or outside position");
    return x.elems[static_cast<size_t>(*comps[0].known)];
  }
  std::vector<int64_t> pos(comps.size(), 0);
  std::vector<size_t> sym;
  for (size_t d = 0; d < comps.size(); ++d) {
    const int64_t dim = x.type.dims[d];
    // A read on an empty axis happens only on inputs with UB (an index check fails) or under a case
    // condition that cannot hold: any value will do.
    if (dim <= 0) return sem::zero(x.type.dtype);
    if (!comps[d].known) sym.push_back(d);
    else pos[d] = *comps[d].known >= 0 && *comps[d].known < dim ? *comps[d].known : dim - 1;
  }
  return pick_rec(a.operand, x, comps, pos, sym, sym.size());
}

std::vector<std::pair<int64_t, Expr>> MapEval::candidates(const std::vector<imap::ExprId>& index,
                                                          const std::vector<int64_t>& dims, const ITerm& when) {
  std::vector<ITerm> comps;
  std::vector<int64_t> lo, hi;
  for (size_t d = 0; d < index.size(); ++d) {
    comps.push_back((*this)(index[d]));
    const ITerm& c = comps.back();
    lo.push_back(std::max<int64_t>(0, c.lo));
    hi.push_back(std::min<int64_t>(dims[d] - 1, c.hi));
    if (lo.back() > hi.back()) return {};
  }
  std::vector<std::pair<int64_t, Expr>> out;
  std::vector<int64_t> span;
  for (size_t d = 0; d < dims.size(); ++d) span.push_back(hi[d] - lo[d] + 1);
  for_points(span, [&](const std::vector<int64_t>& k) {
    ITerm hit = when;
    std::vector<int64_t> q(dims.size());
    for (size_t d = 0; d < dims.size() && !hit.is_false(); ++d) {
      q[d] = lo[d] + k[d];
      hit = T_.and_(hit, T_.eq(comps[d], T_.num(q[d])));
    }
    if (hit.is_false()) return;
    out.emplace_back(ravel(q, dims), T_.expr(hit));
  });
  return out;
}

std::vector<int64_t> extents(const imap::IndexMap& m, const std::vector<imap::ExprId>& space, MapEval& ev) {
  ev.at({});
  std::vector<int64_t> r;
  for (imap::ExprId e : space) {
    const ITerm t = ev(e);
    if (!t.known || *t.known < 0) throw EncodeError(std::string(mnemonic(m.op)) + ": a symbolic or negative extent");
    r.push_back(*t.known);
  }
  return r;
}

void add_checks(OpEnv& env, const imap::IndexMap& m, MapEval& ev) {
  for (const imap::Check& ck : m.checks) {
    const std::vector<int64_t> dims = extents(m, ck.space, ev);
    for_points(dims, [&](const std::vector<int64_t>& p) {
      ev.at(p);
      const ITerm bad = ev(ck.bad);
      if (!bad.is_false()) env.add_ub(ev.terms().expr(bad));
    });
  }
}

Results encode_move(OpEnv& env) {
  const imap::IndexMap m = map_of(env);
  MapEval ev(env, m);
  Expr pad;
  if (m.otherwise == imap::Otherwise::Value) {
    uint64_t value = 0;
    if (const AttrValue* v = env.attrs.find("value")) {
      if (v->lit.dtype() != env.dtype() || v->lit.size() != 1) env.fail("value[...] is not a scalar of the dtype");
      value = v->lit.bits(0);
    }
    pad = sem::constant(env.dtype(), value);
  }
  add_checks(env, m, ev);
  SymTensor out = env.make();
  for_points(extents(m, m.space, ev), [&](const std::vector<int64_t>& o) {
    env.check_stop();
    ev.at(o);
    Expr v = pad;
    if (m.otherwise == imap::Otherwise::Index) {
      const ITerm k = ev(m.index_value);
      if (!k.known) env.fail("a symbolic iota value");
      v = sem::cast(Expr::bv(static_cast<uint64_t>(*k.known), 64), DType::SI64, env.dtype()).simplify();
    }
    // The cases up to the first that surely holds, latest first: v = c0 ? e0 : (c1 ? e1 : ... v).
    std::vector<std::pair<ITerm, size_t>> live;
    for (size_t c = 0; c < m.cases.size(); ++c) {
      const ITerm cond = ev.all(m.cases[c].when);
      if (cond.is_false()) continue;
      live.emplace_back(cond, c);
      if (cond.is_true()) break;
    }
    for (size_t j = live.size(); j-- > 0;) {
      const Expr p = ev.pick(m.cases[live[j].second].reads[0]);
      if (live[j].first.is_true()) v = p;
      else if (!v.valid()) env.fail("no case of the index map holds");
      else v = Expr::ite(ev.terms().expr(live[j].first), p, v);
    }
    if (!v.valid()) env.fail("no case of the index map holds");
    out.elems.push_back(v);
  });
  return {out};
}

}  // namespace ptir::verify::enc
