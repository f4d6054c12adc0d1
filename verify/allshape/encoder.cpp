// The encoder's shared part (verify/allshape/encoder.h): the symbolic index and the function's flags,
// what run() compares, the element semantics of elementwise ops (verify/encode/scalar.h, shared with
// the bounded encoding), the read premise of the rank argument, and the shape ops on symbolic tensors
// both sides use.
#include <algorithm>
#include <set>

#include "rewriter/rules/natives.h"
#include "verify/allshape/encoder.h"
#include "verify/encode/ops.h"
#include "verify/encode/transcendental.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {

using rules::Node;
using smt::Expr;
using smt::Sort;

Enc::Enc(const rules::Rule& r, const RuleFacts& f, int rank, Chooser& choose, int forced_flags)
    : r_(r), f_(f), rank_(rank), ch_(choose), fm_(FastMath{r.assumes}), forced_flags_(forced_flags) {
  for (int k = 0; k < rank; ++k) idx_.push_back(Expr::var("i!" + std::to_string(k), Sort::integer()));
  // A rule fires in every function whose flags include its assumptions: nnan, ninf and nsz beyond
  // them are free Booleans of the query (one query covers every combination); reassoc is handled
  // apart (prove_all_shapes: scope and gate).
  auto flag = [&](FastMathFlag f, const char* name) {
    if (fm_.has(f)) return Expr::boolean(true);
    if (forced_flags_ >= 0) return Expr::boolean((forced_flags_ >> static_cast<int>(f)) & 1);
    return Expr::var(std::string("flag.") + name, Sort::boolean());
  };
  nnan_ = flag(FastMathFlag::NNaN, "nnan");
  ninf_ = flag(FastMathFlag::NInf, "ninf");
  nsz_ = flag(FastMathFlag::NSZ, "nsz");
}

void Enc::run() {
  tgt_ill = Expr::boolean(false);
  SVal s = src(*r_.source, rank_, std::nullopt);
  root = s.cnode;
  root_dtype = s.dtype;
  root_type_ = {s.dtype, s.dims};
  for (const rules::Constraint& c : r_.where) constraint(c);
  SVal t = tgt(*r_.result, &root_type_, true);
  if (t.dtype != s.dtype || t.dims.size() != s.dims.size()) throw Infeasible{"result type differs from the root's"};
  std::vector<Expr> same;
  for (size_t k = 0; k < s.dims.size(); ++k) same.push_back(t.dims[k] == s.dims[k]);
  // The rule applies only when the result's type equals the root's (docs/rules.md "Applying").
  assume.push_back(Expr::all(same));
  // The index is in bounds only for the element comparison: an ill-formed target is a counterexample
  // for an empty root too (prove_all_shapes' `bad`; the engine proved a rule whose constraints force an
  // empty root and whose result builds a concat of the wrong size: the prover fuzzer).
  std::vector<Expr> bounds;
  for (size_t k = 0; k < idx_.size(); ++k) bounds.push_back(Expr::intVal(0).ile(idx_[k]) && idx_[k].ilt(s.dims[k]));
  in_bounds = Expr::all(bounds);
  Elem a = s.at(idx_), b = t.at(idx_);
  src_ub = a.ub;
  tgt_ub = b.ub;
  Expr eq = a.v == b.v;
  // nsz: a zero result of the source root may have either sign (docs/semantics.md "Fast-math flags").
  if (src_root_governed_ && is_float(s.dtype)) eq = eq || (nsz_ && a.v.isZero() && b.v.isZero());
  differ = !eq;
}

