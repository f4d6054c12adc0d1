// Load-time checking and compilation of rules (rewriter/rules/compiled.h). Every error a rule can have
// short of "it does not preserve meaning" is found here, with its file, line and column: unknown ops,
// wrong arity, unknown or ill-kinded attributes, captures used but never bound or bound with two
// meanings, unknown predicates and helpers or wrong arguments, result types that cannot be derived.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "rewriter/rules/compiled.h"
#include "rewriter/rules/rules.h"

namespace ptir::rules {
namespace {

struct Fail {
  Loc loc;
  std::string message;
};

const char* kind_word(CapKind k) {
  switch (k) {
    case CapKind::Value: return "a value";
    case CapKind::Type: return "a type";
    case CapKind::Attr: return "an attribute";
    case CapKind::Lit: return "a literal";
  }
  return "?";
}

bool is_elementwise_typed(OpCode op) {
  return has_trait(op, OpTrait::Elementwise) && op != OpCode::Cast;
}

class Compiler {
 public:
  explicit Compiler(const Rule& r) : r_(r) {}

  void run(CompiledRule& out) {
    if (r_.source->kind != Node::Kind::Op) throw Fail{r_.source->loc, "the source of a rule must be an op, not a bare capture"};
    const OpInfo& root = op_info(r_.source->op);
    if (root.num_results != 1) throw Fail{r_.source->loc, "the root op must have exactly one result"};
    if (r_.source->op == OpCode::Constant) throw Fail{r_.source->loc, "a rule cannot be rooted at a constant"};
    out.source = source(*r_.source, out);
    for (const Constraint& c : r_.where) out.where.push_back(constraint(c));
    int id = 0;
    out.result = result(*r_.result, /*is_root=*/true, id);
    out.num_result_nodes = id;
    out.num_swaps = swaps_;
    out.flat = is_flat(out.source);
  }

  static bool is_flat(const MNode& m) {
    if (m.kind != Node::Kind::Op || m.operands.size() > CompiledRule::kFlatMaxOperands) return false;
    for (const MNode& o : m.operands)
      if (o.kind == Node::Kind::Op) return false;
    return true;
  }

 private:
  // ---- captures ----
  int bind(const std::string& name, CapKind k, Loc at) {
    auto it = caps_.find(name);
    const std::string sig = k == CapKind::Value ? "%" : "$";
    if (it != caps_.end()) {
      if (it->second.first != k)
        throw Fail{at, "capture " + sig + name + " is " + kind_word(it->second.first) + " here it is used as " + kind_word(k)};
      return it->second.second;
    }
    const int slot = counts_[static_cast<int>(k)]++;
    if (slot >= kMaxCaptures) throw Fail{at, "more than " + std::to_string(kMaxCaptures) + " captures of one kind"};
    caps_.emplace(name, std::make_pair(k, slot));
    return slot;
  }
  /// A capture used in a constraint or result: must be bound by the source.
  std::pair<CapKind, int> use(const std::string& name, bool value_sigil, Loc at) {
    auto it = caps_.find(name);
    const std::string sig = value_sigil ? "%" : "$";
    if (it == caps_.end()) throw Fail{at, "capture " + sig + name + " is used but never bound by the source pattern"};
    if (value_sigil != (it->second.first == CapKind::Value))
      throw Fail{at, "capture " + sig + name + " is " + kind_word(it->second.first) + (value_sigil ? "; write $" : "; write %") + name};
    return it->second;
  }

