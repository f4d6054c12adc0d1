// The index map of every data-movement op (ir/index_map.h): the one statement of each op's indexing that
// the interpreter and the bounded encoder run. Each map is written with a small builder whose
// expressions read like the formulas of docs/semantics.md.
#include "ir/index_map.h"

#include <algorithm>
#include <limits>

namespace ptir::imap {

Kind op_kind(OpCode op) {
  switch (op) {
    case OpCode::Constant: return Kind::Constant;
    case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Tanh:
    case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt: case OpCode::Add:
    case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Maximum: case OpCode::Minimum:
    case OpCode::Compare: case OpCode::Select: case OpCode::Cast: case OpCode::StopGradient:
      return Kind::Elementwise;
    case OpCode::Reshape: case OpCode::Transpose: case OpCode::BroadcastTo: case OpCode::Slice:
    case OpCode::Concat: case OpCode::Pad: case OpCode::Tile: case OpCode::Iota: case OpCode::Take:
    case OpCode::Gather: case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice:
    case OpCode::ExtractPatches:
      return Kind::Move;
    case OpCode::DotGeneral: case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
    case OpCode::Argmax: case OpCode::ReduceWindow: case OpCode::TopK:
      return Kind::Fold;
    case OpCode::ScatterReduce: case OpCode::ScatterAdd: case OpCode::SegmentReduce:
      return Kind::Scatter;
    case OpCode::Cond: case OpCode::While: case OpCode::Scan: return Kind::Control;
    case OpCode::RngUniform: case OpCode::RngNormal: return Kind::Random;
    case OpCode::Quantize: case OpCode::Dequantize: case OpCode::Requantize: case OpCode::CustomCall:
      return Kind::Opaque;
    case OpCode::Return: return Kind::Terminator;
  }
  return Kind::Opaque;  // unreachable: the switch covers every op (-Werror=switch)
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Elementwise: return "elementwise";
    case Kind::Constant: return "constant";
    case Kind::Move: return "move";
    case Kind::Fold: return "fold";
    case Kind::Scatter: return "scatter";
    case Kind::Control: return "control";
    case Kind::Random: return "random";
    case Kind::Opaque: return "opaque";
    case Kind::Terminator: return "terminator";
  }
  return "?";
}

// ---- the int64 domain ----

int64_t index_element(const Tensor& t, int64_t flat) {
  const uint64_t bits = t.bits(flat);
  if (t.dtype() == DType::UI64 && bits > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  return int_value(t.dtype(), bits);
}

int64_t IntDomain::dim(int a, int axis) const {
  const std::span<const TensorType> ts = a >= 0 ? operand_types : result_types;
  const size_t k = static_cast<size_t>(a >= 0 ? a : -1 - a);
  if (k >= ts.size() || axis < 0 || axis >= ts[k].rank()) return 0;
  return ts[k].dims[static_cast<size_t>(axis)];
}

int64_t IntDomain::attr(const std::string& name, int k, int64_t dflt) const {
  if (!attrs) return dflt;
  const AttrValue* v = attrs->find(name);
  if (!v || k < 0 || static_cast<size_t>(k) >= v->ints.size()) return dflt;
  return v->ints[static_cast<size_t>(k)];
}

int64_t IntDomain::read(int operand, std::span<const int64_t> idx) const {
  if (operand < 0 || static_cast<size_t>(operand) >= operands.size() || !operands[static_cast<size_t>(operand)])
    return 0;
  const Tensor& t = *operands[static_cast<size_t>(operand)];
  if (idx.size() != static_cast<size_t>(t.type.rank())) return 0;
  int64_t flat = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= t.type.dims[k]) return 0;
    flat = flat * t.type.dims[k] + idx[k];
  }
  return index_element(t, flat);
}

std::vector<uint64_t> var_deps(const IndexMap& m) {
  std::vector<uint64_t> deps(m.nodes.size(), 0);
  for (size_t i = 0; i < m.nodes.size(); ++i) {  // children come before their parents
    const Node& n = m.nodes[i];
    uint64_t d = 0;
    switch (n.op) {
      case Op::Const: case Op::Dim: case Op::Attr: break;
      case Op::Var: d = n.a < 64 ? uint64_t{1} << n.a : ~uint64_t{0}; break;
      case Op::Read: for (ExprId a : n.args) d |= deps[static_cast<size_t>(a)]; break;
      case Op::Not: d = deps[static_cast<size_t>(n.a)]; break;
      case Op::Clamp: case Op::Select:
        d = deps[static_cast<size_t>(n.a)] | deps[static_cast<size_t>(n.b)] | deps[static_cast<size_t>(n.c)];
        break;
      default: d = deps[static_cast<size_t>(n.a)] | deps[static_cast<size_t>(n.b)]; break;  // binary ops
    }
    deps[i] = d;
  }
  return deps;
}

std::vector<int64_t> extents(const IndexMap& m, const std::vector<ExprId>& space, IntDomain d) {
  d.vars = {};
  std::vector<int64_t> r;
  for (ExprId e : space) r.push_back(eval(m, e, d));
  return r;
}

namespace {

/// Row-major offset of `idx` in `dims`; -1 when outside.
int64_t offset_in(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  if (idx.size() != dims.size()) return -1;
  int64_t f = 0;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= dims[k]) return -1;
    f = f * dims[k] + idx[k];
  }
  return f;
}

bool next_point(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (size_t k = dims.size(); k-- > 0;) {
    if (++idx[k] < dims[k]) return true;
    idx[k] = 0;
  }
  return false;
}

}  // namespace

