// The loops the interpreter derives from an op's index map (ir/interp/index_exec.h).
#include "ir/interp/index_exec.h"

#include <algorithm>
#include <map>

#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

using imap::ExprId;
using imap::Node;
using imap::Op;

/// int64 evaluation without a memo (maps are small trees; no allocation per point).
int64_t eval64(const MapRun& r, ExprId e, const int64_t* vars, size_t nvars) {
  const Node& n = r.m->node(e);
  auto x = [&](int32_t c) { return eval64(r, c, vars, nvars); };
  switch (n.op) {
    case Op::Const: return n.v;
    case Op::Var: return static_cast<size_t>(n.a) < nvars ? vars[n.a] : 0;
    case Op::Dim: return r.domain().dim(n.a, n.b);
    case Op::Attr: return r.domain().attr(r.m->names[static_cast<size_t>(n.a)], n.b, n.v);
    case Op::Read: {
      if (n.a < 0 || static_cast<size_t>(n.a) >= r.operands.size() || !r.operands[static_cast<size_t>(n.a)]) return 0;
      const Tensor& t = *r.operands[static_cast<size_t>(n.a)];
      if (n.args.size() != static_cast<size_t>(t.type.rank())) return 0;
      int64_t flat = 0;
      for (size_t k = 0; k < n.args.size(); ++k) {
        const int64_t v = x(n.args[k]);
        if (v < 0 || v >= t.type.dims[k]) return 0;
        flat = flat * t.type.dims[k] + v;
      }
      return imap::index_element(t, flat);
    }
    case Op::Add: return imap::wrap_add(x(n.a), x(n.b));
    case Op::Sub: return imap::wrap_sub(x(n.a), x(n.b));
    case Op::Mul: return imap::wrap_mul(x(n.a), x(n.b));
    case Op::FloorDiv: return imap::floor_div(x(n.a), x(n.b));
    case Op::Mod: return imap::floor_mod(x(n.a), x(n.b));
    case Op::Min: return std::min(x(n.a), x(n.b));
    case Op::Max: return std::max(x(n.a), x(n.b));
    case Op::Clamp: {
      const int64_t v = x(n.a), lo = x(n.b), hi = x(n.c);
      return v < lo ? lo : (hi < v ? hi : v);
    }
    case Op::Lt: return x(n.a) < x(n.b);
    case Op::Le: return x(n.a) <= x(n.b);
    case Op::Eq: return x(n.a) == x(n.b);
    case Op::Ne: return x(n.a) != x(n.b);
    case Op::And: return x(n.a) != 0 && x(n.b) != 0;
    case Op::Or: return x(n.a) != 0 || x(n.b) != 0;
    case Op::Not: return x(n.a) == 0;
    case Op::Select: return x(n.a) != 0 ? x(n.b) : x(n.c);
  }
  return 0;
}

/// The affine domain: c + sum coef[k] * var_k, or not affine.
struct AffineDomain {
  struct Val {
    bool ok = true;
    int64_t c = 0;
    Coefs coef;
    bool constant() const {
      return ok && std::all_of(coef.begin(), coef.end(), [](int64_t v) { return v == 0; });
    }
  };
  const MapRun& run;
  size_t nvars;

