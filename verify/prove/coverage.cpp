// Coverage classes (verify/prove/coverage.h): the analysis of a source DAG, the reachability rules and
// the classification of generated instances. docs/verification.md "Coverage" states every rule here.
#include "verify/prove/coverage.h"

#include <algorithm>
#include <numeric>
#include <functional>
#include <map>

#include "rewriter/rules/natives.h"

namespace ptir::prove {

using rules::Constraint;
using rules::Node;

namespace {

constexpr int kAny = NodeSteer::kAny;
const char* const kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};
const char* const kKeep[] = {"absent", "false", "true"};

/// How a node's rank relates to the root's rank r.
enum class Rel : uint8_t {
  Same,     ///< exactly r (elementwise ops, transpose, slice, pad, tile, concat all keep the rank)
  AtMost,   ///< at most r (under a broadcast_to operand)
  AtLeast,  ///< at least r (under a reduction's operand)
  Free,     ///< unrelated (under reshape or dot_general operands)
};
Rel chain(Rel a, Rel b) {
  if (a == Rel::Same) return b;
  if (b == Rel::Same) return a;
  return a == b ? a : Rel::Free;
}
Rel edge_rel(OpCode op) {
  switch (op) {
    case OpCode::BroadcastTo: return Rel::AtMost;
    case OpCode::Reshape:
    case OpCode::DotGeneral:
    case OpCode::DynamicSlice:  // the start is 1-D whatever the rank
    case OpCode::DynamicUpdateSlice:
    case OpCode::Take:
    case OpCode::Gather:
    case OpCode::ScatterReduce:
    case OpCode::ScatterAdd:
    case OpCode::SegmentReduce:
    case OpCode::ExtractPatches:
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize:
    case OpCode::Argmax: return Rel::Free;
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin: return Rel::AtLeast;
    default: return Rel::Same;
  }
}
bool is_reduce(OpCode op) { return op == OpCode::ReduceSum || op == OpCode::ReduceMax || op == OpCode::ReduceMin; }
bool has_accum(OpCode op) { return is_reduce(op) || op == OpCode::DotGeneral; }

const rules::AttrExpr* source_attr(const Node& n, const std::string& name) {
  for (const auto& a : n.attrs)
    if (a.name == name) return &a;
  return nullptr;
}
bool literal_attr(const Node& n, const std::string& name) {
  const rules::AttrExpr* a = source_attr(n, name);
  return a && a->kind != rules::AttrExpr::Kind::Capture;
}

}  // namespace

/// The analysed DAG: pre-order nodes, rank relations, dtype variables and capture lookups.
struct Skeleton {
  std::vector<const Node*> nodes;
  std::vector<int> parent;
  std::vector<Rel> rel;
  std::vector<bool> any_dims;    ///< under a reduction or dot_general operand: its axes are drawn freely
  std::vector<bool> reshaped;    ///< under a reshape operand
  std::vector<std::string> label;
  std::vector<int> var;          ///< dtype variable of each node
  std::vector<std::string> var_name;
  std::vector<std::vector<int>> var_members;
  std::map<std::string, std::vector<int>> values;  ///< %x -> Value nodes named x and the node bound `as %x`
  std::map<std::string, std::vector<int>> types;   ///< $T -> nodes typed `: $T`
  std::map<std::string, std::vector<std::pair<int, std::string>>> attrs;  ///< $p -> (node, attribute)
  std::map<std::string, int> lits;                 ///< $c -> const($c) node
  std::vector<int> dims_of_var;                    ///< dtype variables with a "dtype" dimension
  std::vector<std::string> shared;                 ///< `as` names used again as values
  uint8_t assumes = 0;
  std::vector<int> leaves() const {
    std::vector<int> out;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]->kind != Node::Kind::Op) out.push_back(static_cast<int>(i));
    return out;
  }
};