  // ---- source ----
  MNode source(const Node& n, CompiledRule& out) {
    MNode m;
    m.kind = n.kind;
    switch (n.kind) {
      case Node::Kind::Value: m.slot = bind(n.name, CapKind::Value, n.loc); break;
      case Node::Kind::Splat:
        m.number = n.number;
        for (int d = 0; d < kNumDTypes; ++d) m.splat_bits[d] = number_bits(static_cast<DType>(d), n.number.value, n.number.is_float);
        break;
      case Node::Kind::Const: m.slot = bind(n.name, CapKind::Lit, n.loc); break;
      case Node::Kind::Op: {
        m.op = n.op;
        ++out.num_source_ops;
        check_arity(n);
        if (info(n.op).num_results != 1 && &n != r_.source.get())
          throw Fail{n.loc, std::string(mnemonic(n.op)) + " has several results and cannot be matched as an operand"};
        if (has_trait(n.op, OpTrait::Regions) || has_trait(n.op, OpTrait::Effect))
          throw Fail{n.loc, std::string(mnemonic(n.op)) + " cannot appear in a rule (regions and effects are matched by C++ patterns)"};
        m.commutative = has_trait(n.op, OpTrait::Commutative) && n.operands.size() == 2;
        if (m.commutative) m.swap_bit = swaps_++;
        for (const AttrExpr& a : n.attrs) m.attrs.push_back(source_attr(n.op, a));
        for (const auto& o : n.operands) m.operands.push_back(source(*o, out));
        break;
      }
    }
    if (!n.type_capture.empty()) m.type_slot = bind(n.type_capture, CapKind::Type, n.loc);
    if (!n.as_name.empty()) {
      m.as_slot = bind(n.as_name, CapKind::Value, n.loc);
      if (n.kind == Node::Kind::Op) value_ops_.emplace(n.as_name, n.op);
    }
    return m;
  }

  static const OpInfo& info(OpCode op) { return op_info(op); }

  void check_arity(const Node& n) {
    const OpInfo& i = info(n.op);
    const int k = static_cast<int>(n.operands.size());
    if (k < i.min_operands || (i.max_operands >= 0 && k > i.max_operands)) {
      std::string want = i.min_operands == i.max_operands ? std::to_string(i.min_operands)
                         : i.max_operands < 0            ? "at least " + std::to_string(i.min_operands)
                                                         : std::to_string(i.min_operands) + " to " + std::to_string(i.max_operands);
      throw Fail{n.loc, std::string(mnemonic(n.op)) + " takes " + want + " operand" + (want == "1" ? "" : "s") + ", the rule gives " +
                            std::to_string(k)};
    }
  }

  const AttrSpec& attr_spec(OpCode op, const AttrExpr& a) {
    const AttrSpec* s = find_attr_spec(op, a.name);
    if (!s) {
      std::string known;
      for (const AttrSpec& x : op_attr_schema(op)) known += (known.empty() ? "" : ", ") + std::string(x.name);
      throw Fail{a.loc, std::string(mnemonic(op)) + " has no attribute '" + a.name + "'" +
                            (known.empty() ? " (it takes none)" : " (it takes " + known + ")")};
    }
    if (s->kind == AttrKind::Region || s->kind == AttrKind::Literal || s->kind == AttrKind::String)
      throw Fail{a.loc, "attribute '" + a.name + "' of " + std::string(mnemonic(op)) + " cannot be matched by a rule"};
    return *s;
  }

  void check_attr_constant(OpCode op, const AttrSpec& s, const AttrExpr& a) {
    if (a.kind == AttrExpr::Kind::Word) {
      if (s.kind == AttrKind::DType) {
        if (!parse_dtype(a.word)) throw Fail{a.loc, "unknown dtype '" + a.word + "'"};
      } else if (s.kind == AttrKind::Bool) {
        if (a.word != "true" && a.word != "false") throw Fail{a.loc, "attribute '" + a.name + "' is true or false"};
      } else if (s.kind == AttrKind::Word) {
        bool ok = false;
        for (auto w : s.words) ok = ok || w == a.word;
        if (!ok) throw Fail{a.loc, "'" + a.word + "' is not a value of " + std::string(mnemonic(op)) + "'s attribute '" + a.name + "'"};
      } else {
        throw Fail{a.loc, "attribute '" + a.name + "' takes integers, not a word"};
      }
    } else if (a.kind == AttrExpr::Kind::Ints) {
      if (s.kind != AttrKind::Ints && s.kind != AttrKind::Int)
        throw Fail{a.loc, "attribute '" + a.name + "' does not take integers"};
      if (s.kind == AttrKind::Int && a.ints.size() != 1) throw Fail{a.loc, "attribute '" + a.name + "' takes one integer"};
    }
  }