  Val konst(int64_t v) const { return Val{true, v, Coefs(nvars, 0)}; }
  Val bad() const { return Val{false, 0, {}}; }
  Val var(int k) const {
    Val r = konst(0);
    if (static_cast<size_t>(k) >= nvars) return bad();
    r.coef[static_cast<size_t>(k)] = 1;
    return r;
  }
  Val dim(int, int) const { return bad(); }  // Sizes::Concrete maps have none
  Val attr(const std::string&, int, int64_t) const { return bad(); }
  Val read(int operand, std::span<const Val> idx) const {
    boost::container::small_vector<int64_t, 8> at;
    for (const Val& v : idx) {
      if (!v.constant()) return bad();
      at.push_back(v.c);
    }
    return konst(run.domain().read(operand, std::span<const int64_t>(at.data(), at.size())));
  }
  template <typename F>
  Val lift(const Val& a, const Val& b, F f) const {
    if (!a.constant() || !b.constant()) return bad();
    return konst(f(a.c, b.c));
  }
  Val add(const Val& a, const Val& b) const {
    if (!a.ok || !b.ok) return bad();
    Val r = a;
    r.c = imap::wrap_add(r.c, b.c);
    for (size_t k = 0; k < nvars; ++k) r.coef[k] = imap::wrap_add(r.coef[k], b.coef[k]);
    return r;
  }
  Val sub(const Val& a, const Val& b) const {
    if (!a.ok || !b.ok) return bad();
    Val r = a;
    r.c = imap::wrap_sub(r.c, b.c);
    for (size_t k = 0; k < nvars; ++k) r.coef[k] = imap::wrap_sub(r.coef[k], b.coef[k]);
    return r;
  }
  Val mul(const Val& a, const Val& b) const {
    if (!a.ok || !b.ok) return bad();
    if (!a.constant() && !b.constant()) return bad();
    const Val& s = a.constant() ? b : a;
    const int64_t k = a.constant() ? a.c : b.c;
    Val r = s;
    r.c = imap::wrap_mul(r.c, k);
    for (int64_t& v : r.coef) v = imap::wrap_mul(v, k);
    return r;
  }
  Val floordiv(const Val& a, const Val& b) const { return lift(a, b, imap::floor_div); }
  Val mod(const Val& a, const Val& b) const { return lift(a, b, imap::floor_mod); }
  Val min(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) { return std::min(x, y); }); }
  Val max(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) { return std::max(x, y); }); }
  Val clamp(const Val& x, const Val& lo, const Val& hi) const {
    if (!x.constant() || !lo.constant() || !hi.constant()) return bad();
    return konst(x.c < lo.c ? lo.c : (hi.c < x.c ? hi.c : x.c));
  }
  Val lt(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) -> int64_t { return x < y; }); }
  Val le(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) -> int64_t { return x <= y; }); }
  Val eq(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) -> int64_t { return x == y; }); }
  Val ne(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) -> int64_t { return x != y; }); }
  Val and_(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) -> int64_t { return x && y; }); }
  Val or_(const Val& a, const Val& b) const { return lift(a, b, [](int64_t x, int64_t y) -> int64_t { return x || y; }); }
  Val not_(const Val& a) const { return a.constant() ? konst(a.c == 0) : bad(); }
  Val select(const Val& c, const Val& t, const Val& e) const {
    if (!c.constant()) return bad();
    return c.c ? t : e;
  }
};

}  // namespace

int64_t MapRun::eval(imap::ExprId e, std::span<const int64_t> vars) const {
  return eval64(*this, e, vars.data(), vars.size());
}

namespace {

/// Per node: whether its value depends on an operand's elements (a Read below it). Children come
/// before their parents (as imap::var_deps relies on).
std::vector<bool> reads_of(const imap::IndexMap& m) {
  std::vector<bool> r(m.nodes.size(), false);
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const Node& n = m.nodes[i];
    const auto at = [&](int32_t k) { return r[static_cast<size_t>(k)]; };
    switch (n.op) {
      case Op::Const: case Op::Var: case Op::Dim: case Op::Attr: break;
      case Op::Read: r[i] = true; break;
      case Op::Not: r[i] = at(n.a); break;
      case Op::Clamp: case Op::Select: r[i] = at(n.a) || at(n.b) || at(n.c); break;
      default: r[i] = at(n.a) || at(n.b); break;  // binary ops
    }
  }
  return r;
}

/// Whether `memo` was made for this call: its op, attributes and types (so a stale memo is never used).
bool memo_fits(const MapMemo& memo, const Call& c, const Out& out) {
  if (memo.op != c.op || memo.operand_types.size() != c.args.size() ||
      memo.result_types.size() != out.size())
    return false;
  for (size_t k = 0; k < c.args.size(); ++k)
    if (memo.operand_types[k] != c.args[k].type) return false;
  for (size_t k = 0; k < out.size(); ++k)
    if (memo.result_types[k] != out[k].type) return false;
  return memo.attrs == c.attrs;
}

std::shared_ptr<const imap::IndexMap> build_map(const Call& c, std::span<const TensorType> operand_types,
                                                std::span<const TensorType> result_types, std::string& error) {
  if (IndexMapCache* cache = options(c.exec).index_maps)
    return cache->get(c.op, c.attrs, operand_types, result_types, &error);
  auto m = imap::index_map(c.op, c.attrs, operand_types, result_types, imap::Sizes::Concrete, &error);
  if (!m) return nullptr;
  return std::make_shared<const imap::IndexMap>(std::move(*m));
}

}  // namespace

