// The random rule generator (fuzz/gen/gen_rules.h).
#include "fuzz/gen/gen_rules.h"

#include <algorithm>
#include <map>
#include <vector>

#include "ir/ops.h"

namespace ptir::fuzz {
namespace {

/// A node of a rule DAG as text is written: the generator's own small tree (copyable, so mutations are
/// plain edits), printed at the end.
struct G {
  enum class K : uint8_t { Val, Op, Splat, Const } k = K::Val;
  std::string name;  ///< Val: value capture (no sigil); Const: literal capture
  OpCode op = OpCode::Neg;
  std::vector<G> kids;
  std::vector<std::pair<std::string, std::string>> attrs;  ///< name -> value text
  std::string number;  ///< Splat
  std::string type;    ///< source: type capture name (no sigil); result: "$T0" or "type(%x0)"
  std::string as;      ///< source only
};

/// Attribute roles as rewriter/rules/compile.cpp tells them apart (ir/ops.h AttrRole).
enum class Role : uint8_t { Perm, AxisList, Axis, PerAxis, Word };

const char* kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};
const char* kNumbers[] = {"0", "1", "-1", "2", "0.0", "-0.0", "1.0", "-1.0", "0.5", "2.0", "inf", "-inf", "nan"};
const char* kDtypes[] = {"f16", "bf16", "f32", "f64", "si8", "si32", "si64", "ui8", "ui32", "i1"};
const char* kAccums[] = {"f32", "f64", "si32", "si64", "f16"};

std::string name_of(OpCode op) { return std::string(ptir::mnemonic(op)); }

bool derivable(OpCode op) {
  return op == OpCode::Transpose || (has_trait(op, OpTrait::Elementwise) && op != OpCode::Cast);
}
bool unary_movement(OpCode op) {
  return op == OpCode::Transpose || op == OpCode::BroadcastTo || op == OpCode::Slice || op == OpCode::Tile ||
         op == OpCode::Reshape;
}
bool binary_elementwise(OpCode op) {
  return op == OpCode::Add || op == OpCode::Sub || op == OpCode::Mul || op == OpCode::Maximum ||
         op == OpCode::Minimum;
}
bool is_reduce(OpCode op) { return op == OpCode::ReduceSum || op == OpCode::ReduceMax || op == OpCode::ReduceMin; }

class RuleGen {
 public:
  RuleGen(Choices& c, const RuleGenOptions& o) : c_(c), o_(o) {
    want_conflict_ = o.role_conflict_one_in > 0 && c_.range(0, o.role_conflict_one_in - 1) == 0;
  }