Resolved resolve(const IndexMap& m, const IntDomain& d) {
  Resolved r;
  std::vector<std::optional<int64_t>> memo(m.nodes.size());
  IntDomain dd = d;
  auto ev = [&](ExprId e) { return eval_memo(m, e, dd, memo); };
  for (size_t c = 0; c < m.cases.size(); ++c) {
    bool holds = true;
    for (ExprId w : m.cases[c].when) holds = holds && ev(w) != 0;
    if (!holds) {
      if (m.kind == Kind::Move) continue;
      break;
    }
    r.case_index = static_cast<int>(c);
    for (const Access& a : m.cases[c].reads) {
      const TensorType& t = d.operand_types[static_cast<size_t>(a.operand)];
      std::vector<int64_t> idx;
      for (ExprId e : a.index) idx.push_back(ev(e));
      r.offsets.push_back(a.flat ? (idx[0] >= 0 && idx[0] < t.num_elements() ? idx[0] : -1) : offset_in(idx, t.dims));
    }
    break;
  }
  if (m.kind == Kind::Scatter) {
    std::vector<int64_t> idx;
    for (ExprId e : m.target) idx.push_back(ev(e));
    r.target = offset_in(idx, d.result_types[0].dims);
  }
  return r;
}

std::optional<std::vector<int64_t>> first_bad(const IndexMap& m, const Check& check, IntDomain d) {
  const std::vector<int64_t> dims = extents(m, check.space, d);
  for (int64_t n : dims)
    if (n <= 0) return std::nullopt;
  std::vector<int64_t> idx(dims.size(), 0);
  do {
    d.vars = idx;
    if (eval(m, check.bad, d) != 0) return idx;
  } while (next_point(idx, dims));
  return std::nullopt;
}

// ---- printing ----

std::string IndexMap::str(ExprId e) const {
  if (e == kNoExpr) return "-";
  const Node& n = node(e);
  auto s = [&](ExprId c) { return str(c); };
  auto bin = [&](const char* o) { return "(" + s(n.a) + " " + o + " " + s(n.b) + ")"; };
  auto fn = [&](const char* f) { return std::string(f) + "(" + s(n.a) + ", " + s(n.b) + ")"; };
  switch (n.op) {
    case Op::Const: return std::to_string(n.v);
    case Op::Var: return "i" + std::to_string(n.a);
    case Op::Dim: return n.a >= 0 ? "dim(" + std::to_string(n.a) + ", " + std::to_string(n.b) + ")"
                                  : "rdim(" + std::to_string(-1 - n.a) + ", " + std::to_string(n.b) + ")";
    case Op::Attr: return names[static_cast<size_t>(n.a)] + "[" + std::to_string(n.b) + "]";
    case Op::Read: {
      std::string r = "read(" + std::to_string(n.a) + ", [";
      for (size_t k = 0; k < n.args.size(); ++k) r += (k ? ", " : "") + s(n.args[k]);
      return r + "])";
    }
    case Op::Add: return bin("+");
    case Op::Sub: return bin("-");
    case Op::Mul: return bin("*");
    case Op::FloorDiv: return fn("floordiv");
    case Op::Mod: return fn("mod");
    case Op::Min: return fn("min");
    case Op::Max: return fn("max");
    case Op::Clamp: return "clamp(" + s(n.a) + ", " + s(n.b) + ", " + s(n.c) + ")";
    case Op::Lt: return bin("<");
    case Op::Le: return bin("<=");
    case Op::Eq: return bin("==");
    case Op::Ne: return bin("!=");
    case Op::And: return bin("&&");
    case Op::Or: return bin("||");
    case Op::Not: return "!" + s(n.a);
    case Op::Select: return "(" + s(n.a) + " ? " + s(n.b) + " : " + s(n.c) + ")";
  }
  return "?";
}

std::string IndexMap::str() const {
  auto list = [&](const std::vector<ExprId>& v) {
    std::string r = "[";
    for (size_t k = 0; k < v.size(); ++k) r += (k ? ", " : "") + str(v[k]);
    return r + "]";
  };
  std::string r = std::string(mnemonic(op)) + " (" + kind_name(kind) + ") over " + list(space);
  if (kind == Kind::Fold) r += ", result vars i0..i" + std::to_string(out_vars - 1);
  r += "\n";
  for (const Case& c : cases) {
    r += "  when " + (c.when.empty() ? std::string("true") : list(c.when)) + ":";
    for (const Access& a : c.reads)
      r += " operand " + std::to_string(a.operand) + (a.flat ? " flat" : "") + list(a.index);
    r += "\n";
  }
  if (otherwise == Otherwise::Value) r += "  otherwise: value[]\n";
  if (otherwise == Otherwise::Index) r += "  otherwise: the integer " + str(index_value) + "\n";
  if (kind == Kind::Scatter)
    r += "  into " + list(target) + (init == Init::Operand0 ? " of operand 0\n" : " of the fold identity\n");
  for (const Check& c : checks) r += "  UB over " + list(c.space) + " when " + str(c.bad) + "\n";
  return r;
}

namespace {

// ---- the builder ----

/// Malformed instance: index_map returns nullopt with the message.
struct Malformed {
  std::string what;
};

class Builder;

/// An expression under construction; operators build nodes (numerals fold right away).
struct X {
  Builder* b = nullptr;
  ExprId id = kNoExpr;
};

class Builder {
 public:
  Builder(IndexMap& m, const AttrSet& attrs, std::span<const TensorType> ops, std::span<const TensorType> res,
          Sizes sizes)
      : m_(m), attrs_(attrs), ops_(ops), res_(res), sizes_(sizes) {}