std::shared_ptr<MapMemo> make_memo(OpCode op, const AttrSet& attrs, std::span<const TensorType> operand_types,
                                   std::span<const TensorType> result_types,
                                   std::shared_ptr<const imap::IndexMap> map) {
  auto memo = std::make_shared<MapMemo>();
  memo->op = op;
  memo->attrs = attrs;
  memo->operand_types.assign(operand_types.begin(), operand_types.end());
  memo->result_types.assign(result_types.begin(), result_types.end());
  memo->map = std::move(map);
  memo->reads_data = false;
  for (const Node& n : memo->map->nodes) memo->reads_data = memo->reads_data || n.op == Op::Read;
  if (memo->reads_data) {
    const std::vector<bool> reads = reads_of(*memo->map);
    for (ExprId e : memo->map->space)
      if (reads[static_cast<size_t>(e)]) return nullptr;  // extents that depend on values: evaluated per run
  }
  memo->proto.m = memo->map.get();
  memo->proto.operand_types = memo->operand_types;
  memo->proto.result_types = memo->result_types;
  memo->proto.attrs = &memo->attrs;
  for (ExprId e : memo->map->space) memo->space.push_back(memo->proto.eval(e));
  for (int64_t n : memo->space)
    if (n < 0) return nullptr;
  memo->proto.space = memo->space;
  return memo;
}

Status instantiate(const Call& c, const Out& out, MapRun& run) {
  run.operands.reserve(c.args.size());
  for (size_t k = 0; k < c.args.size(); ++k) run.operands.push_back(&c.args[k]);
  run.attrs = &c.attrs;
  std::string error;
  const auto use = [&](const MapMemo& m) {
    run.memo = &m;
    run.m = m.map.get();
    run.operand_types = m.operand_types;
    run.result_types = m.result_types;
    run.space = m.space;
    return Status::success();
  };
  // The call's types, for a memo's key (a memo keeps its own copies).
  const auto types = [&](std::vector<TensorType>& ot, std::vector<TensorType>& rt) {
    ot.clear();
    rt.clear();
    for (size_t k = 0; k < c.args.size(); ++k) ot.push_back(c.args[k].type);
    for (const Tensor& t : out) rt.push_back(t.type);
  };
  IndexMapCache* cache = options(c.exec).index_maps;
  if (PlanCache* plans = options(c.exec).plans) {
    std::shared_ptr<MapMemo>& slot = plans->map_slot(c.p, c.inst);
    if (!slot || !memo_fits(*slot, c, out)) {
      slot.reset();
      types(run.own_operand_types, run.own_result_types);
      if (cache) {  // the cache's memo of these op, attributes and types, shared with every other user
        slot = cache->memo(c.op, c.attrs, run.own_operand_types, run.own_result_types, &error);
        if (!slot && !error.empty()) return Status::error(error);
      } else {
        auto m = imap::index_map(c.op, c.attrs, run.own_operand_types, run.own_result_types, imap::Sizes::Concrete,
                                 &error);
        if (!m) return Status::error(error);
        slot = make_memo(c.op, c.attrs, run.own_operand_types, run.own_result_types,
                         std::make_shared<const imap::IndexMap>(std::move(*m)));
      }
    }
    if (slot) return use(*slot);
  } else if (cache) {
    types(run.own_operand_types, run.own_result_types);
    run.memo_owner = cache->memo(c.op, c.attrs, run.own_operand_types, run.own_result_types, &error);
    if (run.memo_owner) return use(*run.memo_owner);
    if (!error.empty()) return Status::error(error);
  }
  types(run.own_operand_types, run.own_result_types);
  run.operand_types = run.own_operand_types;
  run.result_types = run.own_result_types;
  run.m_owner = build_map(c, run.operand_types, run.result_types, error);
  if (!run.m_owner) return Status::error(error);
  run.m = run.m_owner.get();
  run.own_space.reserve(run.m->space.size());
  for (ExprId e : run.m->space) run.own_space.push_back(run.eval(e));
  run.space = run.own_space;
  for (int64_t n : run.space)
    if (n < 0) return c.fail("a negative extent in the index map");
  return Status::success();
}

Status run_checks(const Call& c, const MapRun& run) {
  for (const imap::Check& ck : run.m->checks) {
    const Tensor& t = *run.operands[static_cast<size_t>(ck.operand)];
    const int64_t bound = run.eval(ck.bound);
    int64_t i = 0;
    for (const int64_t n = t.size(); i < n; ++i) {
      const int64_t v = load_index(t, i);
      if (v < 0 || v >= bound) break;
    }
    if (i < t.size()) {
      const std::string val = format_elem(t.dtype(), get(t, i));
      if (ck.what == imap::Check::What::SegmentId)
        return Status::ub(c.msg("segment id " + val + " at row " + std::to_string(i) + " is out of range [0, " +
                                std::to_string(bound) + ")"));
      return Status::ub(c.msg("index " + val + " at position " + index_str(unravel(i, t.type.dims)) +
                              " is out of range [0, " + std::to_string(bound) + ")"));
    }
  }
  return Status::success();
}