DType Enc::choose_dtype_of(const std::string& key) {
  // The constraints tie slots transitively (same_type(%a, $T), same_type(%b, $T): %a and %b too).
  std::vector<std::string> todo{key};
  std::set<std::string> seen{key};
  while (!todo.empty()) {
    const std::string k = todo.back();
    todo.pop_back();
    for (auto it = f_.same_dtype.lower_bound({k, ""}); it != f_.same_dtype.end() && it->first == k; ++it) {
      const std::string& o = it->second;
      if (o[0] == '%') {
        if (auto v = vals_.find(o.substr(1)); v != vals_.end()) return v->second.dtype;
      } else if (auto t = types_.find(o.substr(1)); t != types_.end()) {
        return t->second.first;
      }
      if (seen.insert(o).second) todo.push_back(o);
    }
  }
  return choose_dtype();
}

std::optional<bool> Enc::attr_required(const std::string& value, std::initializer_list<const char*> attrs) const {
  if (value.empty()) return std::nullopt;
  std::optional<bool> want;
  for (const rules::Constraint& c : r_.where) {
    if (c.cond || c.pred != "has_attr" || c.args.size() != 2 || c.args[0].name != value) continue;
    if (std::find(attrs.begin(), attrs.end(), c.args[1].name) == attrs.end()) continue;
    if (want && *want != !c.negated) return std::nullopt;
    want = !c.negated;
  }
  return want;
}

int Enc::choose_accum(DType elem, bool absent) {
  int valid[kNumDTypes], n = 0;
  for (int d = 0; d < kNumDTypes; ++d)
    if (accum_valid(elem, static_cast<DType>(d))) valid[n++] = d;
  if (n == 0 && !absent) throw Infeasible{"no accumulation dtype"};
  const int k = ch_.choose(n + (absent ? 1 : 0));
  if (absent) return k == 0 ? 0 : valid[k - 1] + 1;
  return valid[k] + 1;
}

Expr Enc::fresh_int(const std::string& what) {
  return Expr::var(what + "!" + std::to_string(fresh_++), Sort::integer());
}

std::vector<Expr> Enc::fresh_dims(int rank, const std::string& what) {
  std::vector<Expr> d;
  for (int k = 0; k < rank; ++k) {
    d.push_back(fresh_int("n." + what + "." + std::to_string(k)));
    assume.push_back(Expr::intVal(0).ile(d.back()));
  }
  dim_log.push_back({what, d});
  return d;
}

void Enc::read(const std::string& cap, const std::vector<Expr>& idx) {
  std::string key;
  const std::string what = cap[0] == '$' ? "const(" + cap + ")" : "%" + cap;  // a tensor literal: "$c"
  // Premise of the rank argument: each component of a read depends on at most one output axis, no
  // two components on the same one, and every read of a capture maps its axes to the same output
  // axes (transposes and broadcasts included): dropping an output axis then drops the same input
  // axis from every read.
  // The source fold's contraction coordinates are axes of the argument too (encode_dot.cpp): numbered
  // after the output axes.
  std::vector<Expr> axes = idx_;
  axes.insert(axes.end(), kvars_.begin(), kvars_.end());
  std::vector<int> map(idx.size(), -1);
  std::set<int> used;
  for (size_t k = 0; k < idx.size(); ++k) {
    const Expr s = idx[k].simplifyMemo();
    key += std::to_string(s.id()) + ";";  // Z3 terms are hash-consed: one id per simplified term
    const std::vector<unsigned> consts = s.constants();  // sorted
    for (size_t j = 0; j < axes.size(); ++j) {
      if (!std::binary_search(consts.begin(), consts.end(), axes[j].id())) continue;
      if (map[k] != -1)
        premise.push_back("a read of " + what + " takes its axis " + std::to_string(k) + " from two output axes");
      map[k] = static_cast<int>(j);
    }
    if (map[k] != -1 && !used.insert(map[k]).second)
      premise.push_back("a read of " + what + " takes two axes from output axis " + std::to_string(map[k]));
  }
  auto it = axis_map_.find(cap);
  if (it == axis_map_.end()) axis_map_.emplace(cap, map);
  else
    for (size_t k = 0; k < map.size(); ++k)
      if (map[k] != -1 && it->second[k] != -1 && map[k] != it->second[k])
        premise.push_back("two reads of " + what + " take its axis " + std::to_string(k) + " from output axes " +
                          std::to_string(it->second[k]) + " and " + std::to_string(map[k]));
  reads[cap].insert(key);
}