  X c(int64_t v) {
    Node n;
    n.op = Op::Const;
    n.v = v;
    return push(std::move(n));
  }
  X var(int k) {
    Node n;
    n.op = Op::Var;
    n.a = k;
    return push(std::move(n));
  }
  /// Size of axis `axis` of operand `a`.
  X dim(int a, int axis) {
    if (a < 0 || static_cast<size_t>(a) >= ops_.size() || axis < 0 || axis >= ops_[static_cast<size_t>(a)].rank())
      throw Malformed{"operand " + std::to_string(a) + " has no axis " + std::to_string(axis)};
    if (sizes_ == Sizes::Concrete) return c(ops_[static_cast<size_t>(a)].dims[static_cast<size_t>(axis)]);
    return leaf(Op::Dim, a, axis);
  }
  /// Size of axis `axis` of result `r`.
  X rdim(int axis, int r = 0) {
    if (static_cast<size_t>(r) >= res_.size() || axis < 0 || axis >= res_[static_cast<size_t>(r)].rank())
      throw Malformed{"result " + std::to_string(r) + " has no axis " + std::to_string(axis)};
    if (sizes_ == Sizes::Concrete) return c(res_[static_cast<size_t>(r)].dims[static_cast<size_t>(axis)]);
    return leaf(Op::Dim, -1 - r, axis);
  }
  /// Element k of the per-axis attribute `name` (`dflt` when absent; present with fewer entries: malformed).
  X attr(std::string_view name, int k, int64_t dflt) {
    const AttrValue* v = attrs_.find(name);
    if (v && v->ints.empty()) v = nullptr;  // `interior[]` of pad: the default
    if (v && (k < 0 || static_cast<size_t>(k) >= v->ints.size()))
      throw Malformed{std::string(name) + "[...] has no entry " + std::to_string(k)};
    if (sizes_ == Sizes::Concrete) return c(v ? v->ints[static_cast<size_t>(k)] : dflt);
    const auto it = std::find(m_.names.begin(), m_.names.end(), name);
    const int id = static_cast<int>(it - m_.names.begin());
    if (it == m_.names.end()) m_.names.emplace_back(name);
    X x = leaf(Op::Attr, id, k);
    m_.nodes[static_cast<size_t>(x.id)].v = dflt;
    return x;
  }
  X read(int operand, const std::vector<X>& idx) {
    Node n;
    n.op = Op::Read;
    n.a = operand;
    for (const X& x : idx) n.args.push_back(x.id);
    return push(std::move(n));
  }

  X bin(Op op, X a, X b) {
    const Node& na = m_.node(a.id);
    const Node& nb = m_.node(b.id);
    const bool ca = na.op == Op::Const, cb = nb.op == Op::Const;
    if (ca && cb) {
      IntDomain d;
      const int64_t x = na.v, y = nb.v;
      switch (op) {
        case Op::Add: return c(x + y);
        case Op::Sub: return c(x - y);
        case Op::Mul: return c(x * y);
        case Op::FloorDiv: return c(d.floordiv(x, y));
        case Op::Mod: return c(d.mod(x, y));
        case Op::Min: return c(d.min(x, y));
        case Op::Max: return c(d.max(x, y));
        case Op::Lt: return c(x < y);
        case Op::Le: return c(x <= y);
        case Op::Eq: return c(x == y);
        case Op::Ne: return c(x != y);
        case Op::And: return c(x && y);
        case Op::Or: return c(x || y);
        default: break;
      }
    }
    // Identities that keep maps small: x + 0, x - 0, x * 1, x * 0, floordiv/mod by 1, true/false in && ||.
    const auto is = [&](const Node& n, int64_t v) { return n.op == Op::Const && n.v == v; };
    switch (op) {
      case Op::Add: if (is(nb, 0)) return a; if (is(na, 0)) return b; break;
      case Op::Sub: if (is(nb, 0)) return a; if (a.id == b.id) return c(0); break;
      case Op::Mul:
        if (is(nb, 1)) return a;
        if (is(na, 1)) return b;
        if (is(na, 0) || is(nb, 0)) return c(0);
        break;
      case Op::FloorDiv: if (is(nb, 1)) return a; break;
      case Op::Mod: if (is(nb, 1)) return c(0); break;
      case Op::And:
        if (is(na, 0) || is(nb, 0)) return c(0);
        if (ca) return b;
        if (cb) return a;
        break;
      case Op::Or:
        if ((ca && na.v != 0) || (cb && nb.v != 0)) return c(1);
        if (ca) return b;
        if (cb) return a;
        break;
      default: break;
    }
    Node n;
    n.op = op;
    n.a = a.id;
    n.b = b.id;
    return push(std::move(n));
  }
  X not_(X a) {
    const Node& na = m_.node(a.id);
    if (na.op == Op::Const) return c(na.v == 0);
    Node n;
    n.op = Op::Not;
    n.a = a.id;
    return push(std::move(n));
  }
  X select(X cnd, X t, X e) {
    const Node& nc = m_.node(cnd.id);
    if (nc.op == Op::Const) return nc.v ? t : e;
    if (t.id == e.id) return t;
    Node n;
    n.op = Op::Select;
    n.a = cnd.id, n.b = t.id, n.c = e.id;
    return push(std::move(n));
  }
  X clamp(X x, X lo, X hi) {
    const Node &nx = m_.node(x.id), &nl = m_.node(lo.id), &nh = m_.node(hi.id);
    if (nx.op == Op::Const && nl.op == Op::Const && nh.op == Op::Const) return c(IntDomain{}.clamp(nx.v, nl.v, nh.v));
    Node n;
    n.op = Op::Clamp;
    n.a = x.id, n.b = lo.id, n.c = hi.id;
    return push(std::move(n));
  }