namespace {

/// Affine forms by node of one map (sized on first use), kept by a caller for several expressions of
/// that map: a node's form does not depend on the root, and a memo per expression was a few KB each.
/// affine() is the expression `e` as an affine function of the variables (Reads at constant positions
/// are constants), nullopt when it is not one.
using AffineMemo = std::vector<std::optional<AffineDomain::Val>>;

std::optional<Affine> affine(const MapRun& run, imap::ExprId e, AffineMemo& memo) {
  AffineDomain d{run, run.space.size()};
  if (memo.size() != run.m->nodes.size()) memo.assign(run.m->nodes.size(), std::nullopt);
  const AffineDomain::Val v = imap::eval_memo(*run.m, e, d, memo);
  if (!v.ok) return std::nullopt;
  return Affine{v.c, v.coef};
}

}  // namespace

std::optional<Affine> affine_offset(const MapRun& run, const imap::Access& a) {
  const TensorType& t = run.operand_types[static_cast<size_t>(a.operand)];
  const std::vector<int64_t> st = a.flat ? std::vector<int64_t>{1} : strides_of(t.dims);
  Affine r{0, Coefs(run.space.size(), 0)};
  AffineMemo memo;  // one for every axis: the axes' expressions share nodes
  for (size_t k = 0; k < a.index.size(); ++k) {
    const std::optional<Affine> c = affine(run, a.index[k], memo);
    if (!c) return std::nullopt;
    r.c = imap::wrap_add(r.c, imap::wrap_mul(c->c, st[k]));
    for (size_t v = 0; v < r.coef.size(); ++v) r.coef[v] = imap::wrap_add(r.coef[v], imap::wrap_mul(c->coef[v], st[k]));
  }
  return r;
}

// ---- Plan ----

Plan::Plan(const MapRun& run) : run_(run), deps_(imap::var_deps(*run.m)), per_var_(run.space.size()) {
  for (size_t v = 0; v < run.space.size() && v < 64; ++v)
    if (run.space[v] > 1) live_ |= uint64_t{1} << v;
}

bool Plan::touches(int t, int v0, int v1) const {
  for (int v : tables_[static_cast<size_t>(t)].vars)
    if (v >= v0 && v < v1) return true;
  return false;
}

int64_t Plan::stride_along(int t, int v) const {
  const Table& tb = tables_[static_cast<size_t>(t)];
  for (size_t k = 0; k < tb.vars.size(); ++k)
    if (tb.vars[k] == v) return tb.stride[k];
  return 0;
}

void Plan::split(ExprId e, int64_t w, int64_t& base, std::vector<std::pair<ExprId, int64_t>>& out) const {
  const Node& n = run_.m->node(e);
  switch (n.op) {
    case Op::Const: base = imap::wrap_add(base, imap::wrap_mul(w, n.v)); return;
    case Op::Add: split(n.a, w, base, out), split(n.b, w, base, out); return;
    case Op::Sub: split(n.a, w, base, out), split(n.b, -w, base, out); return;
    case Op::Mul:
      if (run_.m->node(n.a).op == Op::Const) return split(n.b, imap::wrap_mul(w, run_.m->node(n.a).v), base, out);
      if (run_.m->node(n.b).op == Op::Const) return split(n.a, imap::wrap_mul(w, run_.m->node(n.b).v), base, out);
      break;
    default: break;
  }
  if (deps(e) == 0) {  // no variable (of extent > 1): a constant
    base = imap::wrap_add(base, imap::wrap_mul(w, run_.eval(e)));
    return;
  }
  out.emplace_back(e, w);
}