  GeneratedRule run(const std::string& name) {
    GeneratedRule out;
    out.name = name;
    // Small rules are the common case (the prover's time grows with the DAG); up to max_ops.
    const int span = std::max(0, o_.max_ops - o_.min_ops);
    int extra = static_cast<int>(c_.range(0, span));
    if (c_.chance(1, 2)) extra = std::min(extra, static_cast<int>(c_.range(0, std::min(span, 2))));
    budget_ = o_.min_ops + extra;
    if (want_conflict_ && budget_ > 1 && budget_ == o_.max_ops) --budget_;  // room for the planted wrapper
    G source = src(0, /*want_bool=*/false, /*allow_bool=*/true, /*root=*/true);
    if (want_conflict_ && !conflict_) {
      // No second role came up on the way: wrap the source in an op that uses an existing capture in
      // another role (a transpose's perm, or, for a permutation, a slice's starts).
      std::vector<std::pair<Role, std::string>> caps;
      for (const auto& [role, pool] : attr_caps_)
        for (const std::string& cap : pool) caps.push_back({role, cap});
      if (!caps.empty()) {
        const auto& [role, cap] = c_.pick(caps);
        G w;
        w.k = G::K::Op;
        w.op = role == Role::Perm ? OpCode::Slice : OpCode::Transpose;
        w.attrs.push_back({role == Role::Perm ? "starts" : "perm", "$" + cap});
        w.kids = {std::move(source)};
        source = std::move(w);
        conflict_ = true;
        ++ops_;
      }
    }
    out.source_ops = ops_;
    const std::vector<std::string> where = constraints();
    G result = to_result(source);
    std::string what;
    const int muts = static_cast<int>(c_.weighted({1, 14, 5}));  // none (a right rule), one, two
    for (int m = 0; m < muts; ++m) what += (what.empty() ? "" : "; ") + mutate(result);
    if (what.empty()) what = "unchanged";
    out.mutation = what;
    out.role_conflict = conflict_;

    std::vector<std::string> opts;
    if (c_.chance(1, 5)) {
      std::string a = "assumes";
      const char* flags[] = {"nnan", "ninf", "nsz"};
      bool any = false;
      for (const char* f : flags)
        if (c_.chance(1, 2)) a += std::string(" ") + f, any = true;
      if (c_.chance(1, 10)) a += " reassoc", any = true;
      if (!any) a += " nsz";
      opts.push_back(a);
    }
    if (c_.chance(1, 4)) opts.push_back("bounded");
    if (c_.chance(1, 8)) opts.push_back("label fuzz");
    std::string text = "// fuzz: " + what + (conflict_ ? " (a capture in two roles: must not load)" : "") + "\n";
    text += "rule " + name;
    if (!opts.empty()) {
      text += " [";
      for (size_t i = 0; i < opts.size(); ++i) text += (i ? ", " : "") + opts[i];
      text += "]";
    }
    text += " : " + print(source, false);
    for (size_t i = 0; i < where.size(); ++i) text += (i ? ", " : " where ") + where[i];
    text += " => " + print(result, true) + "\n";
    out.text = std::move(text);
    return out;
  }