  MNode::MAttr source_attr(OpCode op, const AttrExpr& a) {
    const AttrSpec& s = attr_spec(op, a);
    if (a.kind == AttrExpr::Kind::Call || a.kind == AttrExpr::Kind::List || a.kind == AttrExpr::Kind::WithAt)
      throw Fail{a.loc, "helpers compute result attributes; a source attribute is a capture or a constant"};
    check_attr_constant(op, s, a);
    MNode::MAttr m{a.name, a.kind, -1, a.ints, a.word};
    if (a.kind == AttrExpr::Kind::Capture) {
      m.slot = bind(a.capture, CapKind::Attr, a.loc);
      role(a.capture, op, s, a.loc);
      attr_specs_.emplace(a.capture, std::make_pair(op, &s));
    }
    return m;
  }

  /// A captured attribute has one role (ir/ops.h AttrRole) in every use: `$p` as a transpose's perm
  /// and as a reduction's axes would give one list two meanings, which no encoder can bind soundly.
  void role(const std::string& cap, OpCode op, const AttrSpec& s, Loc at) {
    const std::string here = std::string(mnemonic(op)) + " " + std::string(s.name);
    auto [it, fresh] = roles_.emplace(cap, std::make_pair(s.role, here));
    if (fresh || it->second.first == s.role) return;
    throw Fail{at, "capture $" + cap + " is " + attr_role_name(it->second.first) + " (" + it->second.second +
                       ") and here " + attr_role_name(s.role) + " (" + here + "): a captured attribute has one role"};
  }