int Plan::table(std::vector<std::pair<ExprId, int64_t>> pieces, uint64_t deps, bool conj) {
  Table t;
  t.conj = conj;
  for (size_t v = 0; v < run_.space.size(); ++v)
    if (deps >> v & 1) t.vars.push_back(static_cast<int>(v));
  // A single Read whose index is the variables themselves over the operand's own dims: read in place.
  if (pieces.size() == 1 && !conj) {
    const Node& n = run_.m->node(pieces[0].first);
    if (n.op == Op::Read && n.a >= 0 && static_cast<size_t>(n.a) < run_.operands.size()) {
      const TensorType& ot = run_.operand_types[static_cast<size_t>(n.a)];
      bool direct = n.args.size() == static_cast<size_t>(ot.rank());
      std::vector<int> vs;
      for (size_t k = 0; direct && k < n.args.size(); ++k) {
        const Node& a = run_.m->node(n.args[k]);
        direct = a.op == Op::Var && static_cast<size_t>(a.a) < run_.space.size() && (live_ >> a.a & 1) &&
                 run_.space[static_cast<size_t>(a.a)] == ot.dims[k] &&
                 std::find(vs.begin(), vs.end(), a.a) == vs.end();
        vs.push_back(a.a);
      }
      if (direct) {
        const std::vector<int64_t> st = strides_of(ot.dims);
        t.vars.clear();
        for (size_t k = 0; k < vs.size(); ++k) t.vars.push_back(vs[k]), t.stride.push_back(st[k]);
        t.direct = run_.operands[static_cast<size_t>(n.a)];
        t.weight = pieces[0].second;
        tables_.push_back(std::move(t));
        const int id = static_cast<int>(tables_.size() - 1);
        for (size_t k = 0; k < vs.size(); ++k) per_var_[static_cast<size_t>(vs[k])].emplace_back(id, tables_.back().stride[k]);
        return id;
      }
    }
  }
  constexpr int64_t kCap = int64_t{1} << 22;  // entries; a larger table is evaluated per point instead
  int64_t size = 1;
  bool big = false;
  for (int v : t.vars) {
    const int64_t n = run_.space[static_cast<size_t>(v)];
    if (n > 0 && size > kCap / n) big = true;
    else size *= n;
  }
  if (big) {
    t.dynamic = std::move(pieces);
    tables_.push_back(std::move(t));
    return static_cast<int>(tables_.size() - 1);
  }
  t.stride.assign(t.vars.size(), 0);
  for (size_t k = t.vars.size(), s = 1; k-- > 0;) {
    t.stride[k] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(run_.space[static_cast<size_t>(t.vars[k])]);
  }
  t.vals.assign(static_cast<size_t>(size), 0);
  std::vector<int64_t> vars(run_.space.size(), 0);
  // Affine pieces (most offsets): filled by arithmetic instead of evaluating the expression per entry.
  std::optional<Affine> lin = conj ? std::nullopt : std::optional<Affine>(Affine{0, Coefs(run_.space.size(), 0)});
  AffineMemo memo;  // one for every expression below (they share nodes)
  for (size_t k = 0; lin && k < pieces.size(); ++k) {
    const auto a = affine(run_, pieces[k].first, memo);
    if (!a) {
      lin.reset();
      break;
    }
    lin->c = imap::wrap_add(lin->c, imap::wrap_mul(pieces[k].second, a->c));
    for (size_t v = 0; v < a->coef.size(); ++v)
      lin->coef[v] = imap::wrap_add(lin->coef[v], imap::wrap_mul(pieces[k].second, a->coef[v]));
  }
  // Conjunctions of comparisons of affine sides (concat's ranges): filled by arithmetic too.
  struct Cmp {
    Op op;
    Affine l, r;  // the two sides, evaluated as eval64 does (wrapping) and then compared
  };
  std::vector<Cmp> cmps;
  for (size_t k = 0; conj && k < pieces.size(); ++k) {
    const Node& n = run_.m->node(pieces[k].first);
    if (n.op != Op::Lt && n.op != Op::Le && n.op != Op::Eq && n.op != Op::Ne) break;
    const auto l = affine(run_, n.a, memo), r = affine(run_, n.b, memo);
    if (!l || !r) break;
    cmps.push_back(Cmp{n.op, *l, *r});
  }
  if (conj && cmps.size() == pieces.size() && size > 0) {
    std::vector<int64_t> at(t.vars.size());
    auto side = [&](const Affine& a) {
      int64_t v = a.c;
      for (size_t k = 0; k < at.size(); ++k)
        v = imap::wrap_add(v, imap::wrap_mul(a.coef[static_cast<size_t>(t.vars[k])], at[k]));
      return v;
    };
    for (int64_t p = 0; p < size; ++p) {
      int64_t rest = p;
      for (size_t k = t.vars.size(); k-- > 0;) {
        const int64_t n = run_.space[static_cast<size_t>(t.vars[k])];
        at[k] = rest % n;
        rest /= n;
      }
      bool all = true;
      for (const Cmp& c : cmps) {
        const int64_t l = side(c.l), r = side(c.r);
        all = all && (c.op == Op::Lt ? l < r : c.op == Op::Le ? l <= r : c.op == Op::Eq ? l == r : l != r);
      }
      t.vals[static_cast<size_t>(p)] = all;
    }
  } else if (lin && size > 0) {
    for (int64_t p = 0; p < size; ++p) {
      int64_t rest = p, v = lin->c;
      for (size_t k = t.vars.size(); k-- > 0;) {
        const int64_t n = run_.space[static_cast<size_t>(t.vars[k])];
        v = imap::wrap_add(v, imap::wrap_mul(lin->coef[static_cast<size_t>(t.vars[k])], rest % n));
        rest /= n;
      }
      t.vals[static_cast<size_t>(p)] = v;
    }
  } else if (size > 0) {
    for (int64_t p = 0; p < size; ++p) {
      int64_t rest = p;
      for (size_t k = t.vars.size(); k-- > 0;) {
        const int64_t n = run_.space[static_cast<size_t>(t.vars[k])];
        vars[static_cast<size_t>(t.vars[k])] = rest % n;
        rest /= n;
      }
      int64_t v = conj ? 1 : 0;
      for (const auto& [e, w] : pieces) {
        const int64_t x = eval64(run_, e, vars.data(), vars.size());
        v = conj ? (v != 0 && x != 0) : imap::wrap_add(v, imap::wrap_mul(w, x));
      }
      t.vals[static_cast<size_t>(p)] = v;
    }
  }
  tables_.push_back(std::move(t));
  const int id = static_cast<int>(tables_.size() - 1);
  const Table& tt = tables_.back();
  for (size_t k = 0; k < tt.vars.size(); ++k) per_var_[static_cast<size_t>(tt.vars[k])].emplace_back(id, tt.stride[k]);
  return id;
}