uint8_t Enc::flags_in(const smt::Model& m) const {
  uint8_t b = 0;
  if (m.eval(nnan_).isTrue()) b |= rules::kNNaN;
  if (m.eval(ninf_).isTrue()) b |= rules::kNInf;
  if (m.eval(nsz_).isTrue()) b |= rules::kNSZ;
  return static_cast<uint8_t>(b | (r_.assumes & (rules::kReassoc | rules::kContract | rules::kAFn)));
}

void Enc::bind_type(const std::string& name, DType d, const std::vector<Expr>& dims) {
  if (name.empty()) return;
  auto it = types_.find(name);
  if (it == types_.end()) {
    types_.emplace(name, std::make_pair(d, dims));
    return;
  }
  if (it->second.first != d || it->second.second.size() != dims.size()) throw Infeasible{"$" + name + " bound twice"};
  for (size_t k = 0; k < dims.size(); ++k) assume.push_back(it->second.second[k] == dims[k]);
}

Expr Enc::fm_ub(OpCode op, std::span<const Elem> args, std::span<const DType> arg_dtypes, const Expr& res,
               DType rd) const {
  Expr ub = Expr::boolean(false);
  if (!fastmath_governs(op)) return ub;
  auto chk = [&](const Expr& x, DType d) {
    if (!is_float(d)) return;
    ub = ub || (nnan_ && x.isNaN()) || (ninf_ && x.isInf());
  };
  for (size_t k = 0; k < args.size(); ++k) chk(args[k].v, arg_dtypes[k]);
  chk(res, rd);
  return ub;
}

Elem Enc::elementwise(OpCode op, std::span<const Elem> a, DType t, DType to, const std::string& dir, Side side,
                      int node_tag) {
  Expr ub = Expr::boolean(false);
  for (const Elem& e : a) ub = ub || e.ub;
  Expr v;
  switch (op) {
    case OpCode::Neg: v = verify::sem::neg(a[0].v, t); break;
    case OpCode::Abs: v = verify::sem::abs(a[0].v, t); break;
    case OpCode::Add:
      v = is_float(t) && a[0].v.same(a[1].v) ? verify::sem::mul(a[0].v, verify::sem::integer(t, 2), t)
                                              : verify::sem::add(a[0].v, a[1].v, t);
      break;
    // Exact IEEE identities, so that both sides of a rule meet as one term instead of two circuits
    // Z3 must bit-blast against each other: x - y = x + (-y) (IEEE 754 defines subtraction so, zero
    // signs included: +0 - +0 = +0 + -0 = +0 under round-to-nearest), x + x = x * 2 (one rounding
    // of the same real value), and integer x / -1 = -x (two's complement wraps MIN to MIN; the
    // MIN / -1 UB is kept from sem::div).
    case OpCode::Sub:
      v = is_float(t) ? verify::sem::add(a[0].v, -a[1].v, t) : verify::sem::sub(a[0].v, a[1].v, t);
      break;
    case OpCode::Mul: v = verify::sem::mul(a[0].v, a[1].v, t); break;
    case OpCode::Div: {
      verify::sem::Value q = verify::sem::div(a[0].v, a[1].v, t);
      v = q.v;
      if (is_integer(t) && is_signed_int(t) && a[1].v.numeral() == (bits_mask(t))) v = -a[0].v;
      ub = ub || q.ub;
      break;
    }
    case OpCode::Maximum: v = verify::sem::maximum(a[0].v, a[1].v, t); break;
    case OpCode::Minimum: v = verify::sem::minimum(a[0].v, a[1].v, t); break;
    case OpCode::Sqrt:
      if (!is_float(t)) throw Infeasible{"sqrt of an integer"};
      v = a[0].v.sqrt();
      break;
    case OpCode::Reciprocal:
      if (!is_float(t)) throw Infeasible{"reciprocal of an integer"};
      v = verify::sem::integer(t, 1) / a[0].v;
      break;
    case OpCode::StopGradient: v = a[0].v; break;
    case OpCode::Compare:
      v = verify::sem::compare(dir, a[0].v, a[1].v, t);
      if (!v.valid()) throw Infeasible{"unknown dir"};
      break;
    case OpCode::Select: v = Expr::ite(a[0].v, a[1].v, a[2].v); break;
    case OpCode::Cast: v = verify::sem::cast(a[0].v, t, to); break;
    case OpCode::Exp: case OpCode::Log: case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt: {
      if (!is_float(t)) throw Infeasible{"transcendental of an integer"};
      v = op == OpCode::Rsqrt ? verify::transc::rsqrt(a[0].v, t)
                              : verify::enc::apply_uf(verify::transc::uf_name(op, t), {&a[0].v, 1}, verify::sem::sort_of(t));
      break;
    }
    default: throw Outside{std::string(mnemonic(op)) + ": no all-shape element encoding"};
  }
  const DType rd = op == OpCode::Compare ? DType::I1 : op == OpCode::Cast ? to : t;
  std::vector<DType> adt;
  for (size_t k = 0; k < a.size(); ++k) adt.push_back(op == OpCode::Select && k == 0 ? DType::I1 : t);
  ub = ub || fm_ub(op, a, adt, v, rd);
  if (side == Side::Tgt && fastmath_governs(op) && is_float(rd)) {
    // The target's zero results may take either sign: the choice is the counterexample's.
    smt::Func sign("nsz.t" + std::to_string(node_tag), std::vector<Sort>(idx_.size(), Sort::integer()), Sort::boolean());
    const Expr s = idx_.empty() ? Expr::var("nsz.t" + std::to_string(node_tag), Sort::boolean()) : sign(idx_);
    const smt::FPFormat f = verify::sem::fp_format(rd);
    v = Expr::ite(nsz_ && v.isZero(), Expr::ite(s, Expr::zero(f, true), Expr::zero(f, false)), v);
  }
  return {v, ub};
}