 private:
  // ---- source ----
  G src(int depth, bool want_bool, bool allow_bool, bool root) {
    if (!root && !force_concat_ && (budget_ == 0 || depth >= 5 || (depth > 0 && c_.chance(1, 4)))) return leaf(want_bool);
    const bool concat_here = force_concat_;
    force_concat_ = false;
    --budget_;
    ++ops_;
    G g;
    g.k = G::K::Op;
    if (want_bool) {
      g.op = OpCode::Compare;
    } else if (concat_here) {  // a slice of a concat (the shape arithmetic of integer constraints)
      g.op = OpCode::Concat;
    } else {
      // neg/abs, binary, select, compare, cast, transpose, broadcast_to, slice, tile, concat, reshape, reduce
      const size_t f = c_.weighted({3, 4, 2, allow_bool ? 1 : 0, 2, 4, 2, 3, 1, 2, 1, 2});
      static const OpCode kUnary[] = {OpCode::Neg, OpCode::Abs};
      static const OpCode kBinary[] = {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Maximum, OpCode::Minimum};
      static const OpCode kReduce[] = {OpCode::ReduceSum, OpCode::ReduceMax, OpCode::ReduceMin};
      static const OpCode kOther[] = {OpCode::Select,      OpCode::Compare, OpCode::Cast,   OpCode::Transpose,
                                      OpCode::BroadcastTo, OpCode::Slice,   OpCode::Tile,   OpCode::Concat,
                                      OpCode::Reshape};
      if (f == 0) g.op = kUnary[c_.index(2)];
      else if (f == 1) g.op = kBinary[c_.index(5)];
      else if (f == 11) g.op = kReduce[c_.index(3)];
      else g.op = kOther[f - 2];
    }
    const int d = depth + 1;
    switch (g.op) {
      case OpCode::Neg: case OpCode::Abs: g.kids.push_back(src(d, false, false, false)); break;
      case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Maximum: case OpCode::Minimum:
        g.kids.push_back(src(d, false, false, false));
        g.kids.push_back(src(d, false, false, false));
        break;
      case OpCode::Select:
        g.kids.push_back(src(d, true, true, false));
        g.kids.push_back(src(d, false, false, false));
        g.kids.push_back(src(d, false, false, false));
        break;
      case OpCode::Compare:
        g.kids.push_back(src(d, false, false, false));
        g.kids.push_back(src(d, false, false, false));
        g.attrs.push_back({"dir", c_.chance(1, 5) ? "$" + attr_cap(Role::Word) : kDirs[c_.index(6)]});
        break;
      case OpCode::Cast: g.kids.push_back(src(d, false, true, false)); break;
      case OpCode::Transpose:
        g.kids.push_back(src(d, false, false, false));
        g.attrs.push_back({"perm", c_.chance(1, 10) ? (c_.chance(1, 2) ? "[1, 0]" : "[0]") : "$" + attr_cap(Role::Perm)});
        break;
      case OpCode::BroadcastTo: g.kids.push_back(src(d, false, false, false)); break;
      case OpCode::Slice:
        force_concat_ = budget_ > 0 && c_.chance(1, 3);
        g.kids.push_back(src(d, false, false, false));
        force_concat_ = false;
        g.attrs.push_back({"starts", c_.chance(1, 10) ? (c_.chance(1, 2) ? "[0, 1]" : "[1]") : "$" + attr_cap(Role::PerAxis)});
        break;
      case OpCode::Tile:
        g.kids.push_back(src(d, false, false, false));
        g.attrs.push_back({"repeats", c_.chance(1, 10) ? "[2]" : "$" + attr_cap(Role::PerAxis)});
        break;
      case OpCode::Concat: {
        const int n = c_.chance(1, 6) ? 3 : 2;
        for (int i = 0; i < n; ++i) g.kids.push_back(src(d, false, false, false));
        g.attrs.push_back({"axis", c_.chance(1, 2) ? "$" + attr_cap(Role::Axis) : std::to_string(c_.range(0, 1))});
        break;
      }
      case OpCode::Reshape: g.kids.push_back(src(d, false, false, false)); break;
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
        g.kids.push_back(src(d, false, false, false));
        g.attrs.push_back({"axes", c_.chance(1, 10) ? (c_.chance(1, 2) ? "[0]" : "[]") : "$" + attr_cap(Role::AxisList)});
        // keepdims and accum are words: a quarter of them captured (the role of a compare's dir too).
        if (c_.chance(1, 2))
          g.attrs.push_back({"keepdims", c_.chance(1, 4) ? "$" + attr_cap(Role::Word) : c_.chance(1, 2) ? "true" : "false"});
        if (c_.chance(1, 4))
          g.attrs.push_back({"accum", c_.chance(1, 4) ? "$" + attr_cap(Role::Word) : kAccums[c_.index(5)]});
        break;
      default: break;
    }
    // A literal operand of a non-elementwise op (or of a cast) has no type to take from its context.
    if (g.op == OpCode::Cast || !has_trait(g.op, OpTrait::Elementwise))
      for (G& k : g.kids)
        if (k.k == G::K::Splat && k.type.empty()) types_.push_back(k.type = "T" + std::to_string(types_.size()));
    // Types: every op the result cannot type by itself gets a capture (so the result can name it),
    // others sometimes; a second use of an existing capture asks for the same type.
    if (!derivable(g.op) || c_.chance(1, 6)) {
      if (!types_.empty() && c_.chance(1, 6)) g.type = c_.pick(types_);
      else types_.push_back(g.type = "T" + std::to_string(types_.size()));
    }
    if (g.op == OpCode::Reshape && g.kids[0].k == G::K::Val && c_.chance(2, 3))
      pending_.push_back("same_shape(%" + g.kids[0].name + ", $" + g.type + ")");
    if (!root && (c_.chance(1, 4) || (is_reduce(g.op) && c_.chance(1, 2)))) {
      g.as = "a" + std::to_string(next_as_++);
      values_.push_back(g.as);
      if (is_reduce(g.op)) reduce_as_.push_back(g.as);
    }
    return g;
  }