Plan::Sum Plan::offset_of(const std::vector<ExprId>& index, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> st = strides_of(dims);
  Sum s;
  std::vector<std::pair<ExprId, int64_t>> pieces;
  for (size_t k = 0; k < index.size() && k < st.size(); ++k) split(index[k], st[k], s.base, pieces);
  std::map<uint64_t, std::vector<std::pair<ExprId, int64_t>>> groups;
  std::vector<std::pair<ExprId, int64_t>> reads;
  for (const auto& pc : pieces) {
    const Node& n = run_.m->node(pc.first);
    if (n.op == Op::Read) reads.push_back(pc);  // may be read in place: a table of its own
    else groups[deps(pc.first)].push_back(pc);
  }
  for (const auto& pc : reads) s.tables.push_back(table({pc}, deps(pc.first)));
  for (auto& [deps, g] : groups) s.tables.push_back(table(std::move(g), deps));
  return s;
}

Plan::Sum Plan::offset(const imap::Access& a) {
  const TensorType& t = run_.operand_types[static_cast<size_t>(a.operand)];
  if (a.flat) return offset_of(a.index, {t.num_elements()});
  return offset_of(a.index, t.dims);
}

Plan::Sum Plan::value(ExprId e) { return offset_of({e}, {1}); }

Plan::All Plan::conjunction(const std::vector<ExprId>& conjuncts) {
  All a;
  std::vector<ExprId> flat;
  std::vector<ExprId> todo(conjuncts.rbegin(), conjuncts.rend());
  while (!todo.empty()) {  // split nested &&
    const ExprId e = todo.back();
    todo.pop_back();
    const Node& n = run_.m->node(e);
    if (n.op == Op::And) todo.push_back(n.b), todo.push_back(n.a);
    else flat.push_back(e);
  }
  std::map<uint64_t, std::vector<ExprId>> groups;
  for (ExprId e : flat) {
    if (deps(e) == 0) a.holds = a.holds && run_.eval(e) != 0;
    else groups[deps(e)].push_back(e);
  }
  for (auto& [deps, g] : groups) {
    std::vector<std::pair<ExprId, int64_t>> pieces;
    for (ExprId e : g) pieces.emplace_back(e, 1);
    a.tables.push_back(table(std::move(pieces), deps, true));
  }
  return a;
}

Plan::Walk::Walk(const Plan& p) : plan(p), idx(p.run_.space.size(), 0), pos(p.tables_.size(), 0) {}

int64_t Plan::Walk::slow(int t) const {
  const Table& tb = plan.tables_[static_cast<size_t>(t)];
  if (!tb.dynamic.empty()) {
    int64_t v = tb.conj ? 1 : 0;
    for (const auto& [e, w] : tb.dynamic) {
      const int64_t x = eval64(plan.run_, e, idx.data(), idx.size());
      v = tb.conj ? (v != 0 && x != 0) : imap::wrap_add(v, imap::wrap_mul(w, x));
    }
    return v;
  }
  return imap::wrap_mul(tb.weight, load_index(*tb.direct, pos[static_cast<size_t>(t)]));
}

// ---- Move ----

namespace {
/// Whether `coef` are the row-major strides of `dims` (the offset walks the output in order).
bool row_major(const Coefs& coef, const std::vector<int64_t>& dims) {
  if (coef.size() != dims.size()) return false;
  int64_t s = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    if (coef[k] != s) return false;
    s *= dims[k];
  }
  return true;
}
}  // namespace