namespace {

/// Pairs (j, i) of casts where cast j's result reaches cast i's operand through ops that keep the
/// dtype (j in the subtree of i's operand, its dtype variable that of i's operand): cast(cast(x)),
/// cast(stop_gradient(cast(x))), cast(select(c, cast(x), y)), cast(add(cast(x), y)), ...
std::vector<std::pair<int, int>> cast_pairs(const Skeleton& k) {
  std::vector<std::pair<int, int>> out;
  for (size_t ii = 0; ii < k.nodes.size(); ++ii) {
    const Node& x = *k.nodes[ii];
    if (x.kind != Node::Kind::Op || x.op != OpCode::Cast || x.operands.empty()) continue;
    const int i = static_cast<int>(ii);
    const int end = i + 1 + static_cast<int>(preorder(*x.operands[0]).size());
    for (int j = i + 1; j < end && j < static_cast<int>(k.nodes.size()); ++j) {
      const Node& y = *k.nodes[j];
      if (y.kind == Node::Kind::Op && y.op == OpCode::Cast && !y.operands.empty() && k.var[j] == k.var[i + 1])
        out.emplace_back(j, i);
    }
  }
  return out;
}

// ---- class names (shared by the plan and the classifier) ----
std::string n_rank(int r) { return "rank " + std::to_string(r); }
std::string n_dtype(const Skeleton& k, int v, DType d) { return "dtype " + k.var_name[v] + " = " + dtype_name(d); }
std::string n_accum(const Skeleton& k, int i, int a) {
  return "accum " + k.label[i] + " = " + (a < 0 ? std::string("absent") : dtype_name(static_cast<DType>(a)));
}
std::string n_keep(const Skeleton& k, int i, int m) { return "keepdims " + k.label[i] + " = " + kKeep[m]; }
std::string n_dir(const Skeleton& k, int i, int d) { return "dir " + k.label[i] + " = " + kDirs[d]; }
std::string n_perm(const Skeleton& k, int i, int m) {
  static const char* w[] = {"identity", "not identity", "not commuting with another perm"};
  return "perm " + k.label[i] + " = " + w[m];
}
std::string n_axes_order(const Skeleton& k, int i) { return "axes " + k.label[i] + " = not increasing"; }
std::string n_axes_shuffled(const Skeleton& k, int i) {
  return "axes " + k.label[i] + " = three or more, neither increasing nor decreasing";
}
/// NodeSteer::wide classes (instance.h): values beyond the generator's narrow ranges.
const char* const kWindowAttrNames[6] = {"window", "strides", "window_dilation", "base_dilation", "pad_low", "pad_high"};
/// a = 0..5 as kWindowAttrNames (pads: 4, 5 some <= -2), 6 and 7 pad_low and pad_high some >= 3.
std::string n_wide_window(const Skeleton& k, int i, int a, bool patches) {
  static const char* what[8] = {"some >= 4", "some >= 4 with two windows or more on its axis",
                                "some >= 3 with a window >= 2 on its axis", "some >= 3 on an operand axis >= 2",
                                "some <= -2", "some <= -2", "some >= 3", "some >= 3"};
  return std::string(a == 2 && patches ? "dilation" : kWindowAttrNames[a < 6 ? a : a - 2]) + " " + k.label[i] + " = " +
         what[a];
}
std::string n_concat_two_big(const Skeleton& k, int i) {
  return "operands " + k.label[i] + " = two of 2 or more along the axis";
}
std::string n_hidden(const Skeleton& k, int i) {
  return "hidden axes " + k.label[i] + " = some >= 4";
}
/// Whether an instance of `op` has an operand axis its result does not show of 4 or more
/// (NodeSteer::hidden).
bool hidden_axis_big(const Program& p, InstId d, OpCode op) {
  const TensorType& x = p.type_of(p.operand(d, 0));
  const AttrSet& a = p.attrs_of(d);
  const auto big = [&](int64_t ax) { return ax >= 0 && ax < x.rank() && x.dims[ax] >= 4; };
  switch (op) {
    case OpCode::Take:
    case OpCode::SegmentReduce: return big(0);
    case OpCode::Gather: return big(a.int_or("axis", 0));
    case OpCode::Argmax: return big(a.int_or("axis", 0));
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin:
      for (int64_t ax : a.ints("axes"))
        if (big(ax)) return true;
      return false;
    case OpCode::DotGeneral:
      for (int64_t ax : a.ints("contract_lhs"))
        if (big(ax)) return true;
      return false;
    case OpCode::ScatterReduce: {  // the indices' (and updates') scatter axis
      const TensorType& idx = p.type_of(p.operand(d, 1));
      const int64_t ax = a.int_or("axis", 0);
      return ax >= 0 && ax < idx.rank() && idx.dims[ax] >= 4;
    }
    default: return false;
  }
}
std::string n_wide_interior(const Skeleton& k, int i) {
  return "interior " + k.label[i] + " = some >= 3 on an operand axis >= 2";
}
std::string n_wide_scatter(const Skeleton& k, int i, int m) {
  return "dims " + k.label[i] + " = " + (m == 0 ? "an index vector of 3 axes of size >= 2" : "a scatter dim >= 3");
}
/// Whether window attribute `a` (kWindowAttrNames) of a reduce_window / extract_patches instance is wide
/// on some axis where it can matter (a missing list is its default, never wide): a stride with two
/// windows or more, a window dilation with a window of 2 or more, a base dilation of an operand axis of 2
/// or more. `x`: the operand's dims, `out`: the window positions (the result's, without extract_patches'
/// last axis).
bool window_attr_wide(const AttrSet& s, int a, bool patches, const std::vector<int64_t>& x, const std::vector<int64_t>& out) {
  const std::string name = a == 2 && patches ? "dilation" : kWindowAttrNames[a < 6 ? a : a - 2];
  const std::vector<int64_t>& v = s.ints(name);
  const std::vector<int64_t>& w = s.ints("window");
  for (size_t j = 0; j < v.size(); ++j) {
    if (a == 0 && v[j] >= 4) return true;
    if (a == 1 && v[j] >= 4 && j < out.size() && out[j] >= 2) return true;
    if (a == 2 && v[j] >= 3 && j < w.size() && w[j] >= 2) return true;
    if (a == 3 && v[j] >= 3 && j < x.size() && x[j] >= 2) return true;
    if ((a == 4 || a == 5) && v[j] <= -2) return true;
    if (a >= 6 && v[j] >= 3) return true;
  }
  return false;
}
std::string n_axes_count(const Skeleton& k, int i, bool many) {
  return "axes " + k.label[i] + (many ? " = three or more" : " = none");
}
/// An optional attribute written to another value than its default (AttrSpec::dflt).
std::string n_optattr(const Skeleton& k, int i, std::string_view name) {
  return std::string(name) + " " + k.label[i] + " = not default";
}
std::string n_scatter(const Skeleton& k, int i) { return "dims " + k.label[i] + " = not the leading configuration"; }
std::string n_quant_shapes(const Skeleton& k, int i) {
  return "operands " + k.label[i] + " = not the result's shape and scalars";
}

/// The rank node `i` needs for a non-default value of its optional attribute `s` (-1: none).
int optattr_rank(OpCode op, const AttrSpec& s) {
  if (s.dflt == AttrDefault::Last) return 2;  // top_k: another axis than the last
  if (s.dflt == AttrDefault::Absent) return -1;  // the quantize family: an axis of x, whose rank is free
  if (op == OpCode::Argmax) return 1;            // keepdims[true] keeps the reduced axis (size 1)
  if (s.role == AttrRole::PerAxis || s.role == AttrRole::Axis) return op == OpCode::ExtractPatches ? 2 : 1;
  return -1;
}

/// Whether instance `d`'s optional attribute `s` is written to another value than its default, and (a
/// fill `value`) read: pad's and extract_patches' fill is read only where the result has padding, so a
/// class fired by a fill on an instance without padding proved nothing about the fill.
bool optattr_fired(const Program& p, InstId d, const AttrSpec& s) {
  const AttrValue* v = p.attrs_of(d).find(s.name);
  if (!v || attr_is_default(s, *v, p.type_of(p.operand(d, 0)).rank())) return false;
  if (s.name != "value") return true;
  const AttrSet& a = p.attrs_of(d);
  const TensorType& x = p.type_of(p.operand(d, 0));
  const auto positive = [](const std::vector<int64_t>& l) {
    return std::any_of(l.begin(), l.end(), [](int64_t e) { return e > 0; });
  };
  if (p.type_of(p.result(d, 0)).num_elements() == 0) return false;  // nothing read at all
  if (p.op(d) == OpCode::Pad) {
    if (positive(a.ints("low")) || positive(a.ints("high")) || x.num_elements() == 0) return true;
    const auto& in = a.ints("interior");
    for (size_t k = 0; k < in.size() && static_cast<int>(k) < x.rank(); ++k)
      if (in[k] > 0 && x.dims[k] >= 2) return true;
    return false;
  }
  if (p.op(d) == OpCode::ExtractPatches) return positive(a.ints("pad_low")) || positive(a.ints("pad_high"));
  return true;
}
std::string n_dot(const Skeleton& k, int i, int m) {
  static const char* w[] = {"leading",
                            "batch_lhs != batch_rhs",
                            "contract_lhs != contract_rhs",
                            "a contracting list not increasing",
                            "a batch list not increasing",
                            "batch or contracting axes placed among the free axes"};
  return "dims " + k.label[i] + " = " + w[m];
}
/// A permutation's order as a map on the data: the lcm of its cycles that move elements (a cycle
/// over axes that all have size 1 moves none). Every identity of a word in one permutation (p^6 = 1,
/// p^2 = p^-2, ...) depends only on it: p^6 = 1 for every permutation of at most 3 axes but not for a
/// 4-cycle, which is how a wrong rule over transpose^6 hid at rank 4.
std::string n_perm_order(const Skeleton& k, int i, int order) {
  return "perm " + k.label[i] + " of order " + std::to_string(order);
}
/// The smallest number of axes with a permutation of that order (the least sum of prime powers).
int min_axes_for_order(int order) {
  static const int m[] = {0, 1, 2, 3, 4, 5, 5};
  return order >= 1 && order <= 6 ? m[order] : 99;
}
int perm_order_on(const std::vector<int64_t>& pm, const TensorType& x) {
  if (x.num_elements() == 0) return 1;
  const size_t n = pm.size();
  std::vector<bool> seen(n, false);
  int order = 1;
  for (size_t s = 0; s < n; ++s) {
    if (seen[s]) continue;
    int len = 0;
    bool moves = false;
    for (size_t j = s; !seen[j]; j = static_cast<size_t>(pm[j])) {
      seen[j] = true;
      ++len;
      if (j < x.dims.size() && x.dims[j] != 1) moves = true;
      if (pm[j] < 0 || static_cast<size_t>(pm[j]) >= n) return 1;
    }
    if (moves && len > 1) order = std::lcm(order, len);
  }
  return order;
}
std::string n_padneg(const Skeleton& k, int i, bool neg) {
  return "low/high " + k.label[i] + " = " + (neg ? "some negative" : "none negative");
}
std::string n_interior(const Skeleton& k, int i, bool some) {
  return "interior " + k.label[i] + " = " + (some ? "some > 0" : "none");
}
std::string n_starts(const Skeleton& k, int i, bool some) {
  return "starts " + k.label[i] + " = " + (some ? "some > 0" : "all 0");
}
std::string n_repeats(const Skeleton& k, int i, int m) {
  static const char* w[] = {"all 1", "some 0", "some >= 2", "some >= 2 on an operand axis >= 2",
                            "some >= 3 on an operand axis >= 2"};
  return "repeats " + k.label[i] + " = " + w[m];
}
std::string n_brank(const Skeleton& k, int i, bool adds) {
  return "axes " + k.label[i] + " = " + (adds ? "leading axes added" : "same rank");
}
std::string n_bmove(const Skeleton& k, int i) {
  return "axes " + k.label[i] + " = leading axes added, an axis >= 2 moved";
}
std::string n_bexp(const Skeleton& k, int i, bool exp) {
  return "size-1 axes " + k.label[i] + " = " + (exp ? "some expanded" : "none expanded");
}
// How a cast from `a` to `b` loses information (docs/verification.md, "Coverage"): -1 it does not
// (rules::widens_exactly), else one of kCastLoss. A chain of two casts has a joint class for every pair.
const char* const kCastLoss[] = {"rounds", "truncates", "wraps", "tests"};
int cast_loss(DType a, DType b) {
  if (rules::widens_exactly(a, b)) return -1;
  if (b == DType::I1) return 3;       // x != 0
  if (is_float(b)) return 0;          // rounded to the nearest value of b (or overflowed)
  return is_float(a) ? 1 : 2;         // float -> integer truncates; integer -> integer wraps
}
std::string n_cast_chain(const Skeleton& k, int j, int i, int inner, int outer) {
  return "casts " + k.label[j] + " then " + k.label[i] + " = " + kCastLoss[inner] + " then " + kCastLoss[outer];
}
std::string n_sizes(int m) {
  static const char* w[] = {"some axis 0", "every axis 1", "some axis >= 2"};
  return std::string("input sizes = ") + w[m];
}
std::string n_shared(const std::string& r) { return "shared subterm %" + r; }
std::string n_flags(int bit) {
  switch (bit) {
    case 0: return "fast-math = the rule's own flags only";
    case rules::kNNaN: return "fast-math = +nnan";
    case rules::kNInf: return "fast-math = +ninf";
    case rules::kNSZ: return "fast-math = +nsz";
  }
  return "fast-math = +reassoc";
}

/// A flag with dtype variable V a float: the joint class of a variable that may be a float or not (a
/// flag fired on instances where V was an integer, where a zero sign or a NaN cannot show, and rules
/// wrong under nsz at an f64 root, and at an f16 operand under an i1 compare, were PROVED on every
/// seed: red teams, 2026-12-07).
std::string n_flags_float(const Skeleton& k, int v, int bit) { return n_flags(bit) + ", " + k.var_name[v] + " float"; }

std::string constraint_text(const Constraint& c) {
  if (c.cond) return c.text;
  std::string s = (c.negated ? "not " : "") + c.pred + "(";
  for (size_t i = 0; i < c.args.size(); ++i) {
    const auto& a = c.args[i];
    s += i ? ", " : "";
    switch (a.kind) {
      case Constraint::Arg::Kind::Value: s += "%" + a.name; break;
      case Constraint::Arg::Kind::Capture: s += "$" + a.name; break;
      case Constraint::Arg::Kind::Word: s += a.name; break;
      case Constraint::Arg::Kind::Int: s += std::to_string(a.i); break;
    }
  }
  return s + ")";
}

Skeleton analyse(const Node& source, uint8_t assumes) {
  Skeleton k;
  k.assumes = assumes;
  k.nodes = preorder(source);
  const int n = static_cast<int>(k.nodes.size());
  std::map<const Node*, int> id;
  for (int i = 0; i < n; ++i) id[k.nodes[i]] = i;
  k.parent.assign(n, -1);
  k.rel.assign(n, Rel::Same);
  k.any_dims.assign(n, false);
  k.reshaped.assign(n, false);
  for (int i = 0; i < n; ++i)
    for (size_t at = 0; at < k.nodes[i]->operands.size(); ++at) {
      const auto& o = k.nodes[i]->operands[at];
      const int j = id[o.get()];
      k.parent[j] = i;
      const OpCode op = k.nodes[i]->op;
      // dynamic_slice's x and dynamic_update_slice's x and update have the result's rank; a start is
      // 1-D whatever it is.
      const bool same_rank_operand = (op == OpCode::DynamicSlice && at == 0) || (op == OpCode::DynamicUpdateSlice && at < 2);
      k.rel[j] = chain(k.rel[i], same_rank_operand ? Rel::Same : edge_rel(op));
      k.any_dims[j] = k.any_dims[i] || is_reduce(op) || op == OpCode::DotGeneral;
      k.reshaped[j] = k.reshaped[i] || op == OpCode::Reshape;
    }
  // Labels: the op's mnemonic, numbered in pre-order when it occurs more than once.
  std::map<OpCode, int> count, seen;
  for (const Node* x : k.nodes)
    if (x->kind == Node::Kind::Op) ++count[x->op];
  k.label.assign(n, "");
  for (int i = 0; i < n; ++i) {
    const Node& x = *k.nodes[i];
    if (x.kind != Node::Kind::Op) continue;
    k.label[i] = std::string(mnemonic(x.op));
    if (count[x.op] > 1) k.label[i] += "#" + std::to_string(++seen[x.op]);
  }
  // Captures.
  for (int i = 0; i < n; ++i) {
    const Node& x = *k.nodes[i];
    if (x.kind == Node::Kind::Value) k.values[x.name].push_back(i);
    if (!x.as_name.empty()) k.values[x.as_name].push_back(i);
    if (!x.type_capture.empty()) k.types[x.type_capture].push_back(i);
    if (x.kind == Node::Kind::Const) k.lits[x.name] = i;
    for (const auto& a : x.attrs)
      if (a.kind == rules::AttrExpr::Kind::Capture) k.attrs[a.capture].push_back({i, a.name});
  }
  for (int i = 0; i < n; ++i) {
    const Node& x = *k.nodes[i];
    if (x.kind == Node::Kind::Op && !x.as_name.empty() && k.values[x.as_name].size() > 1) k.shared.push_back(x.as_name);
  }
  // Dtype variables: union-find over the type rules (elementwise ops and shape ops keep the dtype;
  // compare's operands share one; select's branches are its result; cast separates), repeated
  // captures, `as` names and `: $T` captures.
  std::vector<int> uf(n);
  for (int i = 0; i < n; ++i) uf[i] = i;
  std::function<int(int)> find = [&](int a) { return uf[a] == a ? a : uf[a] = find(uf[a]); };
  auto unite = [&](int a, int b) { uf[find(a)] = find(b); };
  for (int i = 0; i < n; ++i) {
    const Node& x = *k.nodes[i];
    if (x.kind != Node::Kind::Op) continue;
    std::vector<int> ops;
    for (const auto& o : x.operands) ops.push_back(id[o.get()]);
    switch (x.op) {
      case OpCode::Compare:
        for (size_t j = 1; j < ops.size(); ++j) unite(ops[0], ops[j]);
        break;
      case OpCode::Select:
        for (size_t j = 1; j < ops.size(); ++j) unite(i, ops[j]);
        break;
      case OpCode::Cast: break;
      // Index operands (starts, indices) and argmax's integer result have dtypes of their own.
      case OpCode::DynamicSlice:
      case OpCode::Take:
      case OpCode::Gather: unite(i, ops[0]); break;
      case OpCode::DynamicUpdateSlice: unite(i, ops[0]), unite(i, ops[1]); break;
      case OpCode::ScatterReduce:
      case OpCode::ScatterAdd: unite(i, ops[0]), unite(i, ops[2]); break;
      case OpCode::SegmentReduce: unite(i, ops[0]); break;
      case OpCode::Argmax:
      case OpCode::Quantize:  // opaque: a kernel's types
      case OpCode::Dequantize:
      case OpCode::Requantize: break;
      default:
        for (int j : ops) unite(i, j);
    }
  }
  for (const auto& [name, v] : k.values)
    for (size_t j = 1; j < v.size(); ++j) unite(v[0], v[j]);
  for (const auto& [name, v] : k.types)
    for (size_t j = 1; j < v.size(); ++j) unite(v[0], v[j]);
  std::map<int, int> var_of_root;
  k.var.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    auto [it, fresh] = var_of_root.emplace(find(i), static_cast<int>(var_of_root.size()));
    k.var[i] = it->second;
    if (fresh) k.var_members.emplace_back();
    k.var_members[it->second].push_back(i);
  }
  // A variable is named by its captures (%x, $T, $c), else "root" or the first op's label.
  k.var_name.assign(k.var_members.size(), "");
  for (size_t v = 0; v < k.var_members.size(); ++v) {
    std::vector<std::string> names;
    auto add = [&](const std::string& s) {
      if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
    };
    for (int i : k.var_members[v]) {
      const Node& x = *k.nodes[i];
      if (x.kind == Node::Kind::Value) add("%" + x.name);
      if (!x.as_name.empty()) add("%" + x.as_name);
      if (!x.type_capture.empty()) add("$" + x.type_capture);
      if (x.kind == Node::Kind::Const) add("$" + x.name);
    }
    std::string s;
    for (const auto& x : names) s += (s.empty() ? "" : ",") + x;
    if (s.empty()) {
      const int first = k.var_members[v][0];
      s = first == 0 ? "root" : k.label[first].empty() ? "splat" : k.label[first];
    }
    k.var_name[v] = s;
  }
  return k;
}

/// Finite-domain variables for the dtype-level search: dtype variables, then each reduction's or
/// dot_general's accum, each reduction's keepdims, each compare's dir.
struct Search {
  struct Var {
    enum Kind : uint8_t { DTypeV, Accum, Keep, Dir } kind = DTypeV;
    int node = -1;       ///< Accum/Keep/Dir: the op node; DTypeV: the variable
    std::vector<int> dom;
  };
  struct Con {
    std::vector<int> vars;
    std::function<bool(const std::vector<int>&)> ok;
  };
  std::vector<Var> vars;
  std::vector<Con> cons;
  std::map<int, int> accum_var, keep_var, dir_var;  ///< node -> search variable

  /// An assignment with vars[v] = value satisfying every constraint among the variables connected to v
  /// (through constraints), or nothing. Unconnected variables keep -2 (free).
  /// With `extra`, that constraint must hold too (and its variables count as connected to v).
  std::optional<std::vector<int>> solve(int v, int value, const Con* extra = nullptr) const {
    std::vector<const Con*> all_cons;
    for (const Con& c : cons) all_cons.push_back(&c);
    if (extra) all_cons.push_back(extra);
    std::vector<int> comp = {v};
    std::vector<bool> in(vars.size(), false);
    in[v] = true;
    for (size_t q = 0; q < comp.size(); ++q)
      for (const Con* c : all_cons)
        if (std::find(c->vars.begin(), c->vars.end(), comp[q]) != c->vars.end())
          for (int w : c->vars)
            if (!in[w]) in[w] = true, comp.push_back(w);
    std::vector<int> a(vars.size(), -2);
    a[v] = value;
    if (std::find(vars[v].dom.begin(), vars[v].dom.end(), value) == vars[v].dom.end()) return std::nullopt;
    std::function<bool(size_t)> go = [&](size_t at) -> bool {
      for (const Con* c : all_cons) {
        bool all = true;
        for (int w : c->vars) all = all && a[w] != -2;
        if (all && !c->ok(a)) return false;
      }
      if (at == comp.size()) return true;
      const int w = comp[at];
      if (w == v) return go(at + 1);
      for (int x : vars[w].dom) {
        a[w] = x;
        if (go(at + 1)) return true;
      }
      a[w] = -2;
      return false;
    };
    if (!go(0)) return std::nullopt;
    return a;
  }
};