  /// The attribute as an int, or `dflt` when absent.
  int64_t int_attr(std::string_view name, int64_t dflt) const { return attrs_.int_or(name, dflt); }
  const std::vector<int64_t>& ints(std::string_view name) const { return attrs_.ints(name); }
  bool has(std::string_view name) const { return attrs_.find(name) != nullptr; }
  int rank(int operand) const {
    if (static_cast<size_t>(operand) >= ops_.size()) throw Malformed{"missing operand " + std::to_string(operand)};
    return ops_[static_cast<size_t>(operand)].rank();
  }
  int rrank(int r = 0) const {
    if (static_cast<size_t>(r) >= res_.size()) throw Malformed{"missing result " + std::to_string(r)};
    return res_[static_cast<size_t>(r)].rank();
  }
  size_t num_operands() const { return ops_.size(); }
  /// A per-axis attribute must have one entry per axis when present (`required`: present).
  void per_axis(std::string_view name, int rank, bool required) const {
    const AttrValue* v = attrs_.find(name);
    if ((!v || v->ints.empty()) && !required) return;
    if (!v || static_cast<int>(v->ints.size()) != rank)
      throw Malformed{std::string(name) + "[...] needs one entry per axis"};
  }

 private:
  X leaf(Op op, int a, int b) {
    Node n;
    n.op = op;
    n.a = a;
    n.b = b;
    return push(std::move(n));
  }
  X push(Node n) {
    m_.nodes.push_back(std::move(n));
    return X{this, static_cast<ExprId>(m_.nodes.size() - 1)};
  }

  IndexMap& m_;
  const AttrSet& attrs_;
  std::span<const TensorType> ops_, res_;
  Sizes sizes_;
};

X operator+(X a, X b) { return a.b->bin(Op::Add, a, b); }
X operator-(X a, X b) { return a.b->bin(Op::Sub, a, b); }
X operator*(X a, X b) { return a.b->bin(Op::Mul, a, b); }
X operator<(X a, X b) { return a.b->bin(Op::Lt, a, b); }
X operator<=(X a, X b) { return a.b->bin(Op::Le, a, b); }
X operator>=(X a, X b) { return a.b->bin(Op::Le, b, a); }
X operator==(X a, X b) { return a.b->bin(Op::Eq, a, b); }
X operator&&(X a, X b) { return a.b->bin(Op::And, a, b); }
X operator!(X a) { return a.b->not_(a); }
X operator+(X a, int64_t v) { return a + a.b->c(v); }
X operator-(X a, int64_t v) { return a - a.b->c(v); }
X operator>=(X a, int64_t v) { return a >= a.b->c(v); }
X operator==(X a, int64_t v) { return a == a.b->c(v); }
X floordiv(X a, X b) { return a.b->bin(Op::FloorDiv, a, b); }
X mod(X a, X b) { return a.b->bin(Op::Mod, a, b); }
X select(X c, X t, X e) { return c.b->select(c, t, e); }
X clamp(X x, X lo, X hi) { return x.b->clamp(x, lo, hi); }

std::vector<ExprId> ids(const std::vector<X>& xs) {
  std::vector<ExprId> r;
  for (const X& x : xs) r.push_back(x.id);
  return r;
}

/// 0 <= x < n.
X in_range(X x, X n) { return x >= 0 && x < n; }

/// Distinct axes of [0, rank).
void axes_ok(const std::vector<int64_t>& axes, int rank, const char* what) {
  std::vector<bool> seen(static_cast<size_t>(std::max(rank, 0)), false);
  for (int64_t a : axes) {
    if (a < 0 || a >= rank || seen[static_cast<size_t>(a)])
      throw Malformed{std::string(what) + " must be distinct axes in [0, rank)"};
    seen[static_cast<size_t>(a)] = true;
  }
}

int64_t axis_attr(const Builder& b, std::string_view name, int64_t dflt, int rank) {
  const int64_t a = b.int_attr(name, dflt);
  if (a < 0 || a >= rank) throw Malformed{"axis out of range"};
  return a;
}

/// The result's variables i0..i{R-1} as the space, and the variables themselves.
std::vector<X> result_space(Builder& b, IndexMap& m, int r = 0) {
  std::vector<X> i;
  for (int k = 0; k < b.rrank(r); ++k) {
    m.space.push_back(b.rdim(k, r).id);
    i.push_back(b.var(k));
  }
  m.out_vars = b.rrank(r);
  return i;
}

Access access(int operand, const std::vector<X>& idx, bool flat = false) { return Access{operand, flat, ids(idx)}; }

// ---- Move ----

void transpose(Builder& b, IndexMap& m) {
  const std::vector<int64_t>& perm = b.ints("perm");
  const int r = b.rank(0);
  if (static_cast<int>(perm.size()) != r || b.rrank() != r) throw Malformed{"perm, operand and result ranks differ"};
  axes_ok(perm, r, "perm");
  const std::vector<X> i = result_space(b, m);
  // result[i] = x[j] with j[perm[k]] = i[k].
  std::vector<X> j(static_cast<size_t>(r));
  for (int k = 0; k < r; ++k) j[static_cast<size_t>(perm[static_cast<size_t>(k)])] = i[static_cast<size_t>(k)];
  m.cases.push_back({{}, {access(0, j)}});
}

void broadcast(Builder& b, IndexMap& m) {
  const int r = b.rrank(), xr = b.rank(0);
  if (xr > r) throw Malformed{"operand rank exceeds result rank"};
  const std::vector<X> i = result_space(b, m);
  // Right-aligned: x axis k is result axis k + (r - xr); a size-1 axis reads position 0.
  std::vector<X> j;
  for (int k = 0; k < xr; ++k) j.push_back(select(b.dim(0, k) == 1, b.c(0), i[static_cast<size_t>(k + r - xr)]));
  m.cases.push_back({{}, {access(0, j)}});
}

void reshape(Builder& b, IndexMap& m) {
  const std::vector<X> i = result_space(b, m);
  // Row-major order is kept: the result's flat position is x's flat position.
  X flat = b.c(0);
  for (int k = 0; k < b.rrank(); ++k) flat = flat * b.rdim(k) + i[static_cast<size_t>(k)];
  m.cases.push_back({{}, {access(0, {flat}, true)}});
}

void slice(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r) throw Malformed{"starts, operand and result ranks differ"};
  b.per_axis("starts", r, true);
  const std::vector<X> i = result_space(b, m);
  std::vector<X> j;
  for (int k = 0; k < r; ++k) j.push_back(i[static_cast<size_t>(k)] + b.attr("starts", k, 0));
  m.cases.push_back({{}, {access(0, j)}});
}