  G leaf(bool want_bool) {
    G g;
    const size_t w = c_.weighted({8, values_.empty() ? 0 : 6, want_bool ? 2 : 3, want_bool ? 0 : 2});
    if (w == 0 || w == 1) {
      g.k = G::K::Val;
      if (w == 1) {
        g.name = c_.pick(values_);
      } else {
        g.name = "x" + std::to_string(next_x_++);
        values_.push_back(g.name);
        leaves_.push_back(g.name);
      }
      if (c_.chance(1, 12)) {  // a typed leaf: `%x : $T`
        if (!types_.empty() && c_.chance(1, 2)) g.type = c_.pick(types_);
        else types_.push_back(g.type = "T" + std::to_string(types_.size()));
      }
      return g;
    }
    if (w == 2) {
      g.k = G::K::Splat;
      g.number = want_bool ? (c_.chance(1, 2) ? "0" : "1") : kNumbers[c_.index(sizeof kNumbers / sizeof *kNumbers)];
      return g;
    }
    g.k = G::K::Const;
    g.name = "c" + std::to_string(lits_.size());
    lits_.push_back(g.name);
    g.as = "v" + std::to_string(lits_.size() - 1);  // so the result can use the literal
    values_.push_back(g.as);
    return g;
  }

  /// An attribute capture for `r`: reused across ops half of the time. When a role conflict is planted,
  /// a capture of another role is taken instead.
  std::string attr_cap(Role r) {
    if (want_conflict_ && !conflict_) {
      std::vector<std::string> other;
      for (const auto& [role, caps] : attr_caps_)
        if (role != r) other.insert(other.end(), caps.begin(), caps.end());
      if (!other.empty()) {
        conflict_ = true;
        return c_.pick(other);
      }
    }
    auto& pool = attr_caps_[r];
    if (!pool.empty() && c_.chance(1, 2)) return c_.pick(pool);
    static const char* kPrefix[] = {"p", "ax", "k", "s", "d"};
    pool.push_back(kPrefix[static_cast<int>(r)] + std::to_string(pool.size()));
    return pool.back();
  }