MovePrep::MovePrep(const MapRun& run) : plan(run) {
  const imap::IndexMap& m = *run.m;
  nc = m.cases.size();
  for (const imap::Case& k : m.cases) {
    conds.push_back(plan.conjunction(k.when));
    offs.push_back(plan.offset(k.reads[0]));
  }
  if (m.otherwise == imap::Otherwise::Index) value = plan.value(m.index_value);
  bool dyn = false;
  for (size_t t = 0; t < plan.tables().size(); ++t) dyn = dyn || plan.dynamic(static_cast<int>(t));
  L = static_cast<int>(run.space.size()) - 1;
  pointwise = dyn || L < 0 || m.otherwise == imap::Otherwise::Index;
  if (pointwise) return;
  // Row by row along the innermost variable. Per case, each table is outer (fixed in a row), inner
  // (of the innermost variable only: its values along j are computed once) or mixed (read along the
  // row at its position plus j * its stride).
  n = run.space[static_cast<size_t>(L)];
  auto classify = [&](const std::vector<int>& tables, Part& p, bool conj) {
    if (conj) p.cin.assign(static_cast<size_t>(n), 1);
    else p.tin.assign(static_cast<size_t>(n), 0);
    for (int t : tables) {
      const Plan::Table& tb = plan.tables()[static_cast<size_t>(t)];
      const bool has_l = plan.touches(t, L, L + 1);
      if (!has_l) {
        p.outer.push_back(t);
      } else if (tb.vars.size() == 1) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t v = plan.at(t, j * tb.stride[0]);
          if (conj) p.cin[static_cast<size_t>(j)] &= v != 0;
          else p.tin[static_cast<size_t>(j)] += v;
        }
      } else {
        p.mixed.push_back(t);
        any_mixed = true;
      }
    }
  };
  conds_p.resize(nc);
  offs_p.resize(nc);
  for (size_t k = 0; k < nc; ++k) {
    classify(conds[k].tables, conds_p[k], true);
    classify(offs[k].tables, offs_p[k], false);
  }
  mixed_stride.resize(2 * nc);
  for (size_t k = 0; k < nc; ++k) {
    for (int t : conds_p[k].mixed) mixed_stride[2 * k].push_back(plan.stride_along(t, L));
    for (int t : offs_p[k].mixed) mixed_stride[2 * k + 1].push_back(plan.stride_along(t, L));
  }
}