class Planner {
 public:
  Planner(const Node& source, const std::vector<Constraint>& where, uint8_t assumes, int max_rank, int max_dim)
      : k_(analyse(source, assumes)), where_(where), max_rank_(max_rank), max_dim_(max_dim) {}

  CoveragePlan plan(std::string prefix) {
    CoveragePlan p;
    p.prefix = std::move(prefix);
    ranks();
    build_search();
    for (int r = 0; r <= max_rank_; ++r)
      if (rank_block_[r].empty()) p.ranks.push_back(r);
    // Is there any instance at all? Every dtype variable needs a value (checked by the search from its
    // first value that works) and some rank must be left.
    std::string none;
    for (size_t v = 0; v < s_.vars.size() && none.empty(); ++v) {
      bool any = false;
      for (int x : s_.vars[v].dom) any = any || s_.solve(static_cast<int>(v), x).has_value();
      if (!any) none = "no dtype or attribute value satisfies the type rules and constraints for " + var_text(static_cast<int>(v));
    }
    if (none.empty() && p.ranks.empty()) {
      none = "no root rank in 0.." + std::to_string(max_rank_) + " is possible:";
      std::set<std::string> seen;
      for (const auto& w : rank_block_)
        if (seen.insert(w).second) none += " " + w + ";";
      none.pop_back();
    }
    p.unreachable = none;
    // Root ranks.
    for (int r = 0; r <= max_rank_; ++r) {
      CoverageClass c;
      c.name = n_rank(r);
      c.rank = r;
      unreach(c, rank_block_[r]);
      c.hint = dims_hint(r);
      add(p, std::move(c));
    }
    // Dtype-level classes: every value of every search variable with a witness assignment.
    for (size_t v = 0; v < s_.vars.size(); ++v) {
      const Search::Var& sv = s_.vars[v];
      std::vector<int> all;
      if (sv.kind == Search::Var::DTypeV) {
        if (std::find(k_.dims_of_var.begin(), k_.dims_of_var.end(), sv.node) == k_.dims_of_var.end()) continue;
        for (int d = 0; d < kNumDTypes; ++d) all.push_back(d);
      } else if (sv.kind == Search::Var::Accum) {
        if (literal_attr(*k_.nodes[sv.node], "accum")) continue;
        for (int d = -1; d < kNumDTypes; ++d) all.push_back(d);
      } else if (sv.kind == Search::Var::Keep) {
        if (literal_attr(*k_.nodes[sv.node], "keepdims")) continue;
        all = {0, 1, 2};
      } else {
        if (literal_attr(*k_.nodes[sv.node], "dir")) continue;
        all = {0, 1, 2, 3, 4, 5};
      }
      for (int x : all) {
        CoverageClass c;
        c.name = value_name(static_cast<int>(v), x);
        const bool in_dom = std::find(sv.dom.begin(), sv.dom.end(), x) != sv.dom.end();
        auto w = in_dom ? s_.solve(static_cast<int>(v), x) : std::nullopt;
        if (!w) {
          unreach(c, in_dom ? "no assignment of the other dtypes and attributes satisfies the constraints with it"
                            : dom_why_[v].count(x) ? dom_why_[v][x] : "excluded by the type rules");
        } else {
          steer_from(*w, c.steer);
        }
        add(p, std::move(c));
      }
    }
    cast_chain_classes(p);
    node_classes(p);
    sizes_classes(p);
    for (const auto& r : k_.shared) {
      CoverageClass c;
      c.name = n_shared(r);
      add(p, std::move(c));
    }
    for (int bit : {0, static_cast<int>(rules::kNNaN), static_cast<int>(rules::kNInf), static_cast<int>(rules::kNSZ)}) {
      if (bit && (k_.assumes & bit)) continue;  // already one of the rule's own flags
      CoverageClass c;
      c.name = n_flags(bit);
      c.flags = bit;
      if (bit) c.aim = 2;  // once with the flag alone, once with random extra flags (prove.cpp extra_flags)
      add(p, std::move(c));
    }
    // Each extra flag again with each dtype variable a float, where that variable may be a float or not:
    // the classes above can fire where it is an integer alone. Steered to the first float dtype of the
    // variable the constraints admit.
    for (int v : k_.dims_of_var) {
      const auto& dom = s_.vars[v].dom;
      const bool some_float = std::any_of(dom.begin(), dom.end(), [](int d) { return is_float(static_cast<DType>(d)); });
      const bool some_other = std::any_of(dom.begin(), dom.end(), [](int d) { return !is_float(static_cast<DType>(d)); });
      if (!some_float || !some_other) continue;
      for (int bit : {static_cast<int>(rules::kNNaN), static_cast<int>(rules::kNInf), static_cast<int>(rules::kNSZ)}) {
        if (k_.assumes & bit) continue;
        CoverageClass c;
        c.name = n_flags_float(k_, v, bit);
        c.flags = bit;
        // A flag bug at a float value can need a third choice too (an ordered compare direction after
        // a zero sign flips an infinity): aimed at 4 times, each with the other choices drawn afresh, at
        // small ranks and dims (full dims made a correct reduce_window rule's UB query time out).
        c.aim = 4;
        c.small_flagged = true;
        std::optional<std::vector<int>> w;
        for (int d : dom)
          if (is_float(static_cast<DType>(d)) && (w = s_.solve(v, d))) break;
        if (!w) unreach(c, "no float dtype of " + k_.var_name[v] + " satisfies the type rules and constraints");
        else steer_from(*w, c.steer);
        add(p, std::move(c));
      }
    }
    if (!none.empty())
      for (auto& c : p.classes)
        if (c.reachable) c.reachable = false, c.why = none;
    // Each class's rank steer: a reachable rank >= min_rank.
    for (auto& c : p.classes) {
      if (!c.reachable || c.rank >= 0) continue;
      if (std::none_of(p.ranks.begin(), p.ranks.end(), [&](int r) { return r >= c.min_rank; }) && c.min_rank > 0 &&
          !p.ranks.empty() && c.why.empty()) {
        c.reachable = false;
        c.why = "needs root rank >= " + std::to_string(c.min_rank) + ", and the reachable root ranks are at most " +
                std::to_string(p.ranks.back());
      }
    }
    p.skel = std::make_shared<Skeleton>(std::move(k_));
    return p;
  }

 private:
  static void unreach(CoverageClass& c, const std::string& why) {
    if (why.empty() || !c.reachable) return;
    c.reachable = false;
    c.why = why;
  }
  static void add(CoveragePlan& p, CoverageClass c) { p.classes.push_back(std::move(c)); }

  // ---- constraint arguments ----
  std::vector<int> nodes_of(const Constraint::Arg& a) const {
    if (a.kind == Constraint::Arg::Kind::Value) {
      auto it = k_.values.find(a.name);
      return it == k_.values.end() ? std::vector<int>{} : it->second;
    }
    if (a.kind == Constraint::Arg::Kind::Capture) {
      if (auto it = k_.types.find(a.name); it != k_.types.end()) return it->second;
      if (auto it = k_.lits.find(a.name); it != k_.lits.end()) return {it->second};
    }
    return {};
  }
  /// The node whose rank relation to the root is strongest (Same first).
  int best(const std::vector<int>& ns) const {
    int b = -1;
    for (int i : ns)
      if (b < 0 || static_cast<int>(k_.rel[i]) < static_cast<int>(k_.rel[b])) b = i;
    return b;
  }
  std::vector<int> perm_nodes(const std::string& cap) const {
    std::vector<int> out;
    if (auto it = k_.attrs.find(cap); it != k_.attrs.end())
      for (const auto& [i, name] : it->second)
        if (name == "perm" && k_.nodes[i]->op == OpCode::Transpose) out.push_back(i);
    return out;
  }

  // ---- root ranks ----
  void block(int r, const std::string& why) {
    if (r >= 0 && r <= max_rank_ && rank_block_[r].empty()) rank_block_[r] = why;
  }
  void need_min(int k, const std::string& why) {
    for (int r = 0; r < k && r <= max_rank_; ++r) block(r, why);
  }
  void need_eq(int k, const std::string& why) {
    for (int r = 0; r <= max_rank_; ++r)
      if (r != k) block(r, why);
  }
  /// Node i's rank must be at least k: the root's too when node i is Same or AtMost.
  void node_min(int i, int k, const std::string& why) {
    if (k_.rel[i] == Rel::Same || k_.rel[i] == Rel::AtMost) need_min(k, why);
  }
  void ranks() {
    rank_block_.assign(max_rank_ + 1, "");
    for (size_t i = 0; i < k_.nodes.size(); ++i) {
      const Node& x = *k_.nodes[i];
      if (x.kind != Node::Kind::Op) continue;
      const Rel rel = k_.rel[i];
      if (x.op == OpCode::Concat && rel == Rel::Same) need_min(1, "concat needs rank >= 1");
      // A start has one element per axis: at rank 0 it is empty, and a splat matches no empty literal.
      if ((x.op == OpCode::DynamicSlice || x.op == OpCode::DynamicUpdateSlice) && rel == Rel::Same) {
        const size_t at = x.op == OpCode::DynamicSlice ? 1 : 2;
        if (x.operands.size() > at && x.operands[at]->kind == Node::Kind::Splat)
          need_min(1, "the splat start of " + k_.label[i] + " needs an element (rank >= 1)");
      }
      // Ops whose result needs an axis (an iota axis, gather / scatter axis, segments, a patch axis).
      if (rel == Rel::Same && (x.op == OpCode::Iota || x.op == OpCode::Gather || x.op == OpCode::ScatterReduce ||
                               x.op == OpCode::ScatterAdd || x.op == OpCode::SegmentReduce || x.op == OpCode::ExtractPatches))
        need_min(1, std::string(mnemonic(x.op)) + " needs rank >= 1");
      for (const auto& a : x.attrs) {
        if (a.kind != rules::AttrExpr::Kind::Ints) continue;
        const int len = static_cast<int>(a.ints.size());
        const bool per_axis = a.name == "perm" || a.name == "starts" || a.name == "low" || a.name == "high" ||
                              a.name == "interior" || a.name == "repeats";
        const std::string why = "the literal " + a.name + " of " + k_.label[i] + " has " + std::to_string(len) + " entries";
        if (per_axis && rel == Rel::Same) need_eq(len, why + ": rank " + std::to_string(len));
        if (per_axis && rel == Rel::AtMost) need_min(len, why + ": rank >= " + std::to_string(len));
        if (a.name == "axis" && x.op == OpCode::Concat && len == 1 && rel == Rel::Same)
          need_min(static_cast<int>(a.ints[0]) + 1, "concat's literal axis " + std::to_string(a.ints[0]) + " needs rank >= " +
                                                        std::to_string(a.ints[0] + 1));
      }
    }
    for (const Constraint& c : where_) {
      const std::string t = constraint_text(c);
      if (c.pred == "rank_is" && c.args.size() == 2) {
        const int i = best(nodes_of(c.args[0]));
        const int n = static_cast<int>(c.args[1].i);
        if (i < 0) continue;
        if (!c.negated && k_.rel[i] == Rel::Same) need_eq(n, t + " fixes the root rank to " + std::to_string(n));
        if (!c.negated && k_.rel[i] == Rel::AtMost) need_min(n, t + " needs root rank >= " + std::to_string(n));
        if (c.negated && k_.rel[i] == Rel::Same) block(n, t + " excludes root rank " + std::to_string(n));
      }
      if (c.pred == "is_identity_perm" && c.negated && c.args.size() == 1)
        for (int i : perm_nodes(c.args[0].name)) node_min(i, 2, t + ": every permutation of fewer than 2 axes is the identity");
      if (c.pred == "composes_to_identity" && c.negated && c.args.size() == 2)
        for (const auto& a : c.args)
          for (int i : perm_nodes(a.name))
            node_min(i, 2, t + ": permutations of fewer than 2 axes always compose to the identity");
      if ((c.pred == "some_axis_size" && !c.negated) || (c.pred == "num_elements_is" && !c.negated && c.args.back().i != 1) ||
          (c.pred == "num_elements_is" && c.negated && c.args.back().i == 1)) {
        const int i = best(nodes_of(c.args[0]));
        if (i >= 0 && k_.rel[i] == Rel::Same) need_min(1, t + " needs an axis (a rank-0 tensor has none and 1 element)");
      }
    }
  }
  /// Whether n elements fit rank r with every dim in 0..d.
  static bool fits(int64_t n, int r, int d) {
    if (r == 0) return n == 1;
    if (n == 0) return true;
    for (int64_t x = 1; x <= d; ++x)
      if (n % x == 0 && fits(n / x, r - 1, d)) return true;
    return false;
  }
  /// Constraints on a root-shaped value (rank and dims of the root: dims at most --max-dim) that no
  /// root of rank r meets: why rank r may never fire although nothing excludes it.
  std::string dims_hint(int r) const {
    std::string h;
    for (const Constraint& c : where_) {
      if (c.negated || c.args.size() < 2) continue;
      const int i = best(nodes_of(c.args[0]));
      if (i < 0 || k_.rel[i] != Rel::Same) continue;
      const int64_t n = c.args.back().i;
      if (c.pred == "num_elements_is" && !fits(n, r, max_dim_))
        h += (h.empty() ? "" : "; ") + constraint_text(c) + " needs dims above --max-dim " + std::to_string(max_dim_) +
             " at rank " + std::to_string(r);
      if ((c.pred == "some_axis_size" || c.pred == "axes_all_size") && n > max_dim_ && r > 0)
        h += (h.empty() ? "" : "; ") + constraint_text(c) + " needs an axis of size " + std::to_string(n) +
             ", above --max-dim " + std::to_string(max_dim_);
    }
    return h;
  }