  // ---- constraints ----
  std::vector<std::string> constraints() {
    std::vector<std::string> out;
    for (const std::string& p : pending_)
      if (c_.chance(3, 4)) out.push_back(p);
    const int n = static_cast<int>(c_.weighted({3, 4, 2, 1}));
    std::vector<std::string> vt;  // value or type arguments
    for (const std::string& v : values_) vt.push_back("%" + v);
    for (const std::string& t : types_) vt.push_back("$" + t);
    auto perms = attr_caps_[Role::Perm], axes = attr_caps_[Role::AxisList], words = attr_caps_[Role::Word],
         axis = attr_caps_[Role::Axis];
    for (int i = 0; i < n && !vt.empty(); ++i) {
      std::string s;
      bool integer = false;  // integer constraints cannot be negated
      switch (c_.weighted({2, 2, 1, 1, 2, 2, 1, 1, 3, 3, 3, 3, 2, 2, 2, 2, 3, 3, 1})) {
        case 0: s = "is_float(" + c_.pick(vt) + ")"; break;
        case 1: s = "is_int(" + c_.pick(vt) + ")"; break;
        case 2: s = std::string(c_.chance(1, 2) ? "is_signed(" : "is_unsigned(") + c_.pick(vt) + ")"; break;
        case 3: s = "is_bool(" + c_.pick(vt) + ")"; break;
        case 4: s = "dtype_is(" + c_.pick(vt) + ", " + kDtypes[c_.index(10)] + ")"; break;
        case 5: s = "rank_is(" + c_.pick(vt) + ", " + std::to_string(c_.range(0, 3)) + ")"; break;
        case 6: s = "num_elements_is(" + c_.pick(vt) + ", " + std::to_string(c_.range(0, 4)) + ")"; break;
        case 7:
          if (values_.empty()) continue;
          s = "one_use(%" + c_.pick(values_) + ")";
          break;
        case 8: {
          static const char* kPairs[] = {"same_type", "same_shape", "same_dtype", "widens_exactly"};
          s = std::string(kPairs[c_.index(4)]) + "(" + c_.pick(vt) + ", " + c_.pick(vt) + ")";
          break;
        }
        case 9:
          if (perms.empty()) continue;
          s = c_.chance(1, 2) ? "composes_to_identity($" + c_.pick(perms) + ", $" + c_.pick(perms) + ")"
                              : "is_identity_perm($" + c_.pick(perms) + ")";
          break;
        case 10: case 11:
          if (axes.empty()) continue;
          s = std::string(c_.chance(1, 2) ? "axes_all_size(" : "some_axis_size(") + c_.pick(vt) + ", $" + c_.pick(axes) +
              ", " + std::to_string(c_.range(0, 2)) + ")";
          break;
        case 12:
          if (!words.empty()) s = "attr_is($" + c_.pick(words) + ", " + kDirs[c_.index(6)] + ")";
          else if (!axis.empty()) s = "attr_is($" + c_.pick(axis) + ", " + std::to_string(c_.range(0, 1)) + ")";
          else continue;
          break;
        case 13:
          if (lits_.empty()) continue;
          s = std::string(c_.chance(1, 2) ? "is_splat($" : "is_pow2($") + c_.pick(lits_) + ")";
          break;
        case 14:
          if (reduce_as_.empty()) continue;
          s = "exact_accum(%" + c_.pick(reduce_as_) + ")";
          break;
        case 15:
          if (leaves_.empty() || types_.empty()) continue;
          s = "same_type(%" + c_.pick(leaves_) + ", $" + c_.pick(types_) + ")";
          break;
        case 16: {  // an integer constraint at a concat axis (the all-shape fragment's per-axis form)
          const auto& per = attr_caps_[Role::PerAxis];
          if (axis.empty() || values_.empty()) continue;
          const std::string ax = "$" + c_.pick(axis);
          const std::string v = "dim(%" + c_.pick(values_) + ", " + ax + ")";
          const std::string t = types_.empty() ? v : "dim($" + c_.pick(types_) + ", " + ax + ")";
          const std::string st = per.empty() ? std::string("0") : "at($" + c_.pick(per) + ", " + ax + ")";
          static const char* kCmps[] = {"<=", "<", ">=", ">", "==", "!="};
          s = st + (c_.chance(1, 2) ? " + " + t : "") + " " + kCmps[c_.index(6)] + " " + v +
              (c_.chance(1, 3) ? " - " + std::to_string(c_.range(0, 2)) : "");
          integer = true;
          break;
        }
        case 17: {  // a per-axis `all`, sometimes with the concat axis excepted
          const auto& per = attr_caps_[Role::PerAxis];
          if (values_.empty()) continue;
          const std::string x = "%" + c_.pick(values_);
          std::string body;
          if (per.size() >= 2 && c_.chance(1, 2)) body = "at($" + c_.pick(per) + ", i) == at($" + c_.pick(per) + ", i)";
          else if (!per.empty() && !types_.empty())
            body = "at($" + c_.pick(per) + ", i) + dim($" + c_.pick(types_) + ", i) <= dim(" + x + ", i)";
          else body = "dim(" + x + ", i) " + (c_.chance(1, 2) ? ">= 1" : "<= 2");
          if (!axis.empty() && c_.chance(1, 2)) body = "i == $" + c_.pick(axis) + " or " + body;
          s = "all i < rank(" + x + "): " + body;
          integer = true;
          break;
        }
        default: {  // forms outside the per-axis gate: a literal axis, the rank or an axis as a number
          if (values_.empty()) continue;
          const std::string x = "%" + c_.pick(values_);
          switch (c_.range(0, 2)) {
            case 0: s = "dim(" + x + ", 0) >= 1"; break;
            case 1: s = "rank(" + x + ") <= 2"; break;
            default:
              if (axis.empty()) continue;
              s = "$" + c_.pick(axis) + " == 0";
          }
          integer = true;
          break;
        }
      }
      if (!integer && c_.chance(1, 5)) s = "not " + s;
      out.push_back(s);
    }
    return out;
  }