void concat(Builder& b, IndexMap& m) {
  const int r = b.rrank();
  const int64_t axis = axis_attr(b, "axis", -1, r);
  const std::vector<X> i = result_space(b, m);
  // Operand k covers [off_k, off_k + dim(k, axis)) of the axis; the first case that holds wins.
  X off = b.c(0);
  for (size_t k = 0; k < b.num_operands(); ++k) {
    if (b.rank(static_cast<int>(k)) != r) throw Malformed{"operand ranks differ"};
    const X next = off + b.dim(static_cast<int>(k), static_cast<int>(axis));
    std::vector<X> j = i;
    j[static_cast<size_t>(axis)] = i[static_cast<size_t>(axis)] - off;
    Case c{{}, {access(static_cast<int>(k), j)}};
    if (k + 1 < b.num_operands()) c.when.push_back((i[static_cast<size_t>(axis)] < next).id);
    m.cases.push_back(std::move(c));
    off = next;
  }
}

void pad(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r) throw Malformed{"low/high/interior, operand and result ranks differ"};
  b.per_axis("low", r, true);
  b.per_axis("high", r, true);
  b.per_axis("interior", r, false);
  const std::vector<X> i = result_space(b, m);
  // Result position i reads x[p / s] when p = i - low is >= 0, a multiple of s = interior + 1, and p / s
  // is inside x; elsewhere the padding value.
  Case c;
  std::vector<X> j;
  for (int k = 0; k < r; ++k) {
    const X p = i[static_cast<size_t>(k)] - b.attr("low", k, 0);
    const X s = b.attr("interior", k, 0) + 1;
    const X q = floordiv(p, s);
    c.when.push_back((p >= 0).id);
    c.when.push_back((mod(p, s) == 0).id);
    c.when.push_back((q < b.dim(0, k)).id);
    j.push_back(q);
  }
  c.reads.push_back(access(0, j));
  m.cases.push_back(std::move(c));
  m.otherwise = Otherwise::Value;
}

void tile(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r) throw Malformed{"repeats, operand and result ranks differ"};
  b.per_axis("repeats", r, true);
  const std::vector<X> i = result_space(b, m);
  std::vector<X> j;
  for (int k = 0; k < r; ++k) j.push_back(mod(i[static_cast<size_t>(k)], b.dim(0, k)));
  m.cases.push_back({{}, {access(0, j)}});
}

void iota(Builder& b, IndexMap& m) {
  const int64_t axis = axis_attr(b, "axis", -1, b.rrank());
  const std::vector<X> i = result_space(b, m);
  m.otherwise = Otherwise::Index;
  m.index_value = i[static_cast<size_t>(axis)].id;
}

/// UB when the index operand's element at some position is outside [0, bound).
void index_check(Builder& b, IndexMap& m, int operand, X bound, Check::What what = Check::What::Index) {
  Check ck;
  ck.what = what;
  ck.operand = operand;
  std::vector<X> v;
  for (int k = 0; k < b.rank(operand); ++k) {
    ck.space.push_back(b.dim(operand, k).id);
    v.push_back(b.var(k));
  }
  ck.bad = (!in_range(b.read(operand, v), bound)).id;
  ck.bound = bound.id;
  m.checks.push_back(std::move(ck));
}

void take(Builder& b, IndexMap& m) {
  const int xr = b.rank(0), ir = b.rank(1);
  if (xr < 1 || b.rrank() != ir + xr - 1) throw Malformed{"result rank must be rank(idx) + rank(x) - 1"};
  const std::vector<X> i = result_space(b, m);
  // result[i.., j..] = x[idx[i..], j..]
  const std::vector<X> lead(i.begin(), i.begin() + ir);
  std::vector<X> j{b.read(1, lead)};
  j.insert(j.end(), i.begin() + ir, i.end());
  m.cases.push_back({{}, {access(0, j)}});
  index_check(b, m, 1, b.dim(0, 0));
}