  /// The smallest reachable root rank at which node i can have rank >= k, or -1.
  int min_root_for(int i, int k) const {
    if (k_.rel[i] == Rel::AtLeast || k_.rel[i] == Rel::Free) {
      for (int r = 0; r <= max_rank_; ++r)
        if (rank_block_[r].empty()) return r;
      return -1;
    }
    for (int r = std::max(k, 0); r <= max_rank_; ++r)
      if (rank_block_[r].empty()) return r;
    return -1;
  }

  // ---- the dtype-level search ----
  std::string var_text(int v) const {
    const Search::Var& sv = s_.vars[v];
    switch (sv.kind) {
      case Search::Var::DTypeV: return "the dtype of " + k_.var_name[sv.node];
      case Search::Var::Accum: return "the accum of " + k_.label[sv.node];
      case Search::Var::Keep: return "the keepdims of " + k_.label[sv.node];
      case Search::Var::Dir: return "the dir of " + k_.label[sv.node];
    }
    return "?";
  }
  std::string value_name(int v, int x) const {
    const Search::Var& sv = s_.vars[v];
    switch (sv.kind) {
      case Search::Var::DTypeV: return n_dtype(k_, sv.node, static_cast<DType>(x));
      case Search::Var::Accum: return n_accum(k_, sv.node, x);
      case Search::Var::Keep: return n_keep(k_, sv.node, x);
      case Search::Var::Dir: return n_dir(k_, sv.node, x);
    }
    return "?";
  }
  /// The search variable a constraint's TypeLike argument names (its dtype variable), or -1.
  int dvar(const Constraint::Arg& a) const {
    const auto ns = nodes_of(a);
    return ns.empty() ? -1 : k_.var[ns[0]];
  }
  void filter(int v, const std::function<bool(int)>& keep, const std::string& why) {
    auto& dom = s_.vars[v].dom;
    for (int x : dom)
      if (!keep(x) && !dom_why_[v].count(x)) dom_why_[v][x] = why;
    dom.erase(std::remove_if(dom.begin(), dom.end(), [&](int x) { return !keep(x); }), dom.end());
  }
  void build_search() {
    const int nv = static_cast<int>(k_.var_members.size());
    dom_why_.assign(nv, {});
    for (int v = 0; v < nv; ++v) {
      Search::Var sv;
      sv.kind = Search::Var::DTypeV;
      sv.node = v;
      for (int d = 0; d < kNumDTypes; ++d) sv.dom.push_back(d);
      s_.vars.push_back(sv);
    }
    // The op table: each op's main operand (select: its branches) must be a dtype the verifier accepts
    // for that op; compare's result and select's predicate are i1; a splat must be representable.
    for (size_t i = 0; i < k_.nodes.size(); ++i) {
      const Node& x = *k_.nodes[i];
      if (x.kind == Node::Kind::Splat) {
        const rules::Number num = x.number;
        filter(k_.var[i], [&](int d) { return rules::number_bits(static_cast<DType>(d), num.value, num.is_float).has_value(); },
               "splat(" + num.text + ") is not representable in it");
      }
      if (x.kind != Node::Kind::Op || x.operands.empty()) continue;
      const OpCode op = x.op;
      const int main = op == OpCode::Select ? 1 : 0;
      if (static_cast<int>(x.operands.size()) > main) {
        const int j = static_cast<int>(i) + 1 + subtree_before(x, main);
        filter(k_.var[j], [&](int d) { return op_accepts_dtype(op, static_cast<DType>(d)); },
               "the verifier rejects " + std::string(mnemonic(op)) + " of it");
      }
      if (op == OpCode::Compare) filter(k_.var[i], [](int d) { return d == static_cast<int>(DType::I1); }, "compare gives i1");
      // Index operands: the dtypes the verifier accepts there; argmax gives an integer index.
      if (op == OpCode::Take || op == OpCode::Gather || op == OpCode::ScatterReduce || op == OpCode::ScatterAdd ||
          op == OpCode::SegmentReduce) {
        if (x.operands.size() > 1) {
          const int j = static_cast<int>(i) + 1 + subtree_before(x, 1);
          filter(k_.var[j], [&](int d) { return index_dtype_accepted(op, static_cast<DType>(d)); },
                 "the verifier rejects indices of it for " + std::string(mnemonic(op)));
        }
      }
      if (op == OpCode::Argmax) filter(k_.var[i], [](int d) { return is_integer(static_cast<DType>(d)); }, "argmax gives an integer index");
      // A dynamic_slice / dynamic_update_slice start is si32 or si64 (the verifier's check_start).
      if (op == OpCode::DynamicSlice || op == OpCode::DynamicUpdateSlice) {
        const int at = op == OpCode::DynamicSlice ? 1 : 2;
        if (static_cast<int>(x.operands.size()) > at) {
          const int j = static_cast<int>(i) + 1 + subtree_before(x, at);
          filter(k_.var[j], [](int d) { return d == static_cast<int>(DType::SI32) || d == static_cast<int>(DType::SI64); },
                 "a start is si32 or si64");
        }
      }
      if (op == OpCode::Select) {
        const int j = static_cast<int>(i) + 1;
        filter(k_.var[j], [](int d) { return d == static_cast<int>(DType::I1); }, "select's predicate is i1");
      }
    }
    // Dtype dimensions: variables that can take more than one dtype by the op table alone (so a
    // variable the constraints narrow still lists the dtypes they exclude, as unreachable).
    for (int v = 0; v < nv; ++v)
      if (s_.vars[v].dom.size() > 1) k_.dims_of_var.push_back(v);
    // Attribute variables.
    for (size_t i = 0; i < k_.nodes.size(); ++i) {
      const Node& x = *k_.nodes[i];
      if (x.kind != Node::Kind::Op) continue;
      const int node = static_cast<int>(i);
      if (has_accum(x.op)) {
        Search::Var sv;
        sv.kind = Search::Var::Accum;
        sv.node = node;
        const rules::AttrExpr* a = source_attr(x, "accum");
        if (!a) sv.dom.push_back(-1);  // absent, unless the source names the attribute
        std::map<int, std::string> why;
        for (int d = 0; d < kNumDTypes; ++d) {
          bool some = false;  // the verifier accepts accum[d] for some element dtype
          for (int e = 0; e < kNumDTypes; ++e) some = some || accum_accepted(static_cast<DType>(e), static_cast<DType>(d));
          if (!some) why[d] = "the verifier accepts accum[" + std::string(dtype_name(static_cast<DType>(d))) + "] for no dtype";
          else if (!a || a->kind == rules::AttrExpr::Kind::Capture || parse_dtype(a->word) == static_cast<DType>(d)) sv.dom.push_back(d);
        }
        const int v = static_cast<int>(s_.vars.size());
        s_.vars.push_back(sv);
        s_.accum_var[node] = v;
        dom_why_.push_back(why);
        if (a && a->kind == rules::AttrExpr::Kind::Capture) dom_why_[v][-1] = "the source names accum (it must be present)";
        const int elem = k_.var[i + 1];
        s_.cons.push_back({{v, elem}, [v, elem](const std::vector<int>& asg) {
                             return asg[v] < 0 || accum_accepted(static_cast<DType>(asg[elem]), static_cast<DType>(asg[v]));
                           }});
      }
      if (is_reduce(x.op)) {
        Search::Var sv;
        sv.kind = Search::Var::Keep;
        sv.node = node;
        const rules::AttrExpr* a = source_attr(x, "keepdims");
        if (!a) sv.dom = {0, 1, 2};
        else if (a->kind == rules::AttrExpr::Kind::Capture) sv.dom = {1, 2};
        else sv.dom = {a->word == "true" ? 2 : 1};
        s_.keep_var[node] = static_cast<int>(s_.vars.size());
        s_.vars.push_back(sv);
        dom_why_.emplace_back();
        if (a && a->kind == rules::AttrExpr::Kind::Capture) dom_why_.back()[0] = "the source names keepdims (it must be present)";
      }
      if (x.op == OpCode::Compare) {
        Search::Var sv;
        sv.kind = Search::Var::Dir;
        sv.node = node;
        const rules::AttrExpr* a = source_attr(x, "dir");
        for (int d = 0; d < 6; ++d)
          if (!a || a->kind == rules::AttrExpr::Kind::Capture || a->word == kDirs[d]) sv.dom.push_back(d);
        s_.dir_var[node] = static_cast<int>(s_.vars.size());
        s_.vars.push_back(sv);
        dom_why_.emplace_back();
      }
    }
    // One attribute capture on several nodes: the same value.
    for (const auto& [cap, uses] : k_.attrs) {
      std::vector<int> vs;
      for (const auto& [i, name] : uses) {
        if (name == "accum" && s_.accum_var.count(i)) vs.push_back(s_.accum_var[i]);
        if (name == "keepdims" && s_.keep_var.count(i)) vs.push_back(s_.keep_var[i]);
        if (name == "dir" && s_.dir_var.count(i)) vs.push_back(s_.dir_var[i]);
      }
      for (size_t j = 1; j < vs.size(); ++j) {
        const int a = vs[0], b = vs[j];
        s_.cons.push_back({{a, b}, [a, b](const std::vector<int>& asg) { return asg[a] == asg[b]; }});
      }
    }
    // The constraints the search decides exactly (they read dtypes and these attributes only).
    for (const Constraint& c : where_) {
      const std::string t = constraint_text(c);
      const bool neg = c.negated;
      auto unary = [&](std::function<bool(DType)> pred) {
        const int v = c.args.empty() ? -1 : dvar(c.args[0]);
        if (v >= 0) filter(v, [&](int d) { return pred(static_cast<DType>(d)) != neg; }, t + " excludes it");
      };
      if (c.pred == "is_float") unary([](DType d) { return is_float(d); });
      if (c.pred == "is_int") unary([](DType d) { return is_integer(d); });
      if (c.pred == "is_signed") unary([](DType d) { return is_signed_int(d); });
      if (c.pred == "is_unsigned") unary([](DType d) { return is_integer(d) && !is_signed_int(d); });
      if (c.pred == "is_bool") unary([](DType d) { return d == DType::I1; });
      if (c.pred == "dtype_is" && c.args.size() == 2)
        if (auto want = parse_dtype(c.args[1].name)) unary([w = *want](DType d) { return d == w; });
      if (c.pred == "is_pow2" && !neg) unary([](DType d) { return is_float(d); });
      if ((c.pred == "same_dtype" || (c.pred == "same_type" && !neg) || c.pred == "widens_exactly") && c.args.size() == 2) {
        const int a = dvar(c.args[0]), b = dvar(c.args[1]);
        if (a < 0 || b < 0) continue;
        const bool widen = c.pred == "widens_exactly";
        s_.cons.push_back({{a, b}, [a, b, neg, widen](const std::vector<int>& asg) {
                             const bool r = widen ? rules::widens_exactly(static_cast<DType>(asg[a]), static_cast<DType>(asg[b]))
                                                  : asg[a] == asg[b];
                             return r != neg;
                           }});
      }
      if (c.pred == "exact_accum" && c.args.size() == 1) {
        for (int i : nodes_of(c.args[0])) {
          if (!s_.accum_var.count(i)) continue;
          const int a = s_.accum_var[i], e = k_.var[i + 1];
          s_.cons.push_back({{a, e}, [a, e, neg](const std::vector<int>& asg) {
                               const bool r = asg[a] < 0 || rules::widens_exactly(static_cast<DType>(asg[e]), static_cast<DType>(asg[a]));
                               return r != neg;
                             }});
        }
      }
      if (c.pred == "has_attr" && c.args.size() == 2) {
        const std::string w = c.args[1].name;
        for (int i : nodes_of(c.args[0])) {
          if (w == "accum" && s_.accum_var.count(i))
            filter(s_.accum_var[i], [&](int x) { return (x >= 0) != neg; }, t + " excludes it");
          if (w == "keepdims" && s_.keep_var.count(i))
            filter(s_.keep_var[i], [&](int x) { return (x > 0) != neg; }, t + " excludes it");
        }
      }
      if (c.pred == "attr_is" && c.args.size() == 2) {
        auto it = k_.attrs.find(c.args[0].name);
        if (it == k_.attrs.end()) continue;
        for (const auto& [i, name] : it->second) {
          const std::string w = c.args[1].kind == Constraint::Arg::Kind::Int ? std::to_string(c.args[1].i) : c.args[1].name;
          if (name == "accum" && s_.accum_var.count(i))
            filter(s_.accum_var[i], [&](int x) { return (x >= 0 && dtype_name(static_cast<DType>(x)) == w) != neg; }, t + " excludes it");
          if (name == "keepdims" && s_.keep_var.count(i))
            filter(s_.keep_var[i], [&](int x) { return (x > 0 && kKeep[x] == w) != neg; }, t + " excludes it");
          if (name == "dir" && s_.dir_var.count(i))
            filter(s_.dir_var[i], [&](int x) { return (kDirs[x] == w) != neg; }, t + " excludes it");
        }
      }
    }
  }
  /// Number of nodes in the subtrees of x's operands before operand `k` (pre-order offsets).
  static int subtree_before(const Node& x, int k) {
    int n = 0;
    for (int j = 0; j < k; ++j) n += static_cast<int>(preorder(*x.operands[j]).size());
    return n;
  }
  void steer_from(const std::vector<int>& a, Steer& s) const {
    s.nodes.assign(k_.nodes.size(), NodeSteer{});
    for (size_t v = 0; v < s_.vars.size(); ++v) {
      if (a[v] == -2) continue;
      const Search::Var& sv = s_.vars[v];
      switch (sv.kind) {
        case Search::Var::DTypeV:
          for (int i : k_.var_members[sv.node]) s.nodes[i].dtype = a[v];
          break;
        case Search::Var::Accum: s.nodes[sv.node].accum = a[v]; break;
        case Search::Var::Keep: s.nodes[sv.node].keepdims = a[v]; break;
        case Search::Var::Dir: s.nodes[sv.node].dir = a[v]; break;
      }
    }
  }