  // ---- result ----
  static G to_result(const G& s) {
    G r;
    switch (s.k) {
      case G::K::Val: r.k = G::K::Val, r.name = s.name; return r;
      case G::K::Splat:
        r.k = G::K::Splat, r.number = s.number;
        if (!s.type.empty()) r.type = "$" + s.type;
        return r;
      case G::K::Const: r.k = G::K::Val, r.name = s.as; return r;
      case G::K::Op: break;
    }
    r.k = G::K::Op;
    r.op = s.op;
    r.attrs = s.attrs;
    for (const G& k : s.kids) r.kids.push_back(to_result(k));
    if (!s.type.empty()) r.type = "$" + s.type;
    else if (!s.as.empty() && !derivable(s.op)) r.type = "type(%" + s.as + ")";
    return r;
  }

  static void collect(G& g, std::vector<G*>& out) {
    out.push_back(&g);
    for (G& k : g.kids) collect(k, out);
  }

  /// Another capture of the same role as `cap` (or a helper over it), for a changed attribute.
  std::string other_attr(const std::string& name, const std::string& v) {
    const Role r = name == "perm" ? Role::Perm : name == "axes" ? Role::AxisList : name == "axis" ? Role::Axis
                 : name == "dir" ? Role::Word : Role::PerAxis;
    const auto& pool = attr_caps_[r];
    const bool cap = !v.empty() && v[0] == '$';
    switch (c_.range(0, 2)) {
      case 0:
        if (pool.size() > 1) {
          std::string o = "$" + c_.pick(pool);
          if (o != v) return o;
        }
        [[fallthrough]];
      case 1:
        if (cap && r == Role::Perm)
          return c_.chance(1, 2) ? "inverse_perm(" + v + ")" : "compose_perm(" + v + ", " + (pool.empty() ? v : "$" + c_.pick(pool)) + ")";
        if (cap && r == Role::PerAxis) {
          // A computed list (the all-shape fragment's per-axis form) or an attribute helper.
          const auto& axis = attr_caps_[Role::Axis];
          const std::string d = std::to_string(c_.range(0, 1));
          if (!axis.empty() && c_.chance(2, 3))
            return "with_at(" + v + ", $" + c_.pick(axis) + ", at(" + v + ", $" + axis[0] + ") " +
                   (c_.chance(1, 2) ? "+ " : "- ") + d + ")";
          if (!values_.empty() && c_.chance(1, 2)) {
            const std::string x = "%" + c_.pick(values_);
            if (!axis.empty() && c_.chance(1, 2))
              return "[i < rank(" + x + "): if(i == $" + c_.pick(axis) + ", at(" + v + ", i) + " + d + ", at(" + v + ", i))]";
            return "[i < rank(" + x + "): at(" + v + ", i) + " + d + "]";
          }
          return (c_.chance(1, 2) ? "add_ints(" : "mul_ints(") + v + ", " + v + ")";
        }
        [[fallthrough]];
      default:
        if (r == Role::Word) return kDirs[c_.index(6)];
        if (r == Role::Axis) return std::to_string(c_.range(0, 2));
        if (r == Role::Perm) return c_.chance(1, 2) ? "[1, 0]" : "[0, 1]";
        if (r == Role::AxisList) return c_.chance(1, 2) ? "[0]" : "[1]";
        return c_.chance(1, 2) ? "[0, 0]" : "[1, 1]";
    }
  }

  /// One mutation of the result: a kind drawn by weight, applied to a node it fits (a few draws).
  std::string mutate(G& root) {
    for (int attempt = 0; attempt < 16; ++attempt) {
      std::vector<G*> nodes, ops;
      collect(root, nodes);
      for (G* g : nodes)
        if (g->k == G::K::Op) ops.push_back(g);
      const int kind = static_cast<int>(c_.weighted({2, 3, 2, 5, 3, 3, 3, 2, 2, 4}));
      // Kinds 0 (a value instead), 7 (wrap) and 8 (a splat's number) apply to leaves too.
      const auto& pool = (kind == 0 || kind == 7 || kind == 8) ? nodes : ops;
      if (pool.empty()) continue;
      G& n = *pool[c_.index(pool.size())];
      if (kind == 7 && n.k == G::K::Splat) continue;  // neg(splat(1)) has no type to derive
      std::string what = try_mutate(n, kind, nodes);
      if (!what.empty()) return what;
    }
    // Nothing applied: wrap the root in neg (always possible).
    const std::string mn = root.k == G::K::Op ? name_of(root.op) : "a leaf";
    G w;
    w.k = G::K::Op;
    w.op = OpCode::Neg;
    w.kids = {root};
    root = std::move(w);
    return "wrap " + mn + " in neg";
  }