void gather(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  const int64_t axis = axis_attr(b, "axis", -1, r);
  if (b.rank(1) != r || b.rrank() != r) throw Malformed{"indices and result must have x's rank"};
  const std::vector<X> i = result_space(b, m);
  std::vector<X> j = i;
  j[static_cast<size_t>(axis)] = b.read(1, i);
  m.cases.push_back({{}, {access(0, j)}});
  index_check(b, m, 1, b.dim(0, static_cast<int>(axis)));
}

/// Start k of a dynamic slice, clamped into [0, dim(0, k) - size_k].
X clamped_start(Builder& b, int start_operand, int k, X size) {
  return clamp(b.read(start_operand, {b.c(k)}), b.c(0), b.dim(0, k) - size);
}

void dynamic_slice(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r || b.rank(1) != 1) throw Malformed{"result rank differs from x, or start is not 1-D"};
  const std::vector<X> i = result_space(b, m);
  std::vector<X> j;
  for (int k = 0; k < r; ++k) j.push_back(clamped_start(b, 1, k, b.rdim(k)) + i[static_cast<size_t>(k)]);
  m.cases.push_back({{}, {access(0, j)}});
}

void dynamic_update_slice(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r || b.rank(1) != r || b.rank(2) != 1) throw Malformed{"update and result must have x's rank"};
  const std::vector<X> i = result_space(b, m);
  // Inside the update's window (at the clamped start) the update, elsewhere x.
  Case in;
  std::vector<X> q;
  for (int k = 0; k < r; ++k) {
    q.push_back(i[static_cast<size_t>(k)] - clamped_start(b, 2, k, b.dim(1, k)));
    in.when.push_back((q.back() >= 0).id);
    in.when.push_back((q.back() < b.dim(1, k)).id);
  }
  in.reads.push_back(access(1, q));
  m.cases.push_back(std::move(in));
  m.cases.push_back({{}, {access(0, i)}});
}

void extract_patches(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r + 1) throw Malformed{"result rank must be rank(x) + 1"};
  b.per_axis("window", r, true);
  for (const char* a : {"strides", "dilation", "pad_low", "pad_high"}) b.per_axis(a, r, false);
  const std::vector<X> i = result_space(b, m);
  // result[o.., K] with K the row-major position (k_0, ..) in the window: x[o_d * s_d + k_d * dil_d - pl_d],
  // the padding value outside x.
  Case c;
  std::vector<X> j;
  X inner = b.c(1);  // product of the window sizes after d
  std::vector<X> k(static_cast<size_t>(r));
  for (int d = r - 1; d >= 0; --d) {
    const X w = b.attr("window", d, 1);
    k[static_cast<size_t>(d)] = mod(floordiv(i[static_cast<size_t>(r)], inner), w);
    inner = inner * w;
  }
  for (int d = 0; d < r; ++d) {
    const X pos = i[static_cast<size_t>(d)] * b.attr("strides", d, 1) +
                  k[static_cast<size_t>(d)] * b.attr("dilation", d, 1) - b.attr("pad_low", d, 0);
    c.when.push_back((pos >= 0).id);
    c.when.push_back((pos < b.dim(0, d)).id);
    j.push_back(pos);
  }
  c.reads.push_back(access(0, j));
  m.cases.push_back(std::move(c));
  m.otherwise = Otherwise::Value;
}

// ---- Fold ----

/// reduce_* and argmax: the result's variables, then one reduction variable per reduced axis (in
/// increasing axis order: the fold order is row-major in the reduced coordinates).
void reduce_over(Builder& b, IndexMap& m, std::vector<int64_t> axes, bool keepdims) {
  const int r = b.rank(0);
  axes_ok(axes, r, "axes");
  std::sort(axes.begin(), axes.end());
  const int out_rank = keepdims ? r : r - static_cast<int>(axes.size());
  if (b.rrank() != out_rank) throw Malformed{"result rank does not match the reduction"};
  const std::vector<X> i = result_space(b, m);
  std::vector<X> j;
  int next_out = 0, next_red = 0;
  for (int d = 0; d < r; ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
    if (reduced) {
      m.space.push_back(b.dim(0, d).id);
      j.push_back(b.var(out_rank + next_red++));
      if (keepdims) ++next_out;
    } else {
      j.push_back(i[static_cast<size_t>(next_out++)]);
    }
  }
  m.cases.push_back({{}, {access(0, j)}});
}

void dot_general(Builder& b, IndexMap& m) {
  const std::vector<int64_t>&bl = b.ints("batch_lhs"), &br = b.ints("batch_rhs");
  const std::vector<int64_t>&cl = b.ints("contract_lhs"), &cr = b.ints("contract_rhs");
  if (bl.size() != br.size() || cl.size() != cr.size()) throw Malformed{"dimension lists pair up unevenly"};
  const int lr = b.rank(0), rr = b.rank(1);
  std::vector<int64_t> lall = bl, rall = br;
  lall.insert(lall.end(), cl.begin(), cl.end());
  rall.insert(rall.end(), cr.begin(), cr.end());
  axes_ok(lall, lr, "batch/contract dims");
  axes_ok(rall, rr, "batch/contract dims");
  const int nb = static_cast<int>(bl.size()), nc = static_cast<int>(cl.size());
  const int nfl = lr - nb - nc, nfr = rr - nb - nc;
  if (b.rrank() != nb + nfl + nfr) throw Malformed{"result rank does not match the dimension numbers"};
  const std::vector<X> i = result_space(b, m);
  // Result axes: batch, lhs free, rhs free; reduction variables: the contracting pairs in order.
  std::vector<X> jl(static_cast<size_t>(lr)), jr(static_cast<size_t>(rr));
  for (int k = 0; k < nb; ++k)
    jl[static_cast<size_t>(bl[static_cast<size_t>(k)])] = jr[static_cast<size_t>(br[static_cast<size_t>(k)])] =
        i[static_cast<size_t>(k)];
  for (int k = 0; k < nc; ++k) {
    m.space.push_back(b.dim(0, static_cast<int>(cl[static_cast<size_t>(k)])).id);
    jl[static_cast<size_t>(cl[static_cast<size_t>(k)])] = jr[static_cast<size_t>(cr[static_cast<size_t>(k)])] =
        b.var(m.out_vars + k);
  }
  int o = nb;
  for (int d = 0; d < lr; ++d)
    if (!jl[static_cast<size_t>(d)].b) jl[static_cast<size_t>(d)] = i[static_cast<size_t>(o++)];
  for (int d = 0; d < rr; ++d)
    if (!jr[static_cast<size_t>(d)].b) jr[static_cast<size_t>(d)] = i[static_cast<size_t>(o++)];
  m.cases.push_back({{}, {access(0, jl), access(1, jr)}});
}