  // ---- per-node attribute classes ----
  bool has_constraint(const std::string& pred, bool negated, const std::string& arg0) const {
    for (const Constraint& c : where_)
      if (c.pred == pred && c.negated == negated && !c.args.empty() && c.args[0].name == arg0) return true;
    return false;
  }
  /// True when a positive same_type/same_shape ties node i's operand to node i itself.
  /// For a broadcast_to bound `as %b` with operand `%x`: why the integer constraints exclude "same
  /// rank" (a constraint `rank(%b) == rank(%x) + 1`) and "some expanded" (that one and `all v <
  /// rank(%x): dim(%b, v + 1) == dim(%x, v)`: every axis of x keeps its size); "" where they do not.
  /// Only these written forms are recognised (each is a conjunct of the rule's `where`).
  std::pair<std::string, std::string> int_broadcast_facts(int i) const {
    using rules::IntCond;
    using rules::IntExpr;
    const Node& b = *k_.nodes[i];
    const Node& x = *b.operands[0];
    if (b.as_name.empty() || x.kind != Node::Kind::Value) return {};
    auto is_rank = [](const IntExpr* e, const std::string& n) {
      return e && e->kind == IntExpr::Kind::Rank && e->value_sigil && e->name == n;
    };
    auto plus_one = [&](const IntExpr* e, const std::string& n) {
      return e && e->kind == IntExpr::Kind::Add && is_rank(e->kids[0].get(), n) && e->kids[1]->kind == IntExpr::Kind::Lit &&
             e->kids[1]->lit == 1;
    };
    auto dim_of = [](const IntExpr* e, const std::string& n) {
      return e && e->kind == IntExpr::Kind::Dim && e->value_sigil && e->name == n ? e->kids[0].get() : nullptr;
    };
    std::string rank_text, dims_text;
    for (const Constraint& c : where_) {
      if (!c.cond) continue;
      const IntCond& k = *c.cond;
      if (k.kind == IntCond::Kind::Cmp && k.cmp == IntCond::Cmp::Eq &&
          ((is_rank(k.lhs.get(), b.as_name) && plus_one(k.rhs.get(), x.name)) ||
           (is_rank(k.rhs.get(), b.as_name) && plus_one(k.lhs.get(), x.name))))
        rank_text = c.text;
      if (k.kind == IntCond::Kind::All && is_rank(k.rhs.get(), x.name) && k.kids[0]->kind == IntCond::Kind::Cmp &&
          k.kids[0]->cmp == IntCond::Cmp::Eq) {
        const IntCond& e = *k.kids[0];
        const IntExpr* bi = dim_of(e.lhs.get(), b.as_name);
        const IntExpr* xi = dim_of(e.rhs.get(), x.name);
        const bool var_plus_one = bi && bi->kind == IntExpr::Kind::Add && bi->kids[0]->kind == IntExpr::Kind::Var &&
                                  bi->kids[0]->name == k.var && bi->kids[1]->kind == IntExpr::Kind::Lit && bi->kids[1]->lit == 1;
        if (var_plus_one && xi && xi->kind == IntExpr::Kind::Var && xi->name == k.var) dims_text = c.text;
      }
    }
    if (rank_text.empty()) return {};
    return {"`" + rank_text + "` adds an axis",
            dims_text.empty() ? "" : "`" + rank_text + "` and `" + dims_text + "`: every axis of %" + x.name + " keeps its size"};
  }

  /// Why a pad's or extract_patches' fill is never read on any instance (so its class cannot fire,
  /// optattr_fired), else "": the rule writes every pad as a literal <= 0 and, for pad, no interior
  /// can leave a gap (a literal interior of 0s, or the result tied to the operand's shape).
  std::string fill_never_read(int i) const {
    const Node& x = *k_.nodes[i];
    const auto nonpositive = [&](const char* name) {
      const rules::AttrExpr* a = source_attr(x, name);
      return a && a->kind == rules::AttrExpr::Kind::Ints &&
             std::all_of(a->ints.begin(), a->ints.end(), [](int64_t v) { return v <= 0; });
    };
    if (x.op == OpCode::ExtractPatches && nonpositive("pad_low") && nonpositive("pad_high"))
      return "the rule's pads are literals <= 0: the fill is never read";
    if (x.op != OpCode::Pad || !nonpositive("low") || !nonpositive("high")) return {};
    const rules::AttrExpr* in = source_attr(x, "interior");
    const bool no_gap = in && in->kind == rules::AttrExpr::Kind::Ints &&
                        std::all_of(in->ints.begin(), in->ints.end(), [](int64_t v) { return v == 0; });
    if (no_gap) return "the rule's pads are literals <= 0 and its interior 0: the fill is never read";
    if (std::string why = keeps_shape(i); !why.empty())
      return "the rule's pads are literals <= 0 and " + why + " (no interior gap): the fill is never read";
    return {};
  }