SVal Enc::splat_val(const rules::Number& num, DType d, const std::vector<Expr>& dims) {
  auto bits = rules::number_bits(d, num.value, num.is_float);
  if (!bits) throw Infeasible{"splat not representable"};
  const Expr v = verify::sem::constant(d, *bits);
  SVal s;
  s.dtype = d, s.dims = dims;
  s.at = [v](const std::vector<Expr>&) { return Elem{v, Expr::boolean(false)}; };
  return s;
}

const rules::AttrExpr* Enc::node_attr(const Node& n, const std::string& name) {
  for (const auto& a : n.attrs)
    if (a.name == name) return &a;
  return nullptr;
}

SVal Enc::transpose(const SVal& x, const std::vector<int64_t>& p) {
  SVal o;
  o.dtype = x.dtype;
  for (int64_t a : p) o.dims.push_back(x.dims[a]);
  o.at = [x, p](const std::vector<Expr>& i) {
    std::vector<Expr> j(p.size());
    for (size_t k = 0; k < p.size(); ++k) j[p[k]] = i[k];
    return x.at(j);
  };
  return o;
}

SVal Enc::broadcast(const SVal& x, const std::vector<Expr>& dims, bool src) {
  SVal o;
  o.dtype = x.dtype;
  o.dims = dims;
  if (x.dims.size() > dims.size()) throw Infeasible{"broadcast rank"};
  const size_t off = dims.size() - x.dims.size();
  std::vector<Expr> ok;
  for (size_t k = 0; k < x.dims.size(); ++k) ok.push_back(x.dims[k] == Expr::intVal(1) || x.dims[k] == dims[k + off]);
  if (src) assume.push_back(Expr::all(ok));
  else tgt_ill = tgt_ill || !Expr::all(ok);
  o.at = [x, off](const std::vector<Expr>& i) {
    std::vector<Expr> j;
    for (size_t k = 0; k < x.dims.size(); ++k)
      j.push_back(Expr::ite(x.dims[k] == Expr::intVal(1), Expr::intVal(0), i[k + off]));
    return x.at(j);
  };
  return o;
}