void reduce_window(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (b.rrank() != r) throw Malformed{"result rank must be x's"};
  b.per_axis("window", r, true);
  for (const char* a : {"strides", "pad_low", "pad_high", "base_dilation", "window_dilation"}) b.per_axis(a, r, false);
  const std::vector<X> i = result_space(b, m);
  // Window position w of output o reads the dilated coordinate o * s + w * wd - pl; it is a real
  // element when inside [0, (d - 1) * bd + 1) (0 when d = 0) and a multiple of bd; x[pos / bd].
  Case c;
  std::vector<X> j;
  for (int d = 0; d < r; ++d) {
    m.space.push_back(b.attr("window", d, 1).id);
    const X w = b.var(r + d);
    const X pos = i[static_cast<size_t>(d)] * b.attr("strides", d, 1) + w * b.attr("window_dilation", d, 1) -
                  b.attr("pad_low", d, 0);
    const X bd = b.attr("base_dilation", d, 1);
    const X xd = b.dim(0, d);
    const X dilated = select(xd == 0, b.c(0), (xd - 1) * bd + 1);
    c.when.push_back((pos >= 0).id);
    c.when.push_back((pos < dilated).id);
    c.when.push_back((mod(pos, bd) == 0).id);
    j.push_back(floordiv(pos, bd));
  }
  c.reads.push_back(access(0, j));
  m.cases.push_back(std::move(c));
}

void top_k(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  const int64_t axis = axis_attr(b, "axis", r - 1, r);
  if (b.rrank(0) != r || b.rrank(1) != r) throw Malformed{"results must have x's rank"};
  const std::vector<X> i = result_space(b, m);
  // Every result position along `axis` ranks the same line of x: x[i with i[axis] := r].
  m.space.push_back(b.dim(0, static_cast<int>(axis)).id);
  std::vector<X> j = i;
  j[static_cast<size_t>(axis)] = b.var(r);
  m.cases.push_back({{}, {access(0, j)}});
}

// ---- Scatter ----

void scatter_reduce(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  const int64_t axis = axis_attr(b, "axis", -1, r);
  if (b.rank(1) != r || b.rank(2) != r || b.rrank() != r) throw Malformed{"idx, src and result must have x's rank"};
  // Each position p of idx (and src) goes to result[p with p[axis] := idx[p]].
  std::vector<X> p;
  for (int k = 0; k < r; ++k) {
    m.space.push_back(b.dim(1, k).id);
    p.push_back(b.var(k));
  }
  std::vector<X> t = p;
  t[static_cast<size_t>(axis)] = b.read(1, p);
  m.target = ids(t);
  m.cases.push_back({{}, {access(2, p)}});
  index_check(b, m, 1, b.dim(0, static_cast<int>(axis)));
}