  /// "... excludes it" when a `not has_attr(%r, NAME)` constraint names node x's `as` value and
  /// attribute `name`, else "" (unreach() ignores "").
  std::string excluded_attr(const Node& x, std::string_view name) const {
    for (const Constraint& k : where_)
      if (k.pred == "has_attr" && k.negated && k.args.size() == 2 && k.args[1].name == name && !x.as_name.empty() &&
          k.args[0].name == x.as_name)
        return constraint_text(k) + " excludes it";
    return "";
  }
  std::string keeps_shape(int i) const {
    const Node& x = *k_.nodes[i];
    const Node& o = *x.operands[0];
    for (const Constraint& c : where_) {
      if (c.negated || (c.pred != "same_type" && c.pred != "same_shape") || c.args.size() != 2) continue;
      auto is_op = [&](const Constraint::Arg& a) {
        return (a.kind == Constraint::Arg::Kind::Capture && a.name == x.type_capture) ||
               (a.kind == Constraint::Arg::Kind::Value && a.name == x.as_name && !x.as_name.empty());
      };
      auto is_operand = [&](const Constraint::Arg& a) {
        return (a.kind == Constraint::Arg::Kind::Value && o.kind == Node::Kind::Value && a.name == o.name) ||
               (a.kind == Constraint::Arg::Kind::Value && a.name == o.as_name && !o.as_name.empty()) ||
               (a.kind == Constraint::Arg::Kind::Capture && a.name == o.type_capture && !o.type_capture.empty());
      };
      if ((is_op(c.args[0]) && is_operand(c.args[1])) || (is_op(c.args[1]) && is_operand(c.args[0])))
        return constraint_text(c) + " keeps the shape of " + k_.label[i];
    }
    return "";
  }
  /// The rank rank_is fixes for a Value operand, or -1.
  int fixed_rank(const Node& o) const {
    for (const Constraint& c : where_)
      if (c.pred == "rank_is" && !c.negated && c.args.size() == 2 &&
          ((c.args[0].kind == Constraint::Arg::Kind::Value && o.kind == Node::Kind::Value && c.args[0].name == o.name) ||
           (c.args[0].kind == Constraint::Arg::Kind::Capture && !o.type_capture.empty() && c.args[0].name == o.type_capture)))
        return static_cast<int>(c.args[1].i);
    return -1;
  }
  /// A class that needs node i to have rank >= k (steered to the smallest root rank that allows it).
  void needs_rank(CoverageClass& c, int i, int k) {
    const int r = min_root_for(i, k);
    if (r < 0) {
      unreach(c, "needs " + k_.label[i] + " of rank >= " + std::to_string(k) + ", which no reachable root rank gives");
      return;
    }
    if (k_.rel[i] == Rel::Same || k_.rel[i] == Rel::AtMost) c.min_rank = std::max(c.min_rank, k);
  }
  /// Two casts in a row, cast(... cast(x) : M ...) : T with only dtype-keeping ops between them
  /// (cast_pairs): a class for each way both casts lose information (cast_loss of x -> M, then of M -> T),
  /// reachable when some assignment of the dtypes satisfies the type rules and constraints with it (that
  /// assignment steers the generator). Each variable's dtype class fires on its own; a rule folding the
  /// chain that is wrong only under double rounding (si32 -> f32 -> bf16) was PROVED on seeds where the
  /// two rounding casts never met, and so were the same with a stop_gradient or a select between the
  /// casts (audits, 2026-12-07).
  void cast_chain_classes(CoveragePlan& p) {
    for (const auto& [j, i] : cast_pairs(k_)) {
      const int vt = k_.var[i], vm = k_.var[j], vx = k_.var[j + 1];
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          CoverageClass c;
          c.name = n_cast_chain(k_, j, i, a, b);
          c.aim = 2;
          Search::Con both{{vx, vm, vt}, [vx, vm, vt, a, b](const std::vector<int>& asg) {
                             return cast_loss(static_cast<DType>(asg[vx]), static_cast<DType>(asg[vm])) == a &&
                                    cast_loss(static_cast<DType>(asg[vm]), static_cast<DType>(asg[vt])) == b;
                           }};
          std::optional<std::vector<int>> w;
          for (int d : s_.vars[vx].dom)
            if ((w = s_.solve(vx, d, &both))) break;
          if (!w)
            unreach(c, "no assignment of the dtypes satisfies the type rules and constraints with the inner cast " +
                           std::string(kCastLoss[a]) + " and the outer one " + kCastLoss[b]);
          else
            steer_from(*w, c.steer);
          add(p, std::move(c));
        }
    }
  }
  CoverageClass node_class(std::string name, int i, int NodeSteer::*field, int value) const {
    CoverageClass c;
    c.name = std::move(name);
    c.steer.nodes.assign(k_.nodes.size(), NodeSteer{});
    c.steer.nodes[i].*field = value;
    return c;
  }
  void node_classes(CoveragePlan& p) {
    std::vector<int> transposes;
    for (size_t i = 0; i < k_.nodes.size(); ++i)
      if (k_.nodes[i]->kind == Node::Kind::Op && k_.nodes[i]->op == OpCode::Transpose) transposes.push_back(static_cast<int>(i));
    for (size_t ii = 0; ii < k_.nodes.size(); ++ii) {
      const int i = static_cast<int>(ii);
      const Node& x = *k_.nodes[i];
      if (x.kind != Node::Kind::Op) continue;
      // Each optional attribute the source does not write as a literal (docs/verification.md,
      // "Coverage"): written to another value than its default. A rule that drops or changes an
      // attribute it does not mention is wrong only there.
      for (const AttrSpec& spec : op_attr_schema(x.op)) {
        if (spec.required || spec.dflt == AttrDefault::None || spec.dflt == AttrDefault::Own) continue;
        if (literal_attr(x, std::string(spec.name))) continue;
        CoverageClass c = node_class(n_optattr(k_, i, spec.name), i, &NodeSteer::opt_attrs, 1);
        unreach(c, excluded_attr(x, spec.name));
        if (const int r = optattr_rank(x.op, spec); r > 0) needs_rank(c, i, r);
        if (spec.name == "value") unreach(c, fill_never_read(i));
        add(p, std::move(c));
      }
      // An operand axis the result does not show, of 4 or more (beyond the default --max-dim): a rule
      // reading only the first 3 elements of an argmax's, a take's or a reduction's axis was PROVED.
      if (x.op == OpCode::Argmax || x.op == OpCode::Take || x.op == OpCode::Gather || x.op == OpCode::SegmentReduce ||
          x.op == OpCode::ReduceSum || x.op == OpCode::ReduceMax || x.op == OpCode::ReduceMin ||
          x.op == OpCode::DotGeneral || x.op == OpCode::ScatterReduce) {
        CoverageClass c = node_class(n_hidden(k_, i), i, &NodeSteer::hidden, 1);
        c.aim = 4;
        if (x.op == OpCode::Gather || x.op == OpCode::SegmentReduce) needs_rank(c, i, 1);
        const rules::AttrExpr* ax = source_attr(x, x.op == OpCode::DotGeneral ? "contract_lhs" : "axes");
        if (ax && ax->kind == rules::AttrExpr::Kind::Ints && ax->ints.empty())
          unreach(c, "the rule writes an empty list: no such axis");
        const Node& opnd = *x.operands[x.op == OpCode::ScatterReduce && x.operands.size() > 1 ? 1 : 0];
        const std::string opnd_name = opnd.kind == Node::Kind::Value ? opnd.name : opnd.as_name;
        for (const Constraint& k : where_) {
          if (k.negated || k.args.size() < 2) continue;
          // axes_all_size(_, $a, N < 4) on the node's list: those axes have N elements.
          if (k.pred == "axes_all_size" && k.args.size() == 3 && ax && ax->kind == rules::AttrExpr::Kind::Capture &&
              k.args[1].name == ax->capture && k.args[2].kind == Constraint::Arg::Kind::Int && k.args[2].i < 4)
            unreach(c, constraint_text(k) + " fixes those axes' size");
          // num_elements_is(x, N < 4) on the operand: no axis of 4 with an element (an empty operand's
          // values are never read, and an empty result counts for no value class).
          if (k.pred == "num_elements_is" && k.args[1].kind == Constraint::Arg::Kind::Int && k.args[1].i < 4 &&
              !opnd_name.empty() && k.args[0].name == opnd_name)
            unreach(c, constraint_text(k) + " leaves no axis of 4 with an element");
        }
        add(p, std::move(c));
      }
      switch (x.op) {
        case OpCode::Concat: {
          // Two operands of 2 or more along the axis (steered with one root axis of 4..2 x max-dim, the
          // axis taken there): a rule reading concat(x, x) as np.repeat(x, 2), or concat(x, y) as their
          // interleave, was PROVED when operands of one type were always 1 + 1 along it.
          if (x.operands.size() < 2) break;
          CoverageClass c = node_class(n_concat_two_big(k_, i), i, &NodeSteer::wide, 0);
          c.steer.sizes = 3;
          c.aim = 4;
          unreach(c, keeps_shape(i));
          needs_rank(c, i, 1);
          add(p, std::move(c));
          break;
        }
        case OpCode::Quantize:
        case OpCode::Dequantize:
        case OpCode::Requantize:
          // Opaque: any operand types. Leading: x of the result's shape, a scalar scale and zero point.
          add(p, node_class(n_quant_shapes(k_, i), i, &NodeSteer::opt_attrs, 1));
          break;
        case OpCode::ScatterAdd: {
          // The generator draws XLA scatter configurations (instance.cpp); the leading one is
          // indices [n, 1] naming a start along axis 0 (inserted_window_dims = scatter_dims_to_operand_dims
          // = [0], index_vector_dim 1). A rule that ties one dims list to another is wrong elsewhere.
          if (literal_attr(x, "update_window_dims") || literal_attr(x, "inserted_window_dims") ||
              literal_attr(x, "scatter_dims_to_operand_dims") || literal_attr(x, "index_vector_dim"))
            break;
          CoverageClass c = node_class(n_scatter(k_, i), i, &NodeSteer::opt_attrs, 1);
          needs_rank(c, i, 1);
          add(p, std::move(c));
          // An index vector of 3 entries, and a scatter dim of 3 or more (rules wrong only there were
          // PROVED when both were at most 2).
          CoverageClass v3 = node_class(n_wide_scatter(k_, i, 0), i, &NodeSteer::wide, 0);
          v3.aim = 8;
          needs_rank(v3, i, 3);
          add(p, std::move(v3));
          CoverageClass b3 = node_class(n_wide_scatter(k_, i, 1), i, &NodeSteer::wide, 1);
          b3.aim = 4;
          needs_rank(b3, i, 1);
          add(p, std::move(b3));
          break;
        }
        case OpCode::Transpose: {
          if (literal_attr(x, "perm")) break;
          const rules::AttrExpr* a = source_attr(x, "perm");
          const std::string cap = a ? a->capture : "";
          const bool forced_id = a && has_constraint("is_identity_perm", false, cap);
          const bool not_id = a && has_constraint("is_identity_perm", true, cap);
          // The identity class is a property of the data (a permutation moving only axes of size 1,
          // or acting on an empty tensor, moves no element: classify below). `not is_identity_perm($p)`
          // rules out the identity list only, so under it the class is reached with another list on
          // axes of size 1 (rank >= 2), which is where it is steered.
          CoverageClass id = node_class(n_perm(k_, i, 0), i, &NodeSteer::perm, not_id ? 1 : 0);
          if (not_id) {
            id.steer.sizes = 1;
            needs_rank(id, i, 2);
          }
          add(p, std::move(id));
          CoverageClass ni = node_class(n_perm(k_, i, 1), i, &NodeSteer::perm, 1);
          if (forced_id) unreach(ni, "is_identity_perm($" + cap + ") excludes it");
          needs_rank(ni, i, 2);
          ni.steer.square = 1;
          add(p, std::move(ni));
          // Orders 2..6 (identity is order 1 above): each reachable where the node can have enough axes.
          for (int order = 2; order <= 6; ++order) {
            CoverageClass oc = node_class(n_perm_order(k_, i, order), i, &NodeSteer::perm, 10 + order);
            if (forced_id) unreach(oc, "is_identity_perm($" + cap + ") excludes it");
            needs_rank(oc, i, min_axes_for_order(order));
            oc.steer.square = 1;
            add(p, std::move(oc));
          }
          if (transposes.size() < 2) break;
          CoverageClass nc = node_class(n_perm(k_, i, 2), i, &NodeSteer::perm, 2);
          for (int j : transposes) nc.steer.nodes[j].perm = 2;
          nc.steer.square = 2;
          std::string why = forced_id ? "is_identity_perm($" + cap + ") excludes it" : "";
          bool partner = false;
          for (int j : transposes) {
            if (j == i) continue;
            const rules::AttrExpr* b = source_attr(*k_.nodes[j], "perm");
            if (b && b->kind != rules::AttrExpr::Kind::Capture) continue;  // a literal partner: not analysed, skipped
            const std::string cq = b ? b->capture : "";
            if (!cap.empty() && cap == cq) continue;  // the same permutation commutes with itself
            bool inverse = false;
            for (const Constraint& c : where_)
              if (c.pred == "composes_to_identity" && !c.negated && c.args.size() == 2 &&
                  ((c.args[0].name == cap && c.args[1].name == cq) || (c.args[0].name == cq && c.args[1].name == cap)))
                inverse = true;
            if (inverse) {
              if (why.empty()) why = "composes_to_identity($" + cap + ", $" + cq + "): a permutation commutes with its inverse";
              continue;
            }
            if (!cq.empty() && has_constraint("is_identity_perm", false, cq)) continue;
            if (min_root_for(i, 3) < 0 || min_root_for(j, 3) < 0) {
              if (why.empty()) why = "two permutations that do not commute need rank >= 3, which no reachable root rank gives";
              continue;
            }
            partner = true;
          }
          if (!partner) unreach(nc, why.empty() ? "no other transpose it could fail to commute with" : why);
          else needs_rank(nc, i, 3);
          add(p, std::move(nc));
          break;
        }
        case OpCode::ReduceSum:
        case OpCode::ReduceMax:
        case OpCode::ReduceMin: {
          // An axes list in another order than increasing (legal; it folds like the sorted one). With
          // keepdims[true] the reduced axes are axes of the node: two need rank >= 2.
          if (literal_attr(x, "axes")) break;
          CoverageClass c = node_class(n_axes_order(k_, i), i, &NodeSteer::axes_order, 1);
          const rules::AttrExpr* kd = source_attr(x, "keepdims");
          const bool kept = kd && kd->kind == rules::AttrExpr::Kind::Word && kd->word == "true";
          if (kept) needs_rank(c, i, 2);
          add(p, std::move(c));
          // How many axes: none (legal: the fold of one element) and three or more (a rule that reads
          // one or two of them, or renumbers them, is wrong there). With keepdims[true] three need rank >= 3.
          CoverageClass none = node_class(n_axes_count(k_, i, false), i, &NodeSteer::axes_order, 2);
          if (const rules::AttrExpr* ax = source_attr(x, "axes"); ax && ax->kind == rules::AttrExpr::Kind::Capture)
            for (const Constraint& k : where_)
              if (k.pred == "some_axis_size" && !k.negated && k.args.size() >= 2 && k.args[1].name == ax->capture)
                unreach(none, constraint_text(k) + " needs an axis in $" + ax->capture);
          add(p, std::move(none));
          CoverageClass many = node_class(n_axes_count(k_, i, true), i, &NodeSteer::axes_order, 3);
          if (kept) needs_rank(many, i, 3);
          add(p, std::move(many));
          // Three or more in an order neither increasing nor decreasing (axes[0, 2, 1]): a rule wrong only
          // there was PROVED when the generator drew sorted and reversed lists only.
          CoverageClass shuffled = node_class(n_axes_shuffled(k_, i), i, &NodeSteer::axes_order, 4);
          shuffled.aim = 4;
          if (kept) needs_rank(shuffled, i, 3);
          add(p, std::move(shuffled));
          break;
        }
        case OpCode::DotGeneral: {
          // Layout classes (instance.h DotLayout): the generator places each operand's batch and
          // contracting axes at random positions; a rule that ties one side's list to the other's or
          // assumes an order is wrong only on such instances. Skipped when the rule writes a list.
          if (literal_attr(x, "batch_lhs") || literal_attr(x, "batch_rhs") || literal_attr(x, "contract_lhs") ||
              literal_attr(x, "contract_rhs"))
            break;
          std::string no_batch;
          for (const Constraint& c : where_)
            if (c.pred == "has_attr" && c.negated && c.args.size() == 2 && c.args[0].kind == Constraint::Arg::Kind::Value &&
                c.args[0].name == x.as_name && !x.as_name.empty() &&
                (c.args[1].name == "batch_lhs" || c.args[1].name == "batch_rhs"))
              no_batch = constraint_text(c) + " excludes batch dims";
          for (int m = 0; m < kNumDotLayouts; ++m) {
            CoverageClass c = node_class(n_dot(k_, i, m), i, &NodeSteer::dot, m);
            if (m == kDotBatchApart || m == kDotBatchOrder) unreach(c, no_batch);
            if (m == kDotBatchApart || m == kDotInterleaved) needs_rank(c, i, 1);
            if (m == kDotBatchOrder) needs_rank(c, i, 2);
            add(p, std::move(c));
          }
          break;
        }
        case OpCode::Pad: {
          if (!literal_attr(x, "low") || !literal_attr(x, "high")) {
            add(p, node_class(n_padneg(k_, i, false), i, &NodeSteer::pad_neg, 0));
            CoverageClass c = node_class(n_padneg(k_, i, true), i, &NodeSteer::pad_neg, 1);
            needs_rank(c, i, 1);
            add(p, std::move(c));
          }
          if (!literal_attr(x, "interior")) {
            add(p, node_class(n_interior(k_, i, false), i, &NodeSteer::interior, 0));
            CoverageClass c = node_class(n_interior(k_, i, true), i, &NodeSteer::interior, 1);
            unreach(c, excluded_attr(x, "interior"));
            needs_rank(c, i, 1);
            // An interior of 3 or more between operand elements (a rule clamping the interior at 2 was
            // PROVED): steered with the result dim kept by cropping, so literal low/high leave no room.
            CoverageClass w = node_class(n_wide_interior(k_, i), i, &NodeSteer::wide, 0);
            w.aim = 4;
            if (!c.reachable) unreach(w, c.why);
            // An interior >= 3 between two elements grows the axis by 3 or more: with the shape kept by a
            // constraint, only negative low/high can crop it back.
            const auto nonneg_literal = [&](const char* name) {
              const rules::AttrExpr* e = source_attr(x, name);
              return e && e->kind == rules::AttrExpr::Kind::Ints &&
                     std::all_of(e->ints.begin(), e->ints.end(), [](int64_t v) { return v >= 0; });
            };
            if (nonneg_literal("low") && nonneg_literal("high")) {
              const std::string keep = keeps_shape(i);
              if (!keep.empty()) unreach(w, keep + ", and its literal low/high are >= 0: nothing crops the axis back");
              // Under elementwise ops only, the pad has the root's dims (<= --max-dim): an axis of two
              // elements with an interior of 3 is 5 long, and nothing crops it.
              bool root_dims = true;
              for (int j = k_.parent[i]; j >= 0 && root_dims; j = k_.parent[j])
                root_dims = k_.nodes[j]->kind == Node::Kind::Op && has_trait(k_.nodes[j]->op, Elementwise);
              if (root_dims && max_dim_ < 5)
                unreach(w, "the pad has the root's dims and literal low/high >= 0: an axis of 2 with an interior of 3 "
                           "is 5 long, above --max-dim " + std::to_string(max_dim_));
            }
            needs_rank(w, i, 1);
            add(p, std::move(c));
            add(p, std::move(w));
          }
          break;
        }
        case OpCode::ReduceWindow:
        case OpCode::ExtractPatches: {
          // Each window attribute beyond the narrow ranges the generator draws otherwise (windows 1-3,
          // strides 1-3, dilations 1-2, pads -1..2): a rule clamping one at the narrow range's edge was
          // PROVED. Not for an attribute the rule writes as a literal or excludes.
          // (extract_patches: not its window, whose product is the result's last axis: a window of 4 is
          // a result dim above the bounds' --max-dim, outside the scope a PROVED names.)
          const bool patches = x.op == OpCode::ExtractPatches;
          for (int a = 0; a < 8; ++a) {
            if (patches && (a == 3 || a == 0)) continue;
            const std::string name = a == 2 && patches ? "dilation" : kWindowAttrNames[a < 6 ? a : a - 2];
            if (literal_attr(x, name)) continue;
            CoverageClass c = node_class(n_wide_window(k_, i, a, patches), i, &NodeSteer::wide, a);
            if (a == 1) c.steer.sizes = 2;  // two windows or more: a result axis >= 2
            c.aim = 4;
            unreach(c, excluded_attr(x, name));
            needs_rank(c, i, patches ? 2 : 1);
            add(p, std::move(c));
          }
          break;
        }
        case OpCode::Slice: {
          if (literal_attr(x, "starts")) break;
          add(p, node_class(n_starts(k_, i, false), i, &NodeSteer::starts, 0));
          CoverageClass c = node_class(n_starts(k_, i, true), i, &NodeSteer::starts, 1);
          unreach(c, keeps_shape(i));
          needs_rank(c, i, 1);
          add(p, std::move(c));
          break;
        }
        case OpCode::Tile: {
          if (literal_attr(x, "repeats")) break;
          add(p, node_class(n_repeats(k_, i, 0), i, &NodeSteer::repeats, 0));
          // m = 3: a repeat >= 2 of an operand axis of size >= 2 needs a result dim >= 4, above the
          // default --max-dim: steered with sizes 3 (one root axis 4..2 * max-dim). m = 4: a repeat >= 3
          // of such an axis (a rule right for repeats of 2 only was PROVED): sizes 4 (one root axis of
          // 6, 8, 9 or 12).
          for (int m : {1, 2, 3, 4}) {
            CoverageClass c = node_class(n_repeats(k_, i, m), i, &NodeSteer::repeats, m);
            c.steer.sizes = m == 1 ? 0 : m == 2 ? 2 : m;
            if (m >= 3) unreach(c, keeps_shape(i));  // a repeat >= 2 of an axis >= 2 changes the shape
            needs_rank(c, i, 1);
            add(p, std::move(c));
          }
          break;
        }
        case OpCode::BroadcastTo: {
          const std::string keep = keeps_shape(i);
          const int fr = fixed_rank(*x.operands[0]);
          CoverageClass same = node_class(n_brank(k_, i, false), i, &NodeSteer::bcast_rank, 0);
          if (fr > 0) needs_rank(same, i, fr);
          if (fr >= 0 && k_.rel[i] == Rel::Same && fr <= max_rank_ && !rank_block_[fr].empty())
            unreach(same, "the operand's rank is fixed to " + std::to_string(fr) + " and root rank " + std::to_string(fr) +
                              " is excluded: " + rank_block_[fr]);
          if (fr >= 0 && k_.rel[i] == Rel::Same) same.rank = fr;
          const auto [int_adds, int_kept] = int_broadcast_facts(i);
          unreach(same, int_adds);
          add(p, std::move(same));
          CoverageClass adds = node_class(n_brank(k_, i, true), i, &NodeSteer::bcast_rank, 1);
          unreach(adds, keep);
          needs_rank(adds, i, std::max(1, fr + 1));
          add(p, std::move(adds));
          // Leading axes added with an operand axis of 2 or more, which lands on another axis number of
          // the result than its own (steered on a square root, where it type-checks against reads of the
          // same value in place): a rule treating broadcast_to(reduce(x)) and broadcast_to(x) as reading
          // x alike was PROVED (a red team, 2026-12-07: wrong at x of 2x1 reduced over axis 1).
          CoverageClass mv = node_class(n_bmove(k_, i), i, &NodeSteer::bcast_rank, 2);
          mv.steer.square = 2;
          mv.steer.sizes = 2;
          mv.aim = 8;
          // Reductions below it take exactly one axis: with none (what a broadcast of the same value
          // elsewhere leaves room for most often) no axis shifts.
          for (size_t j = 0; j < k_.nodes.size(); ++j) {
            bool below = false;
            for (int a = k_.parent[j]; a >= 0 && !below; a = k_.parent[a]) below = a == i;
            const Node& nj = *k_.nodes[j];
            if (below && nj.kind == Node::Kind::Op &&
                (nj.op == OpCode::ReduceSum || nj.op == OpCode::ReduceMax || nj.op == OpCode::ReduceMin))
              mv.steer.nodes[j].axes_order = 5;
          }
          unreach(mv, keep);
          if (fr == 0) unreach(mv, "rank_is(...) makes the operand a scalar: it has no axis to move");
          needs_rank(mv, i, std::max(2, fr + 1));
          add(p, std::move(mv));
          add(p, node_class(n_bexp(k_, i, false), i, &NodeSteer::bcast_expand, 0));
          CoverageClass exp = node_class(n_bexp(k_, i, true), i, &NodeSteer::bcast_expand, 1);
          exp.steer.sizes = 2;
          unreach(exp, keep);
          if (fr == 0) unreach(exp, "rank_is(...) makes the operand a scalar: it has no axis to expand");
          unreach(exp, int_kept);
          needs_rank(exp, i, 1);
          add(p, std::move(exp));
          break;
        }
        default: break;
      }
    }
  }

  // ---- input sizes ----
  /// Shapes that cannot be empty: union-find of shape equality (elementwise ops, repeated captures,
  /// `: $T`, positive same_type/same_shape), and the classes holding a splat(N) (it matches non-empty
  /// constants only), a const($c) with is_splat/is_pow2, or a num_elements_is(_, N > 0).
  std::vector<bool> non_empty_shapes(std::string* why) const {
    const int n = static_cast<int>(k_.nodes.size());
    std::vector<int> uf(n);
    for (int i = 0; i < n; ++i) uf[i] = i;
    std::function<int(int)> find = [&](int a) { return uf[a] == a ? a : uf[a] = find(uf[a]); };
    auto unite = [&](int a, int b) { uf[find(a)] = find(b); };
    for (int i = 0; i < n; ++i) {
      const Node& x = *k_.nodes[i];
      if (x.kind != Node::Kind::Op || !has_trait(x.op, OpTrait::Elementwise)) continue;
      for (int j = i + 1, o = 0; o < static_cast<int>(x.operands.size()); ++o) {
        unite(i, j);
        j += static_cast<int>(preorder(*x.operands[o]).size());
      }
    }
    for (const auto& m : {k_.values, k_.types})
      for (const auto& [name, v] : m)
        for (size_t j = 1; j < v.size(); ++j) unite(v[0], v[j]);
    std::vector<bool> ne(n, false);
    auto mark = [&](int i, const std::string& w) {
      if (i < 0) return;
      ne[find(i)] = true;
      if (why->empty()) *why = w;
    };
    for (const Constraint& c : where_) {
      if (c.negated || c.args.size() != 2) continue;
      if (c.pred == "same_type" || c.pred == "same_shape") {
        const auto a = nodes_of(c.args[0]), b = nodes_of(c.args[1]);
        if (!a.empty() && !b.empty()) unite(a[0], b[0]);
      }
    }
    for (int i = 0; i < n; ++i)
      if (k_.nodes[i]->kind == Node::Kind::Splat) mark(i, "splat(" + k_.nodes[i]->number.text + ") matches non-empty constants only");
    for (const Constraint& c : where_) {
      if (c.negated || c.args.empty()) continue;
      if ((c.pred == "is_splat" || c.pred == "is_pow2") && k_.lits.count(c.args[0].name))
        mark(k_.lits.at(c.args[0].name), constraint_text(c) + " holds for non-empty literals only");
      if (c.pred == "num_elements_is" && c.args.size() == 2 && c.args[1].i > 0) {
        const auto a = nodes_of(c.args[0]);
        if (!a.empty()) mark(a[0], constraint_text(c) + " makes it non-empty");
      }
    }
    std::vector<bool> out(n);
    for (int i = 0; i < n; ++i) out[i] = ne[find(i)];
    return out;
  }

  void sizes_classes(CoveragePlan& p) {
    bool any_rank1 = false;
    for (int r = 1; r <= max_rank_; ++r) any_rank1 = any_rank1 || rank_block_[r].empty();
    bool can0 = false, can1 = false, can2 = false;
    std::string forced_non1, empty_why;
    const std::vector<bool> non_empty = non_empty_shapes(&empty_why);
    for (int i : k_.leaves()) {
      const Node& x = *k_.nodes[i];
      if (x.kind == Node::Kind::Value && fixed_rank(x) == 0) continue;  // a scalar has no axis
      const bool free = k_.any_dims[i] || k_.rel[i] == Rel::AtLeast;
      if ((free || any_rank1) && !non_empty[i]) can0 = true;
      if (free || any_rank1) can2 = true;
      if (free || any_rank1 || k_.reshaped[i]) can1 = true;
      if (x.kind != Node::Kind::Value) continue;
      for (const Constraint& c : where_) {
        if (c.negated || c.args.size() < 2 || c.args[0].kind != Constraint::Arg::Kind::Value || c.args[0].name != x.name) continue;
        if ((c.pred == "some_axis_size" && c.args.back().i != 1) || (c.pred == "num_elements_is" && c.args.back().i != 1))
          forced_non1 = constraint_text(c) + " gives %" + x.name + " an axis of size " +
                        (c.pred == "num_elements_is" && c.args.back().i >= 2 ? ">= 2" : std::to_string(c.args.back().i));
      }
    }
    bool any_axis = false;
    for (int i : k_.leaves()) {
      const Node& x = *k_.nodes[i];
      if (x.kind == Node::Kind::Value && fixed_rank(x) == 0) continue;
      any_axis = any_axis || k_.any_dims[i] || k_.rel[i] == Rel::AtLeast || any_rank1 || k_.reshaped[i];
    }
    const std::string no_axis = "no input can have an axis (every input is rank 0 at every reachable rank)";
    for (int m : {0, 1, 2}) {
      CoverageClass c;
      c.name = n_sizes(m);
      c.steer.sizes = m;
      if (!any_axis) unreach(c, no_axis);
      if (m == 0 && !can0) unreach(c, "no input can have an axis of size 0: " + empty_why + ", and every input that can have an axis has its shape");
      if (m == 2 && !can2) unreach(c, no_axis);
      if (m == 1 && !can1) unreach(c, no_axis);
      if (m == 1) unreach(c, forced_non1);
      if (any_rank1) c.min_rank = 1;
      add(p, std::move(c));
    }
  }

  Skeleton k_;
  const std::vector<Constraint>& where_;
  int max_rank_, max_dim_;
  std::vector<std::string> rank_block_;
  Search s_;
  std::vector<std::map<int, std::string>> dom_why_;
};