  std::string try_mutate(G& n, int kind, std::vector<G*>& nodes) {
    const std::string mn = n.k == G::K::Op ? name_of(n.op) : "a leaf";
    switch (kind) {
      case 0: {  // a captured value instead of the node (at the root: an identity result)
        if (values_.empty()) break;
        G v;
        v.k = G::K::Val;
        v.name = c_.pick(values_);
        n = v;
        return "replace " + mn + " by %" + v.name;
      }
      case 1:  // drop an op: the node becomes one of its operands
        if (n.k == G::K::Op && !n.kids.empty()) {
          G k = n.kids[c_.index(n.kids.size())];
          n = std::move(k);
          return "drop " + mn;
        }
        break;
      case 2:  // duplicate an op
        if (n.k == G::K::Op && n.kids.size() == 1 && derivable(n.op)) {
          G w = n;
          w.kids = {n};
          w.type.clear();
          n = std::move(w);
          return "duplicate " + mn;
        }
        if (n.k == G::K::Op && n.kids.size() >= 2) {
          n.kids[1] = n.kids[0];
          return "duplicate the first operand of " + mn;
        }
        break;
      case 3:  // reorder: swap the node with its only op operand
        if (n.k == G::K::Op && n.kids.size() == 1 && n.kids[0].k == G::K::Op && !n.kids[0].kids.empty()) {
          G inner = n.kids[0];
          G outer = n;
          const size_t at = c_.index(inner.kids.size());
          outer.kids = {inner.kids[at]};
          inner.kids[at] = outer;
          std::swap(inner.type, inner.kids[at].type);
          const std::string what = "reorder " + mn + " and " + name_of(inner.op);
          n = std::move(inner);
          return what;
        }
        break;
      case 4:  // swap operands
        if (n.k == G::K::Op && n.kids.size() >= 2) {
          const size_t a = c_.index(n.kids.size());
          size_t b = c_.index(n.kids.size());
          if (a == b) b = (a + 1) % n.kids.size();
          std::swap(n.kids[a], n.kids[b]);
          return "swap operands " + std::to_string(a) + " and " + std::to_string(b) + " of " + mn;
        }
        break;
      case 5:  // change an attribute
        if (n.k == G::K::Op && !n.attrs.empty()) {
          auto& [name, v] = n.attrs[c_.index(n.attrs.size())];
          if (name == "keepdims") v = v == "true" ? "false" : "true";
          else if (name == "accum") v = kAccums[c_.index(5)];
          else v = other_attr(name, v);
          return "change " + mn + " " + name + " to " + v;
        }
        break;
      case 6:  // change the op within its family
        if (n.k == G::K::Op) {
          static const OpCode kBinary[] = {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Maximum, OpCode::Minimum};
          static const OpCode kReduce[] = {OpCode::ReduceSum, OpCode::ReduceMax, OpCode::ReduceMin};
          if (binary_elementwise(n.op)) n.op = kBinary[c_.index(5)];
          else if (is_reduce(n.op)) n.op = kReduce[c_.index(3)];
          else if (n.op == OpCode::Neg || n.op == OpCode::Abs) n.op = n.op == OpCode::Neg ? OpCode::Abs : OpCode::Neg;
          else break;
          return "change " + mn + " to " + name_of(n.op);
        }
        break;
      case 7:  // a wrapped value
        if (true) {
          G w;
          w.k = G::K::Op;
          const auto& perms = attr_caps_[Role::Perm];
          if (!perms.empty() && c_.chance(1, 2)) {
            w.op = OpCode::Transpose;
            w.attrs.push_back({"perm", "$" + c_.pick(perms)});
          } else {
            w.op = c_.chance(1, 2) ? OpCode::Neg : OpCode::Abs;
          }
          w.kids = {n};
          n = std::move(w);
          return "wrap " + mn + " in " + name_of(n.op);
        }
        break;
      case 8:  // a splat's number
        for (G* g : nodes)
          if (g->k == G::K::Splat && (g == &n || c_.chance(1, 2))) {
            const std::string old = g->number;
            g->number = kNumbers[c_.index(sizeof kNumbers / sizeof *kNumbers)];
            return "splat(" + old + ") to splat(" + g->number + ")";
          }
        break;
      default: {  // hoist a movement op over a binary elementwise op, or sink it below one
        if (n.k == G::K::Op && binary_elementwise(n.op) && n.kids[0].k == G::K::Op && unary_movement(n.kids[0].op)) {
          G move = n.kids[0];
          G bin = n;
          bin.kids[0] = n.kids[0].kids[0];
          if (n.kids[1].k == G::K::Op && n.kids[1].op == move.op) bin.kids[1] = n.kids[1].kids[0];
          bin.type.clear();
          move.kids = {bin};
          move.type = n.type.empty() ? move.type : n.type;
          n = std::move(move);
          return "hoist " + name_of((n.op)) + " over " + name_of(n.kids[0].op);
        }
        if (n.k == G::K::Op && unary_movement(n.op) && n.kids[0].k == G::K::Op && binary_elementwise(n.kids[0].op)) {
          G bin = n.kids[0];
          for (G& k : bin.kids) {
            G m = n;
            m.kids = {k};
            m.type.clear();
            if (!derivable(m.op) && k.k == G::K::Val) m.type = n.type;  // best effort: may not fit
            k = std::move(m);
          }
          bin.type = n.type;
          const std::string what = "sink " + name_of((n.op)) + " below " + name_of(bin.op);
          n = std::move(bin);
          return what;
        }
        break;
      }
    }
    return "";  // the kind does not fit this node
  }