Status run_move(const Call& c, const MapRun& run, Tensor& out) {
  const imap::IndexMap& m = *run.m;
  if (out.size() == 0) return Status::success();
  const int w = dtype_bytes(out.dtype());
  // Of a map that reads no element, what the run derives from the map alone (the affine offset, the
  // plan and its row runs) is the memo's, made on its first run; otherwise this run's own.
  const bool memo = run.memo && !run.memo->reads_data;
  // One unconditional source at an affine offset: a strided copy (one memcpy when contiguous).
  if (m.cases.size() == 1 && m.cases[0].when.empty() && m.otherwise == imap::Otherwise::Nothing) {
    const imap::Access& a = m.cases[0].reads[0];
    std::optional<Affine> own;
    const std::optional<Affine>* affp = &own;
    if (memo) {
      if (!run.memo->move_affine) run.memo->move_affine.emplace(affine_offset(run.memo->proto, a));
      affp = &*run.memo->move_affine;
    } else {
      own = affine_offset(run, a);
    }
    if (const std::optional<Affine>& aff = *affp) {
      const Tensor& x = *run.operands[static_cast<size_t>(a.operand)];
      if (row_major(aff->coef, out.type.dims)) {
        std::memcpy(out.data.data(), x.data.data() + aff->c * w, static_cast<size_t>(out.size()) * w);
      } else {
        strided_copy(x, aff->c, std::span<const int64_t>(aff->coef.data(), aff->coef.size()), out);
      }
      return Status::success();
    }
  }
  uint64_t pad = 0;
  if (m.otherwise == imap::Otherwise::Value)
    if (const AttrValue* v = run.attrs->find("value")) {
      if (v->lit.dtype() != out.dtype() || v->lit.size() != 1) return c.fail("value[...] is not a scalar of the dtype");
      pad = v->lit.bits(0);
    }
  std::optional<MovePrep> own;
  MovePrep* pp;
  if (memo) {
    if (!run.memo->move) run.memo->move = std::make_unique<MovePrep>(run.memo->proto);
    pp = run.memo->move.get();
  } else {
    pp = &own.emplace(run);
  }
  MovePrep& pr = *pp;
  const Plan& plan = pr.plan;
  const size_t nc = pr.nc;
  boost::container::small_vector<const Tensor*, 8> srcs;
  for (const imap::Case& k : m.cases) srcs.push_back(run.operands[static_cast<size_t>(k.reads[0].operand)]);
  if (pr.pointwise) {  // point by point
    Plan::Walk wk(plan);
    int64_t oi = 0;
    do {
      size_t k = 0;
      while (k < nc && !wk.holds(pr.conds[k])) ++k;
      if (k < nc) copy_elem(*srcs[k], wk.sum(pr.offs[k]), out, oi);
      else if (m.otherwise == imap::Otherwise::Index)
        put(out, oi, cast_elem(DType::SI64, out.dtype(), static_cast<uint64_t>(wk.sum(pr.value))));
      else put(out, oi, pad);
      ++oi;
    } while (wk.next());
    return Status::success();
  }
  const int L = pr.L;
  const int64_t n = pr.n;
  Plan::Walk wk(plan);  // the innermost variable stays at 0: rows
  uint8_t* dst = out.data.data();
  boost::container::small_vector<uint8_t, 8> ok(nc);
  boost::container::small_vector<int64_t, 8> rowoff(nc);
  // The case of position j of the row (-1: none) and its offset without the row's outer part.
  auto case_at = [&](int64_t j, int64_t& o) {
    for (size_t k = 0; k < nc; ++k) {
      if (!ok[k] || !pr.conds_p[k].cin[static_cast<size_t>(j)]) continue;
      bool h = true;
      const MovePrep::Part& cp = pr.conds_p[k];
      for (size_t q = 0; q < cp.mixed.size() && h; ++q)
        h = plan.at(cp.mixed[q], wk.pos[static_cast<size_t>(cp.mixed[q])] + j * pr.mixed_stride[2 * k][q]) != 0;
      if (!h) continue;
      const MovePrep::Part& op = pr.offs_p[k];
      o = op.tin[static_cast<size_t>(j)];
      for (size_t q = 0; q < op.mixed.size(); ++q)
        o += plan.at(op.mixed[q], wk.pos[static_cast<size_t>(op.mixed[q])] + j * pr.mixed_stride[2 * k + 1][q]);
      return static_cast<int>(k);
    }
    return -1;
  };
  // Without mixed tables the runs depend on the row's mask only (few distinct masks: a short list,
  // kept in the prep: of a memo, for every later run too).
  auto& cache = pr.row_runs;
  size_t last = 0;
  int64_t o0 = 0;
  do {
    uint64_t mask = 0;
    for (size_t k = 0; k < nc; ++k) {
      bool h = pr.conds[k].holds;
      for (int t : pr.conds_p[k].outer) h = h && wk.get(t) != 0;
      ok[k] = h;
      if (h && k < 64) mask |= uint64_t{1} << k;
      int64_t o = pr.offs[k].base;
      for (int t : pr.offs_p[k].outer) o += wk.get(t);
      rowoff[k] = o;
    }
    if (pr.any_mixed || nc > 64) {  // element by element (more than 64 cases: no mask to key runs by)
      for (int64_t j = 0; j < n; ++j) {
        int64_t o = 0;
        const int k = case_at(j, o);
        if (k >= 0) put(out, o0 + j, get(*srcs[static_cast<size_t>(k)], rowoff[static_cast<size_t>(k)] + o));
        else put(out, o0 + j, pad);
      }
    } else {
      if (last >= cache.size() || cache[last].first != mask) {
        last = 0;
        while (last < cache.size() && cache[last].first != mask) ++last;
      }
      if (last == cache.size()) {
        std::vector<MovePrep::Run> runs;
        int64_t prev = 0;
        for (int64_t j = 0; j < n; ++j) {
          int64_t o = 0;
          const int k = case_at(j, o);
          if (!runs.empty() && runs.back().c == k && (k < 0 || o == prev + 1)) ++runs.back().len;
          else runs.push_back(MovePrep::Run{j, 1, k, o});
          prev = o;
        }
        cache.emplace_back(mask, std::move(runs));
      }
      for (const MovePrep::Run& r : cache[last].second) {
        if (r.c < 0) {
          if (pad != 0)
            for (int64_t q = 0; q < r.len; ++q) put(out, o0 + r.j0 + q, pad);
        } else {
          const Tensor& x = *srcs[static_cast<size_t>(r.c)];
          std::memcpy(dst + (o0 + r.j0) * w, x.data.data() + (rowoff[static_cast<size_t>(r.c)] + r.toff) * w,
                      static_cast<size_t>(r.len) * w);
        }
      }
    }
    o0 += n;
  } while (L > 0 && wk.next_in(0, L));
  return Status::success();
}

}  // namespace ptir::interp