/// Whether transposing x by `a` and by `b` moves the elements alike: x is empty, or the axes of size
/// >= 2 come out in the same order (size-1 axes do not change the element order).
bool same_map(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const TensorType& x) {
  if (x.num_elements() == 0) return true;
  auto order = [&](const std::vector<int64_t>& r) {
    std::vector<int64_t> o;
    for (int64_t m : r)
      if (m >= 0 && m < x.rank() && x.dims[m] >= 2) o.push_back(m);
    return o;
  };
  return order(a) == order(b);
}

bool commute(const std::vector<int64_t>& p, const std::vector<int64_t>& q) {
  if (p.size() != q.size()) return true;
  for (size_t i = 0; i < p.size(); ++i) {
    if (q[i] < 0 || q[i] >= static_cast<int64_t>(p.size()) || p[i] < 0 || p[i] >= static_cast<int64_t>(q.size())) return true;
    if (p[q[i]] != q[p[i]]) return false;
  }
  return true;
}

}  // namespace

CoveragePlan plan_coverage(const Node& source, const std::vector<Constraint>& where, uint8_t assumes, int max_rank,
                           int max_dim, std::string prefix) {
  Planner pl(source, where, assumes, max_rank, max_dim);
  CoveragePlan p = pl.plan(std::move(prefix));
  for (auto& c : p.classes) c.name = p.prefix + c.name;
  return p;
}