  static std::string print(const G& g, bool result) {
    switch (g.k) {
      case G::K::Val: return "%" + g.name + (g.type.empty() || result ? "" : " : $" + g.type);
      case G::K::Splat: return "splat(" + g.number + ")" + (g.type.empty() ? "" : " : " + (result ? g.type : "$" + g.type));
      case G::K::Const: return "const($" + g.name + ")" + (g.as.empty() ? "" : " as %" + g.as);
      case G::K::Op: break;
    }
    std::string s = name_of((g.op)) + "(";
    for (size_t i = 0; i < g.kids.size(); ++i) s += (i ? ", " : "") + print(g.kids[i], result);
    s += ")";
    if (!g.attrs.empty()) {
      s += " {";
      for (size_t i = 0; i < g.attrs.size(); ++i) s += (i ? ", " : "") + g.attrs[i].first + " = " + g.attrs[i].second;
      s += "}";
    }
    if (!g.type.empty()) s += " : " + (result ? g.type : "$" + g.type);
    if (!result && !g.as.empty()) s += " as %" + g.as;
    return s;
  }

  Choices& c_;
  const RuleGenOptions& o_;
  int budget_ = 0, ops_ = 0;
  bool want_conflict_ = false, conflict_ = false;
  int next_x_ = 0, next_as_ = 0;
  std::vector<std::string> values_;     ///< value captures bound so far (%x, as-names, literals' as-names)
  std::vector<std::string> leaves_;     ///< %x leaves
  std::vector<std::string> types_;      ///< type captures
  std::vector<std::string> lits_;       ///< literal captures
  std::vector<std::string> reduce_as_;  ///< as-names of reductions (exact_accum)
  std::vector<std::string> pending_;    ///< constraints the source asks for (same_shape of a reshape)
  bool force_concat_ = false;           ///< the next source op is a concat (under a slice)
  std::map<Role, std::vector<std::string>> attr_caps_;
};

}  // namespace

GeneratedRule generate_rule(Choices& c, const RuleGenOptions& o, const std::string& name) {
  return RuleGen(c, o).run(name);
}

}  // namespace ptir::fuzz