int64_t Enc::concat_axis(const Node& n, int rank) {
  const rules::AttrExpr* a = node_attr(n, "axis");
  int64_t axis = -1;
  if (a && a->kind == rules::AttrExpr::Kind::Ints && a->ints.size() == 1) axis = a->ints[0];
  else if (a && a->kind == rules::AttrExpr::Kind::Capture && attrs_.count(a->capture) && attrs_[a->capture].concrete &&
           attrs_[a->capture].c.size() == 1)
    axis = attrs_[a->capture].c[0];
  else if (a && a->kind != rules::AttrExpr::Kind::Capture) throw Outside{"concat axis given by a helper"};
  else if (in_source_) axis = rank == 0 ? -1 : ch_.choose(rank);
  else throw Outside{"target concat without a known axis"};
  if (a && a->kind == rules::AttrExpr::Kind::Capture && !attrs_.count(a->capture))
    attrs_[a->capture] = AttrB{true, {axis}, {}, "", false};
  if (rank == 0 || axis < 0 || axis >= rank) throw Infeasible{"concat axis"};
  return axis;
}

SVal Enc::concat(const std::vector<SVal>& xs, int64_t axis, bool src) {
  SVal o;
  o.dtype = xs[0].dtype;
  o.dims = xs[0].dims;
  Expr total = Expr::intVal(0);
  std::vector<Expr> offsets;
  for (const SVal& x : xs) {
    if (x.dtype != o.dtype || x.dims.size() != o.dims.size()) throw Infeasible{"concat operand types"};
    for (size_t d = 0; d < o.dims.size(); ++d) {
      if (static_cast<int64_t>(d) == axis) continue;
      if (src) assume.push_back(x.dims[d] == o.dims[d]);
      else tgt_ill = tgt_ill || x.dims[d] != o.dims[d];
    }
    offsets.push_back(total);
    total = total.iadd(x.dims[axis]);
  }
  o.dims[axis] = total;
  o.at = [xs, offsets, axis](const std::vector<Expr>& i) {
    auto shifted = [&](size_t k) {
      std::vector<Expr> j = i;
      j[axis] = i[axis].isub(offsets[k]);
      return xs[k].at(j);
    };
    Elem r = shifted(xs.size() - 1);
    for (size_t k = xs.size() - 1; k-- > 0;) {
      const Expr c = i[axis].ilt(offsets[k + 1]);
      Elem e = shifted(k);
      r = Elem{Expr::ite(c, e.v, r.v), Expr::ite(c, e.ub, r.ub)};
    }
    return r;
  };
  return o;
}

SVal Enc::slice(const SVal& x, const std::vector<Expr>& starts, const std::vector<Expr>& dims) {
  SVal o;
  o.dtype = x.dtype;
  o.dims = dims;
  o.at = [x, starts](const std::vector<Expr>& i) {
    std::vector<Expr> j;
    for (size_t k = 0; k < i.size(); ++k) j.push_back(starts[k].iadd(i[k]));
    return x.at(j);
  };
  return o;
}

SVal Enc::tile(const SVal& x, const std::vector<Expr>& reps) {
  SVal o;
  o.dtype = x.dtype;
  for (size_t k = 0; k < reps.size(); ++k) o.dims.push_back(x.dims[k].imul(reps[k]));
  o.at = [x](const std::vector<Expr>& i) {
    std::vector<Expr> j;
    for (size_t k = 0; k < i.size(); ++k) j.push_back(i[k].imod(x.dims[k]));
    return x.at(j);
  };
  return o;
}

Expr pow2_exact(const Expr& c) { return smt::pow2_with_exact_reciprocal(c); }

}  // namespace ptir::allshape::detail