std::set<std::string> classify(const CoveragePlan& plan, const Instance& inst) {
  std::set<std::string> out;
  if (!inst.program || !plan.skel) return out;
  const Skeleton& k = *plan.skel;
  const Program& p = *inst.program;
  auto value = [&](int i) -> ValueId {
    return i >= 0 && i < static_cast<int>(inst.node_values.size()) ? inst.node_values[i] : kNone;
  };
  auto inst_of = [&](int i) -> InstId {
    const ValueId v = value(i);
    return v == kNone ? kNone : p.def_inst(v);
  };
  // An instance whose root result is empty checks no value: it counts only for the shape classes
  // (input sizes, pad, slice, tile, broadcast axes), never for the rank, dtype, accum, keepdims, dir,
  // perm, shared-subterm or flags classes (a rule wrong under accum[si8] would otherwise pass on an
  // empty accum[si8] instance).
  const bool empty = value(0) == kNone || p.type_of(value(0)).num_elements() == 0;
  auto put_shape = [&](const std::string& s) { out.insert(plan.prefix + s); };
  auto put = [&](const std::string& s) {
    if (!empty) out.insert(plan.prefix + s);
  };
  if (value(0) != kNone) put(n_rank(p.type_of(value(0)).rank()));
  for (int v : k.dims_of_var)
    for (int i : k.var_members[v])
      if (value(i) != kNone) {
        put(n_dtype(k, v, p.type_of(value(i)).dtype));
        break;
      }
  std::vector<std::pair<int, std::vector<int64_t>>> perms;
  for (size_t ii = 0; ii < k.nodes.size(); ++ii) {
    const int i = static_cast<int>(ii);
    const Node& x = *k.nodes[i];
    const InstId d = inst_of(i);
    if (x.kind != Node::Kind::Op || d == kNone || p.op(d) != x.op) continue;
    const AttrSet& a = p.attrs_of(d);
    if (x.op == OpCode::Cast)
      for (const auto& [j, o] : cast_pairs(k)) {
        if (o != i || value(j) == kNone || value(j + 1) == kNone) continue;
        const InstId e = inst_of(j);
        if (e == kNone || p.op(e) != OpCode::Cast || p.num_operands(d) != 1) continue;
        // The dtypes at the two casts: x -> M at the inner one, M -> T at the outer one (M is both
        // the inner cast's result and the outer one's operand: one dtype variable).
        const DType dx = p.type_of(value(j + 1)).dtype, dm = p.type_of(value(j)).dtype,
                    dm2 = p.type_of(p.operand(d, 0)).dtype, dt = p.type_of(value(i)).dtype;
        const int la = cast_loss(dx, dm), lb = cast_loss(dm2, dt);
        if (dm == dm2 && la >= 0 && lb >= 0) put(n_cast_chain(k, j, i, la, lb));
      }
    for (const AttrSpec& spec : op_attr_schema(x.op))
      if (!spec.required && spec.dflt != AttrDefault::None && spec.dflt != AttrDefault::Own &&
          optattr_fired(p, d, spec))
        put(n_optattr(k, i, spec.name));
    if (x.op == OpCode::ScatterAdd && !scatter_leading(a)) put(n_scatter(k, i));
    if (hidden_axis_big(p, d, x.op)) put(n_hidden(k, i));
    if (x.op == OpCode::Concat) {
      const int64_t axis = a.int_or("axis", -1);
      int big = 0;
      for (uint32_t o = 0; o < p.num_operands(d); ++o) {
        const TensorType& t = p.type_of(p.operand(d, o));
        if (axis >= 0 && axis < t.rank() && t.dims[axis] >= 2) ++big;
      }
      if (big >= 2) put(n_concat_two_big(k, i));
    }
    if (x.op == OpCode::ScatterAdd) {
      const auto& sd = a.ints("scatter_dims_to_operand_dims");
      const TensorType& xt = p.type_of(p.operand(d, 0));
      if (sd.size() >= 3 && std::all_of(sd.begin(), sd.end(), [&](int64_t v) { return v >= 0 && v < xt.rank() && xt.dims[v] >= 2; }))
        put(n_wide_scatter(k, i, 0));
      const TensorType& it = p.type_of(p.operand(d, 1));
      const int64_t ivd = a.int_or("index_vector_dim", it.rank());
      for (int j = 0; j < it.rank(); ++j)
        if (j != ivd && it.dims[j] >= 3) {
          put(n_wide_scatter(k, i, 1));
          break;
        }
    }
    if (x.op == OpCode::ReduceWindow || x.op == OpCode::ExtractPatches) {
      const bool patches = x.op == OpCode::ExtractPatches;
      const std::vector<int64_t>& xd = p.type_of(p.operand(d, 0)).dims;
      std::vector<int64_t> out = p.type_of(p.result(d, 0)).dims;
      if (patches && !out.empty()) out.pop_back();
      for (int w = 0; w < 8; ++w)
        if (!(patches && (w == 3 || w == 0)) && window_attr_wide(a, w, patches, xd, out)) put(n_wide_window(k, i, w, patches));
    }
    if (x.op == OpCode::Pad) {
      const auto& in = a.ints("interior");
      const TensorType& xt = p.type_of(p.operand(d, 0));
      for (size_t j = 0; j < in.size() && static_cast<int>(j) < xt.rank(); ++j)
        if (in[j] >= 3 && xt.dims[j] >= 2) {
          put(n_wide_interior(k, i));
          break;
        }
    }
    if (x.op == OpCode::Quantize || x.op == OpCode::Dequantize || x.op == OpCode::Requantize)
      if (p.type_of(p.operand(d, 0)).dims != p.type_of(p.result(d, 0)).dims || p.type_of(p.operand(d, 1)).rank() != 0 ||
          p.type_of(p.operand(d, 2)).rank() != 0)
        put(n_quant_shapes(k, i));
    if (has_accum(x.op)) {
      const AttrValue* acc = a.find("accum");
      put(n_accum(k, i, acc && !acc->ints.empty() ? static_cast<int>(acc->ints[0]) : -1));
    }
    if (is_reduce(x.op)) {
      const AttrValue* kd = a.find("keepdims");
      put(n_keep(k, i, !kd ? 0 : !kd->ints.empty() && kd->ints[0] ? 2 : 1));
      const auto& ax = a.ints("axes");
      if (!std::is_sorted(ax.begin(), ax.end())) put(n_axes_order(k, i));
      if (ax.size() >= 3 && !std::is_sorted(ax.begin(), ax.end()) && !std::is_sorted(ax.begin(), ax.end(), std::greater<>()))
        put(n_axes_shuffled(k, i));
      if (ax.empty()) put(n_axes_count(k, i, false));
      if (ax.size() >= 3) put(n_axes_count(k, i, true));
    }
    if (x.op == OpCode::Compare)
      if (const AttrValue* dir = a.find("dir"))
        for (int j = 0; j < 6; ++j)
          if (dir->text == kDirs[j]) put(n_dir(k, i, j));
    const auto any = [](const std::vector<int64_t>& v, auto pred) { return std::any_of(v.begin(), v.end(), pred); };
    switch (x.op) {
      case OpCode::Transpose: {
        // As a map on this instance's data: a permutation that only moves axes of size 1, or acts on
        // an empty tensor, moves no element (the identity class).
        const std::vector<int64_t>& pm = a.ints("perm");
        const TensorType& x = p.type_of(p.operand(d, 0));
        std::vector<int64_t> id(pm.size());
        for (size_t j = 0; j < pm.size(); ++j) id[j] = static_cast<int64_t>(j);
        put(n_perm(k, i, same_map(pm, id, x) ? 0 : 1));
        if (const int order = perm_order_on(pm, x); order > 1) put(n_perm_order(k, i, order));
        perms.push_back({i, pm});
        break;
      }
      case OpCode::DotGeneral: {
        const int lr = p.type_of(p.operand(d, 0)).rank(), rr = p.type_of(p.operand(d, 1)).rank();
        const auto& bl = a.ints("batch_lhs");
        const auto& br = a.ints("batch_rhs");
        const auto& cl = a.ints("contract_lhs");
        const auto& cr = a.ints("contract_rhs");
        for (int m = 0; m < kNumDotLayouts; ++m)
          if (dot_layout_has(m, lr, rr, bl, br, cl, cr)) put(n_dot(k, i, m));
        break;
      }
      case OpCode::Pad:
        put_shape(n_padneg(k, i, any(a.ints("low"), [](int64_t v) { return v < 0; }) || any(a.ints("high"), [](int64_t v) { return v < 0; })));
        put_shape(n_interior(k, i, any(a.ints("interior"), [](int64_t v) { return v > 0; })));
        break;
      case OpCode::Slice: put_shape(n_starts(k, i, any(a.ints("starts"), [](int64_t v) { return v > 0; }))); break;
      case OpCode::Tile: {
        const auto& r = a.ints("repeats");
        if (!any(r, [](int64_t v) { return v != 1; })) put_shape(n_repeats(k, i, 0));
        if (any(r, [](int64_t v) { return v == 0; })) put_shape(n_repeats(k, i, 1));
        if (any(r, [](int64_t v) { return v >= 2; })) put_shape(n_repeats(k, i, 2));
        const TensorType& xt = p.type_of(p.operand(d, 0));
        for (size_t j = 0; j < r.size() && static_cast<int>(j) < xt.rank(); ++j)
          if (r[j] >= 2 && xt.dims[j] >= 2) {
            put_shape(n_repeats(k, i, 3));
            break;
          }
        for (size_t j = 0; j < r.size() && static_cast<int>(j) < xt.rank(); ++j)
          if (r[j] >= 3 && xt.dims[j] >= 2) {
            put_shape(n_repeats(k, i, 4));
            break;
          }
        break;
      }
      case OpCode::BroadcastTo: {
        const TensorType& o = p.type_of(p.operand(d, 0));
        const TensorType& t = p.type_of(p.result(d, 0));
        const int lead = t.rank() - o.rank();
        put_shape(n_brank(k, i, lead > 0));
        if (lead > 0)
          for (int j = 0; j < o.rank(); ++j)
            if (o.dims[j] >= 2) {
              put_shape(n_bmove(k, i));
              break;
            }
        bool exp = false;
        for (int j = 0; j < o.rank() && lead >= 0; ++j) exp = exp || (o.dims[j] == 1 && t.dims[lead + j] != 1);
        put_shape(n_bexp(k, i, exp));
        break;
      }
      default: break;
    }
  }
  // Two permutations that do not commute as maps on the data: p then q and q then p read different
  // elements of the tensor the first one transposes (in a chain transpose(transpose(x, p), q), x).
  for (const auto& [i, pm] : perms)
    for (const auto& [j, q] : perms) {
      if (i == j || pm.size() != q.size() || commute(pm, q)) continue;
      const bool chain_ij = k.parent[j] == i, chain_ji = k.parent[i] == j;
      const int first = chain_ij ? j : chain_ji ? i : i;
      const TensorType& x = p.type_of(p.operand(inst_of(first), 0));
      const std::vector<int64_t>& a1 = first == j ? q : pm;  // applied first
      const std::vector<int64_t>& a2 = first == j ? pm : q;
      std::vector<int64_t> r1(a1.size()), r2(a1.size());
      bool ok = true;
      for (size_t m = 0; m < a1.size() && ok; ++m) {
        ok = a2[m] >= 0 && a2[m] < static_cast<int64_t>(a1.size()) && a1[m] >= 0 && a1[m] < static_cast<int64_t>(a2.size());
        if (ok) r1[m] = a1[a2[m]], r2[m] = a2[a1[m]];
      }
      if (ok && !same_map(r1, r2, x)) put(n_perm(k, i, 2));
    }
  // Input sizes: over the leaves (parameters and literals), each value once.
  std::set<ValueId> leaves;
  for (int i : k.leaves())
    if (value(i) != kNone) leaves.insert(value(i));
  bool zero = false, big = false, axes = false, all1 = true;
  for (ValueId v : leaves)
    for (int64_t d : p.type_of(v).dims) {
      axes = true;
      zero = zero || d == 0;
      big = big || d >= 2;
      all1 = all1 && d == 1;
    }
  if (zero) put_shape(n_sizes(0));
  if (axes && all1) put_shape(n_sizes(1));
  if (big) put_shape(n_sizes(2));
  for (const auto& r : k.shared) {
    auto it = k.values.find(r);
    bool one = it != k.values.end();
    ValueId v0 = kNone;
    for (int i : it->second) {
      const ValueId v = value(i);
      if (v == kNone) one = false;
      else if (v0 == kNone) v0 = v;
      else one = one && v == v0;
    }
    if (one) put(n_shared(r));
  }
  const uint8_t extra = static_cast<uint8_t>(p.body(p.entry()).fastmath.bits & ~k.assumes);
  if (!extra) put(n_flags(0));
  std::vector<int> float_vars;  // dtype variables that are a float in this instance
  for (int v : k.dims_of_var)
    for (int i : k.var_members[v])
      if (value(i) != kNone) {
        if (is_float(p.type_of(value(i)).dtype)) float_vars.push_back(v);
        break;
      }
  for (int bit : {static_cast<int>(rules::kNNaN), static_cast<int>(rules::kNInf), static_cast<int>(rules::kNSZ),
                  static_cast<int>(rules::kReassoc)})
    if (extra & bit) {
      put(n_flags(bit));
      for (int v : float_vars) put(n_flags_float(k, v, bit));
    }
  return out;
}

}  // namespace ptir::prove