  // ---- constraints and natives ----
  /// `roles`: per parameter, the role an attribute argument must have (natives.h ArgRole; empty: none).
  std::vector<Arg> resolve_args(const std::vector<Param>& params, const std::vector<Constraint::Arg>& args,
                                const std::string& what, Loc at, Site site, const std::vector<ArgRole>& roles = {}) {
    if (params.size() != args.size())
      throw Fail{at, what + " takes " + std::to_string(params.size()) + " argument" + (params.size() == 1 ? "" : "s") +
                         ", given " + std::to_string(args.size())};
    std::vector<Arg> out;
    for (size_t k = 0; k < args.size(); ++k) {
      const Constraint::Arg& a = args[k];
      Arg r;
      const std::string pos = what + " argument " + std::to_string(k + 1);
      switch (params[k]) {
        case Param::Word:
          if (a.kind != Constraint::Arg::Kind::Word && a.kind != Constraint::Arg::Kind::Int)
            throw Fail{at, pos + " is a word"};
          r.word = a.kind == Constraint::Arg::Kind::Int ? "" : a.name, r.i = a.i;
          break;
        case Param::Int:
          if (a.kind != Constraint::Arg::Kind::Int) throw Fail{at, pos + " is an integer"};
          r.i = a.i;
          break;
        default: {
          if (a.kind != Constraint::Arg::Kind::Value && a.kind != Constraint::Arg::Kind::Capture)
            throw Fail{at, pos + " is a capture"};
          auto [kind, slot] = use(a.name, a.kind == Constraint::Arg::Kind::Value, at);
          // The table `ptir prove --list-natives` prints (natives.h, param_accepts).
          if (!param_accepts(params[k], site, kind))
            throw Fail{at, pos + " cannot be " + kind_word(kind) + " (it takes " + param_spelling(params[k], site) + ")"};
          r.kind = kind, r.slot = slot;
          // A captured attribute has one role in every use, helpers' and predicates' arguments included:
          // compose_perm of slice starts, or add_ints of a permutation, would give one list two meanings.
          if (kind == CapKind::Attr && k < roles.size() && roles[k]) {
            auto role = roles_.find(a.name);
            if (role != roles_.end() && role->second.first != *roles[k])
              throw Fail{at, pos + " must be " + attr_role_name(*roles[k]) + "; capture $" + a.name + " is " +
                                 attr_role_name(role->second.first) + " (" + role->second.second + ")"};
          }
        }
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  // ---- integer expressions (natives.h CIntExpr) ----
  CIntExpr int_expr(const IntExpr& e) {
    using K = IntExpr::Kind;
    CIntExpr r;
    r.kind = e.kind;
    r.lit = e.lit;
    switch (e.kind) {
      case K::Lit: break;
      case K::Var: {
        for (int k = static_cast<int>(vars_.size()) - 1; k >= 0 && r.slot < 0; --k)
          if (vars_[k] == e.name) r.slot = k;
        if (r.slot < 0)
          throw Fail{e.loc, "unknown name '" + e.name + "' in an integer expression (a variable is bound by 'all " + e.name +
                                " < E: ...' or '[" + e.name + " < E: ...]')"};
        break;
      }
      case K::Dim:
      case K::Rank: {
        auto [kind, slot] = use(e.name, e.value_sigil, e.loc);
        if (kind != CapKind::Value && kind != CapKind::Type)
          throw Fail{e.loc, std::string(e.kind == K::Dim ? "dim" : "rank") + " takes %x or $T; $" + e.name + " is " + kind_word(kind)};
        r.cap = kind, r.slot = slot;
        break;
      }
      case K::At:
      case K::Cap: {
        auto [kind, slot] = use(e.name, false, e.loc);
        if (kind != CapKind::Attr && kind != CapKind::Lit)
          throw Fail{e.loc, "$" + e.name + " is " + kind_word(kind) + ", not an integer list or an integer literal" +
                                (kind == CapKind::Type ? " (write dim($" + e.name + ", k) or rank($" + e.name + "))" : "")};
        r.cap = kind, r.slot = slot;
        break;
      }
      default: break;
    }
    for (const auto& k : e.kids) r.kids.push_back(int_expr(*k));
    if (e.kind == K::If) r.cond = std::make_shared<CIntCond>(int_cond(*e.cond));
    return r;
  }
  CIntCond int_cond(const IntCond& c) {
    CIntCond r;
    r.kind = c.kind;
    r.cmp = c.cmp;
    if (c.kind == IntCond::Kind::Cmp) {
      r.lhs = int_expr(*c.lhs);
      r.rhs = int_expr(*c.rhs);
      return r;
    }
    if (c.kind == IntCond::Kind::All) {
      r.rhs = int_expr(*c.rhs);
      bound_var(c.var, c.loc);
      r.kids.push_back(int_cond(*c.kids[0]));
      vars_.pop_back();
      return r;
    }
    for (const auto& k : c.kids) r.kids.push_back(int_cond(*k));
    return r;
  }
  /// Opens the scope of a variable (closed by vars_.pop_back()).
  void bound_var(const std::string& v, Loc at) {
    if (static_cast<int>(vars_.size()) >= kMaxIntVars)
      throw Fail{at, "more than " + std::to_string(kMaxIntVars) + " nested variables"};
    for (const std::string& w : vars_)
      if (w == v) throw Fail{at, "variable '" + v + "' is already bound here"};
    vars_.push_back(v);
  }

  MConstraint constraint(const Constraint& c) {
    if (c.cond) {
      MConstraint m;
      m.cond = std::make_shared<CIntCond>(int_cond(*c.cond));
      return m;
    }
    const PredicateSpec* p = find_predicate(c.pred);
    if (!p) throw Fail{c.loc, "unknown predicate '" + c.pred + "' (see docs/rules.md for the list)"};
    std::vector<Arg> args = resolve_args(p->params, c.args, "predicate " + c.pred, c.loc, Site::Predicate, p->roles);
    check_words(*p, c);
    return {p, std::move(args), c.negated};
  }

  /// The word arguments of dtype_is, has_attr and attr_is name something that exists: a misspelt word
  /// would make the constraint never hold (the rule never fires) or always hold under `not`.
  void check_words(const PredicateSpec& p, const Constraint& c) {
    // A rank no type can have makes rank_is never hold (the rule never fires), or always hold under `not`.
    if (p.id == NativeId::RankIs && c.args.size() >= 2 && c.args[1].kind == Constraint::Arg::Kind::Int &&
        (c.args[1].i < 0 || c.args[1].i > kMaxTypeRank))
      throw Fail{c.loc, "predicate rank_is argument 2 is " + std::to_string(c.args[1].i) +
                            ", not a rank (0.." + std::to_string(kMaxTypeRank) + ")"};
    // Only the word-taking predicates have a second argument to check (resolve_args has checked the count).
    if ((p.id != NativeId::DtypeIs && p.id != NativeId::HasAttr && p.id != NativeId::AttrIs) || c.args.size() < 2) return;
    const std::string pos = "predicate " + c.pred + " argument 2";
    const Constraint::Arg& w = c.args[1];
    const bool word = w.kind == Constraint::Arg::Kind::Word;
    switch (p.id) {
      case NativeId::DtypeIs: {
        if (!word) throw Fail{c.loc, pos + " is a dtype name, not an integer"};
        for (int d = 0; d < kNumDTypes; ++d)
          if (w.name == dtype_name(static_cast<DType>(d))) return;
        std::string known;
        for (int d = 0; d < kNumDTypes; ++d) known += (d ? ", " : "") + std::string(dtype_name(static_cast<DType>(d)));
        const auto near = parse_dtype(w.name);  // the same name in other letters
        throw Fail{c.loc, "unknown dtype '" + w.name + "' in " + pos +
                              (near ? " (dtype names are lower case: " + std::string(dtype_name(*near)) + ")"
                                    : " (dtypes: " + known + ")")};
      }
      case NativeId::HasAttr: {
        if (!word) throw Fail{c.loc, pos + " is an attribute name, not an integer"};
        auto op = value_ops_.find(c.args[0].name);
        if (op != value_ops_.end()) {
          if (find_attr_spec(op->second, w.name)) return;
          std::string known;
          for (const AttrSpec& x : op_attr_schema(op->second)) known += (known.empty() ? "" : ", ") + std::string(x.name);
          throw Fail{c.loc, std::string(mnemonic(op->second)) + " (the op defining %" + c.args[0].name +
                                ") has no attribute '" + w.name + "'" +
                                (known.empty() ? " (it takes none)" : " (it takes " + known + ")")};
        }
        for (int o = 0; o < kNumOps; ++o)
          if (find_attr_spec(static_cast<OpCode>(o), w.name)) return;
        throw Fail{c.loc, "no op has an attribute '" + w.name + "' (" + pos + ")"};
      }
      case NativeId::AttrIs: {
        auto it = attr_specs_.find(c.args[0].name);
        if (it == attr_specs_.end()) return;  // a helper's result: its kind is checked where it is used
        const auto [op, s] = it->second;
        const std::string what = "$" + c.args[0].name + " (" + std::string(mnemonic(op)) + " " + std::string(s->name) + ")";
        switch (s->kind) {
          case AttrKind::Int:
          case AttrKind::Ints:
            if (word) throw Fail{c.loc, what + " is an integer list; attr_is compares it with one integer, not a word"};
            return;
          case AttrKind::Word: {
            if (!word) throw Fail{c.loc, what + " is a word, not an integer"};
            for (auto x : s->words)
              if (x == w.name) return;
            throw Fail{c.loc, "'" + w.name + "' is not a value of " + what};
          }
          case AttrKind::DType:
            if (!word) throw Fail{c.loc, what + " is a dtype, not an integer"};
            for (int d = 0; d < kNumDTypes; ++d)
              if (w.name == dtype_name(static_cast<DType>(d))) return;
            throw Fail{c.loc, "unknown dtype '" + w.name + "' for " + what};
          case AttrKind::Bool:
            if (!word || (w.name != "true" && w.name != "false")) throw Fail{c.loc, what + " is true or false"};
            return;
          default: return;
        }
      }
      default: return;
    }
  }

  // ---- result ----
  RNode result(const Node& n, bool is_root, int& id) {
    RNode r;
    r.kind = n.kind;
    r.id = id++;
    if (n.type.kind == TypeRef::Kind::TypeCapture) {
      auto [k, slot] = use(n.type.name, false, n.loc);
      if (k != CapKind::Type) throw Fail{n.loc, "$" + n.type.name + " is " + kind_word(k) + ", not a type"};
      r.type_source = TypeSource::TypeSlot, r.type_slot = slot;
    } else if (n.type.kind == TypeRef::Kind::OfCapture) {
      r.type_source = TypeSource::ValueSlot, r.type_slot = use(n.type.name, true, n.loc).second;
    } else if (n.type.kind == TypeRef::Kind::Dims) {
      auto [k, slot] = use(n.type.name, n.type.value_sigil, n.loc);
      if (k != CapKind::Value && k != CapKind::Type)
        throw Fail{n.loc, "dims takes %x or $T (whose dtype the type takes); $" + n.type.name + " is " + kind_word(k)};
      r.type_source = TypeSource::Dims, r.type_slot = slot, r.dims_cap = k;
      r.dims_count = int_expr(*n.type.count);
      bound_var(n.type.var, n.loc);
      r.dims_elem = int_expr(*n.type.elem);
      vars_.pop_back();
    } else if (is_root) {
      r.type_source = TypeSource::Root;
    }
    switch (n.kind) {
      case Node::Kind::Value:
        // The rewrite replaces every use of the root with the result: a result op reading the root
        // would read itself (ptir opt wrote `%m = add %m, ...`). A bare `=> %r` is the root itself.
        if (!is_root && n.name == r_.source->as_name)
          throw Fail{n.loc, "the result uses %" + n.name + ", the root's own name: the rewrite replaces every use of "
                            "the root with the result, so the result cannot read it (use the root's operands)"};
        r.slot = use(n.name, true, n.loc).second;
        return r;
      case Node::Kind::Splat:
        r.number = n.number;
        return r;
      case Node::Kind::Const: {
        const LitHelperSpec* h = find_lit_helper(n.helper);
        if (!h) throw Fail{n.loc, "unknown literal helper '" + n.helper + "'"};
        std::vector<Constraint::Arg> args;
        r.helper_exprs.resize(n.helper_args.size());
        for (size_t k = 0; k < n.helper_args.size(); ++k) {
          const IntExpr* e = k < n.helper_exprs.size() ? n.helper_exprs[k].get() : nullptr;
          if (k < h->params.size() && h->params[k] == Param::Int) {
            // An integer parameter (int_lit) takes an integer expression; a lone `$a` is one too.
            IntExpr cap;
            if (!e) cap.kind = IntExpr::Kind::Cap, cap.name = n.helper_args[k], cap.loc = n.loc;
            r.helper_exprs[k] = int_expr(e ? *e : cap);
            args.push_back({Constraint::Arg::Kind::Int, "", 0});
          } else {
            if (e) throw Fail{e->loc, "helper " + n.helper + " argument " + std::to_string(k + 1) + " is a '$' capture, not an integer expression"};
            args.push_back({Constraint::Arg::Kind::Capture, n.helper_args[k], 0});
          }
        }
        r.lit_helper = h;
        r.helper_args = resolve_args(h->params, args, "helper " + n.helper, n.loc, Site::Helper);
        return r;
      }
      case Node::Kind::Op: break;
    }
    r.op = n.op;
    check_arity(n);
    if (info(n.op).num_results != 1) throw Fail{n.loc, std::string(mnemonic(n.op)) + " has several results; a rule builds one-result ops"};
    if (has_trait(n.op, OpTrait::Regions) || has_trait(n.op, OpTrait::Effect) || n.op == OpCode::Constant)
      throw Fail{n.loc, std::string(mnemonic(n.op)) + " cannot be built by a rule"};
    for (const AttrExpr& a : n.attrs) r.attrs.push_back(result_attr(n.op, a));
    for (const AttrSpec& s : op_attr_schema(n.op)) {
      bool given = false;
      for (const AttrExpr& a : n.attrs) given = given || a.name == s.name;
      if (s.required && !given) throw Fail{n.loc, std::string(mnemonic(n.op)) + " needs attribute '" + std::string(s.name) + "'"};
    }
    for (const auto& o : n.operands) r.operands.push_back(result(*o, false, id));
    if (r.type_source == TypeSource::Context) infer_type(n, r);
    // compare's literal operands take the type of its other, typed operand (`from`), also when compare's
    // own type is given (the root, `: $T`): builder.plan reads n.from for them.
    if (n.op == OpCode::Compare && r.from < 0)
      for (int k = 0; k < static_cast<int>(r.operands.size()) && r.from < 0; ++k)
        if (r.operands[k].kind != Node::Kind::Splat && r.operands[k].kind != Node::Kind::Const) r.from = k;
        else if (r.operands[k].type_source != TypeSource::Context) r.from = k;
    if (n.op == OpCode::Compare && r.from < 0)
      throw Fail{n.loc, "a literal operand of compare needs its type: write ': type(%x)' or ': $T'"};
    // Literal operands take their type from their parent.
    for (RNode& o : r.operands)
      if ((o.kind == Node::Kind::Splat || o.kind == Node::Kind::Const) && o.type_source == TypeSource::Context &&
          !is_elementwise_typed(n.op))
        throw Fail{n.loc, "a literal operand of " + std::string(mnemonic(n.op)) + " needs its type: write ': type(%x)' or ': $T'"};
    return r;
  }

  void infer_type(const Node& n, RNode& r) {
    auto typed = [](const RNode& o) { return o.kind != Node::Kind::Splat && o.kind != Node::Kind::Const; };
    if (is_elementwise_typed(n.op)) {
      // select's type comes from a branch; compare's shape from either operand.
      const int first = n.op == OpCode::Select ? 1 : 0;
      for (int k = first; k < static_cast<int>(r.operands.size()); ++k)
        if (typed(r.operands[k]) || r.operands[k].type_source != TypeSource::Context) {
          r.type_source = TypeSource::Elementwise, r.from = k;
          return;
        }
    } else if (n.op == OpCode::Transpose && typed(r.operands[0])) {
      r.type_source = TypeSource::Transpose;
      return;
    }
    throw Fail{n.loc, "cannot derive the result type of " + std::string(mnemonic(n.op)) + ": write ': type(%x)' or ': $T'"};
  }

  RNode::RAttr result_attr(OpCode op, const AttrExpr& a) {
    const AttrSpec& s = attr_spec(op, a);
    RNode::RAttr r{a.name, a.kind, s.kind, -1, a.ints, a.word, nullptr, {}};
    if (a.kind == AttrExpr::Kind::Capture) {
      auto [k, slot] = use(a.capture, false, a.loc);
      if (k != CapKind::Attr) throw Fail{a.loc, "$" + a.capture + " is " + kind_word(k) + ", not an attribute"};
      role(a.capture, op, s, a.loc);
      r.slot = slot;
    } else if (a.kind == AttrExpr::Kind::List) {
      if (s.kind != AttrKind::Ints && s.kind != AttrKind::Int)
        throw Fail{a.loc, "attribute '" + a.name + "' of " + std::string(mnemonic(op)) + " does not take integers"};
      r.count = int_expr(*a.count);
      bound_var(a.var, a.loc);
      r.elem = int_expr(*a.elem);
      vars_.pop_back();
    } else if (a.kind == AttrExpr::Kind::WithAt) {
      if (s.kind != AttrKind::Ints) throw Fail{a.loc, "attribute '" + a.name + "' of " + std::string(mnemonic(op)) + " is not an integer list"};
      auto [k, slot] = use(a.capture, false, a.loc);
      if (k != CapKind::Attr) throw Fail{a.loc, "$" + a.capture + " is " + kind_word(k) + ", not an attribute"};
      // The list keeps its role: with_at of slice starts gives slice starts.
      role(a.capture, op, s, a.loc);
      r.slot = slot;
      r.count = int_expr(*a.count);
      r.elem = int_expr(*a.elem);
    } else if (a.kind == AttrExpr::Kind::Call) {
      const AttrHelperSpec* h = find_attr_helper(a.capture);
      if (!h) throw Fail{a.loc, "unknown attribute helper '" + a.capture + "'"};
      if (s.kind != AttrKind::Ints && s.kind != AttrKind::Int) throw Fail{a.loc, "helper results are integer lists"};
      std::vector<Constraint::Arg> args;
      for (const std::string& x : a.args) args.push_back({Constraint::Arg::Kind::Capture, x, 0});
      r.helper = h;
      r.args = resolve_args(h->params, args, "helper " + a.capture, a.loc, Site::Helper, h->roles);
      if (h->result_role != s.role)
        throw Fail{a.loc, "helper " + a.capture + " gives " + attr_role_name(h->result_role) + ", and " +
                              std::string(mnemonic(op)) + " " + a.name + " is " + attr_role_name(s.role)};
    } else {
      check_attr_constant(op, s, a);
    }
    return r;
  }

  const Rule& r_;
  std::map<std::string, std::pair<CapKind, int>> caps_;
  std::map<std::string, std::pair<AttrRole, std::string>> roles_;  ///< attribute capture -> role, first use
  std::map<std::string, std::pair<OpCode, const AttrSpec*>> attr_specs_;  ///< attribute capture -> its first use
  std::map<std::string, OpCode> value_ops_;  ///< `as %r` of an op node -> that op
  int counts_[4] = {0, 0, 0, 0};
  int swaps_ = 0;
  std::vector<std::string> vars_;  ///< integer variables in scope (`all i < ...`, `[i < ...]`), outermost first
};

}  // namespace

std::shared_ptr<const CompiledRule> compile_rule(std::shared_ptr<const RuleFile> file, size_t index, RuleError* err) {
  const Rule& r = file->rules[index];
  auto out = std::make_shared<CompiledRule>();
  out->file = file;
  out->rule = &r;
  try {
    Compiler(r).run(*out);
  } catch (const Fail& f) {
    *err = RuleError{file->path, f.loc, "rule " + r.name + ": " + f.message};
    return nullptr;
  }
  return out;
}

std::optional<RuleError> check_rule_file(const RuleFile& f) {
  // Compiling needs shared ownership; a copy-free alias of `f` is enough here.
  std::shared_ptr<const RuleFile> alias(std::shared_ptr<const RuleFile>(), &f);
  std::set<std::string> names;
  std::vector<RuleError> errors;  // every rule's first error, in file order
  for (size_t k = 0; k < f.rules.size(); ++k) {
    if (!names.insert(f.rules[k].name).second) {
      errors.push_back(RuleError{f.path, f.rules[k].loc, "rule " + f.rules[k].name + " is defined twice", "", {}});
      continue;
    }
    RuleError err;
    if (!compile_rule(alias, k, &err)) errors.push_back(std::move(err));
  }
  if (errors.empty()) return std::nullopt;
  RuleError first = std::move(errors[0]);
  for (size_t k = 1; k < errors.size(); ++k) first.more.push_back(std::move(errors[k]));
  return first;
}

std::variant<RuleFile, RuleError> load_rule_text(std::string_view text, const std::string& path) {
  auto parsed = parse_rule_text(text, path);
  if (auto* e = std::get_if<RuleError>(&parsed)) return *e;
  // A rule whose result is its root's own `as` name rewrites the root to itself: the driver replaced
  // the root's uses with the root and erased it (ptir opt wrote `return %n` with %n gone). Templates
  // and the prover's source-only rules use that form on purpose, so it is refused here, for rules only.
  for (const Rule& r : std::get<RuleFile>(parsed).rules)
    if (r.source && r.result && r.result->kind == Node::Kind::Value && !r.source->as_name.empty() &&
        r.result->name == r.source->as_name) {
      RuleError err{path, r.result->loc, "rule " + r.name + ": the result is %" + r.result->name +
                                             ", the root itself: a rule must rewrite its root to another value"};
      attach_source_lines(err, text);
      return err;
    }
  if (auto err = check_rule_file(std::get<RuleFile>(parsed))) {
    attach_source_lines(*err, text);
    return *err;
  }
  return parsed;
}

std::variant<RuleFile, RuleError> load_template_text(std::string_view dag, const std::string& path) {
  const std::string text = "rule t : " + std::string(dag) + " => %x";
  auto parsed = parse_rule_text(text, path);
  if (auto* e = std::get_if<RuleError>(&parsed)) return *e;
  RuleFile& f = std::get<RuleFile>(parsed);
  if (f.rules.size() != 1) return RuleError{path, {1, 1}, "a template is one source DAG, not several rules"};
  Rule& r = f.rules[0];
  // The result is the root itself (bound with `as` unless the DAG already names it), so the check
  // does not depend on which captures the template has or their types.
  if (r.source->kind == Node::Kind::Op && r.source->as_name.empty()) r.source->as_name = "template_root";
  if (r.source->kind == Node::Kind::Op) {
    r.result = std::make_unique<Node>();
    r.result->kind = Node::Kind::Value;
    r.result->name = r.source->as_name;
    r.result->loc = r.source->loc;
  }
  if (auto err = check_rule_file(f)) {
    attach_source_lines(*err, text);
    return *err;
  }
  return parsed;
}

std::variant<RuleFile, RuleError> load_rule_file(const std::string& path) {
  // A directory opens as an empty stream on Linux: it would load as a file with no rules.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return RuleError{path, {0, 0}, "cannot read the rule file (a directory)"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return RuleError{path, {0, 0}, "cannot read the rule file"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_rule_text(ss.str(), path);
}

}  // namespace ptir::rules