void scatter_add(Builder& b, IndexMap& m) {
  const std::vector<int64_t>&uwd = b.ints("update_window_dims"), &iwd = b.ints("inserted_window_dims");
  const std::vector<int64_t>& sd2od = b.ints("scatter_dims_to_operand_dims");
  const int64_t ivd = b.int_attr("index_vector_dim", -1);
  const int R = b.rank(0), I = b.rank(1), U = b.rank(2);
  if (b.rrank() != R) throw Malformed{"the result must have x's rank"};
  if (ivd < 0 || ivd > I) throw Malformed{"index_vector_dim out of range"};
  if (!std::is_sorted(uwd.begin(), uwd.end()) || !std::is_sorted(iwd.begin(), iwd.end())) throw Malformed{"unsorted window dims"};
  axes_ok(uwd, U, "update_window_dims");
  axes_ok(iwd, R, "inserted_window_dims");
  axes_ok(sd2od, R, "scatter_dims_to_operand_dims");
  if (static_cast<int>(uwd.size() + iwd.size()) != R) throw Malformed{"window dims do not cover the operand dims"};
  if (ivd == I && sd2od.size() != 1) throw Malformed{"scatter_dims_to_operand_dims has the wrong length"};
  if (U - static_cast<int>(uwd.size()) != I - (ivd < I ? 1 : 0)) throw Malformed{"update scatter dims do not match the indices"};
  std::vector<X> u;
  for (int k = 0; k < U; ++k) {
    m.space.push_back(b.dim(2, k).id);
    u.push_back(b.var(k));
  }
  // The index vector of update position u: the update's scatter dims in order fill the indices' dims
  // other than index_vector_dim, which runs over the vector.
  std::vector<X> g;  // u's scatter coordinates
  for (int d = 0; d < U; ++d)
    if (!std::binary_search(uwd.begin(), uwd.end(), d)) g.push_back(u[static_cast<size_t>(d)]);
  auto idx_at = [&](int k) {
    std::vector<X> pos;
    size_t gi = 0;
    for (int d = 0; d < I; ++d) pos.push_back(d == ivd ? b.c(k) : g[gi++]);
    return b.read(1, pos);
  };
  std::vector<X> start(static_cast<size_t>(R), b.c(0)), woff(static_cast<size_t>(R), b.c(0)),
      extent(static_cast<size_t>(R), b.c(1));
  for (size_t k = 0; k < sd2od.size(); ++k) start[static_cast<size_t>(sd2od[k])] = idx_at(static_cast<int>(k));
  for (int d = 0, k = 0; d < R; ++d)
    if (!std::binary_search(iwd.begin(), iwd.end(), d)) {
      const int ud = static_cast<int>(uwd[static_cast<size_t>(k++)]);
      woff[static_cast<size_t>(d)] = u[static_cast<size_t>(ud)];
      extent[static_cast<size_t>(d)] = b.dim(2, ud);
    }
  // The whole window must fit (0 <= start <= dim - extent on every axis), else the update is skipped.
  Case c;
  std::vector<X> t;
  for (int d = 0; d < R; ++d) {
    c.when.push_back((start[static_cast<size_t>(d)] >= 0).id);
    c.when.push_back((start[static_cast<size_t>(d)] <= b.dim(0, d) - extent[static_cast<size_t>(d)]).id);
    t.push_back(start[static_cast<size_t>(d)] + woff[static_cast<size_t>(d)]);
  }
  c.reads.push_back(access(2, u));
  m.cases.push_back(std::move(c));
  m.target = ids(t);
}

void segment_reduce(Builder& b, IndexMap& m) {
  const int r = b.rank(0);
  if (r < 1 || b.rank(1) != 1 || b.rrank() != r) throw Malformed{"segment_ids must be 1-D and the result x's rank"};
  // Row p of x folds into result[segment_ids[p], ..] (in increasing row order, from the identity).
  std::vector<X> p;
  for (int k = 0; k < r; ++k) {
    m.space.push_back(b.dim(0, k).id);
    p.push_back(b.var(k));
  }
  std::vector<X> t = p;
  t[0] = b.read(1, {p[0]});
  m.target = ids(t);
  m.init = Init::Identity;
  m.cases.push_back({{}, {access(0, p)}});
  index_check(b, m, 1, b.attr("num_segments", 0, -1), Check::What::SegmentId);
}

}  // namespace

std::optional<IndexMap> index_map(OpCode op, const AttrSet& attrs, std::span<const TensorType> operands,
                                  std::span<const TensorType> results, Sizes sizes, std::string* error) {
  IndexMap m;
  m.op = op;
  m.kind = op_kind(op);
  Builder b(m, attrs, operands, results, sizes);
  try {
    switch (op) {
      case OpCode::Transpose: transpose(b, m); break;
      case OpCode::BroadcastTo: broadcast(b, m); break;
      case OpCode::Reshape: reshape(b, m); break;
      case OpCode::Slice: slice(b, m); break;
      case OpCode::Concat: concat(b, m); break;
      case OpCode::Pad: pad(b, m); break;
      case OpCode::Tile: tile(b, m); break;
      case OpCode::Iota: iota(b, m); break;
      case OpCode::Take: take(b, m); break;
      case OpCode::Gather: gather(b, m); break;
      case OpCode::DynamicSlice: dynamic_slice(b, m); break;
      case OpCode::DynamicUpdateSlice: dynamic_update_slice(b, m); break;
      case OpCode::ExtractPatches: extract_patches(b, m); break;
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
        reduce_over(b, m, attrs.ints("axes"), attrs.bool_or("keepdims", false));
        break;
      case OpCode::Argmax:
        reduce_over(b, m, {attrs.int_or("axis", -1)}, attrs.bool_or("keepdims", false));
        break;
      case OpCode::DotGeneral: dot_general(b, m); break;
      case OpCode::ReduceWindow: reduce_window(b, m); break;
      case OpCode::TopK: top_k(b, m); break;
      case OpCode::ScatterReduce: scatter_reduce(b, m); break;
      case OpCode::ScatterAdd: scatter_add(b, m); break;
      case OpCode::SegmentReduce: segment_reduce(b, m); break;
      case OpCode::Constant: case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log:
      case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
      case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Maximum:
      case OpCode::Minimum: case OpCode::Compare: case OpCode::Select: case OpCode::Cast:
      case OpCode::StopGradient: case OpCode::Cond: case OpCode::While: case OpCode::Scan:
      case OpCode::RngUniform: case OpCode::RngNormal: case OpCode::Quantize: case OpCode::Dequantize:
      case OpCode::Requantize: case OpCode::CustomCall: case OpCode::Return:
        if (error) *error = std::string(mnemonic(op)) + ": no index map (an op of kind " + kind_name(m.kind) + ")";
        return std::nullopt;
    }
  } catch (const Malformed& e) {
    if (error) *error = std::string(mnemonic(op)) + ": " + e.what;
    return std::nullopt;
  }
  for (Case& c : m.cases)  // conjuncts that folded to true say nothing
    std::erase_if(c.when, [&](ExprId e) { return m.node(e).op == Op::Const && m.node(e).v != 0; });
  return m;
}

}  // namespace ptir::imap
