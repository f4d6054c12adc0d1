// The permutation-word premise of the rank argument (docs/verification.md "The rank bound"): for every
// capture, the permutations on the way from each of its occurrences to the root form a word, and all
// words of a capture must be equal as words (after the identities the positive constraints state and
// free reduction). Equal maps on the evaluated ranks are not enough: p·p = 1 for every permutation of
// two axes, not of three.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "rewriter/rules/natives.h"
#include "verify/allshape/internal.h"
#include "verify/allshape/native_specs.h"

namespace ptir::allshape::detail {

using rules::Node;

/// The words (leaf to root) of every capture occurrence: which permutations, broadcasts, reductions and
/// reshapes move its axes on the way to the root.
/// Per-axis facts are words too: a captured type (`: $T`, `: type(%x)`) is read in its node's output
/// axes, a captured per-axis attribute (slice starts, tile repeats, reduction axes, ...) in its node's
/// axes; both then travel up to the root like a value. Keys: "%x" values and `type(%x)`, "$T" types,
/// "$s" attributes.
namespace {
/// A broadcast_to's or reshape's result type as the rule writes it, for its letter: `: $T`, `:
/// type(%x)`, else a name of its own (another node's type is not known to be the same).
std::string result_type_name(const Node& n, int& anon) {
  if (!n.type_capture.empty()) return "(:$" + n.type_capture + ")";
  if (n.type.kind == rules::TypeRef::Kind::TypeCapture) return "(:$" + n.type.name + ")";
  if (n.type.kind == rules::TypeRef::Kind::OfCapture) return "(:type(%" + n.type.name + "))";
  return "(:#" + std::to_string(anon++) + ")";
}

/// How a dot_general list is written, for its side's letter: a capture, none, a literal, a helper.
std::string list_name(const rules::AttrExpr* a) {
  if (!a) return "none";
  switch (a->kind) {
    case rules::AttrExpr::Kind::Capture: return "$" + a->capture;
    case rules::AttrExpr::Kind::Word: return a->word;
    case rules::AttrExpr::Kind::Ints: {
      std::string s = "[";
      for (int64_t x : a->ints) s += std::to_string(x) + ",";
      return s + "]";
    }
    case rules::AttrExpr::Kind::Call: {
      std::string s = a->capture + "(";
      for (const std::string& x : a->args) s += "$" + x + ",";
      return s + ")";
    }
    case rules::AttrExpr::Kind::List: return "[list]";  // outside the fragment (fragment.cpp)
    case rules::AttrExpr::Kind::WithAt: return "with_at($" + a->capture + ")";
  }
  return "?";
}
const rules::AttrExpr* attr_of(const Node& n, const char* name) {
  for (const auto& a : n.attrs)
    if (a.name == name) return &a;
  return nullptr;
}
bool is_permute_axes(const rules::AttrExpr* a) {
  if (!a || a->kind != rules::AttrExpr::Kind::Call || a->args.size() != 2) return false;
  const AttrHelperSpec* h = attr_helper_spec_named(a->capture);
  return h && h->word == PermWord::PermuteAxes;
}
}  // namespace

/// A dot_general moves its operands' axes to the output and the contraction coordinates: each side has
/// one opaque letter, named by the lists of BOTH sides as written (the rhs free axes come after the
/// lhs's). A side whose lists are permute_axes($p, $b) and permute_axes($p, $c) (or no batch list and
/// permute_axes($p, $c)) under keeps_free_order($p, $b, $c) is the letter p followed by the letter of
/// the side with lists $b, $c: reading x with the lists mapped through p is reading transpose(x, p)
/// with $b, $c, exactly when p keeps the free axes in order (docs/verification.md, the premise table).
/// Its lists are per-axis facts read in its operand's axes: their words start with the side's letter.
static void dot_words(const Node& n, std::vector<std::vector<Tok>>& path,
                      std::map<std::string, std::vector<std::vector<Tok>>>& out, int& anon,
                      const FreeOrderFacts* free_order) {
  auto up = [&](const std::vector<Tok>& own) {
    std::vector<Tok> w = own;
    for (size_t k = path.size(); k-- > 0;) w.insert(w.end(), path[k].begin(), path[k].end());
    return w;
  };
  static const char* kB[2] = {"batch_lhs", "batch_rhs"};
  static const char* kC[2] = {"contract_lhs", "contract_rhs"};
  std::string perm[2], names[2];
  std::vector<std::string> facts[2];  // the captures each side's lists read
  for (int s = 0; s < 2; ++s) {
    const rules::AttrExpr *b = attr_of(n, kB[s]), *c = attr_of(n, kC[s]);
    bool split = is_permute_axes(c) && (!b || (is_permute_axes(b) && b->args[0] == c->args[0]));
    if (split && free_order) {
      const std::string p = c->args[0], cb = b ? b->args[1] : c->args[1];
      split = free_order->count({p, cb, c->args[1]}) > 0;
    } else {
      split = false;
    }
    if (split) {
      perm[s] = c->args[0];
      names[s] = (b ? "$" + b->args[1] : std::string("none")) + ";$" + c->args[1];
      if (b) facts[s].push_back(b->args[1]);
      facts[s].push_back(c->args[1]);
    } else {
      names[s] = list_name(b) + ";" + list_name(c);
      for (const rules::AttrExpr* a : {b, c}) {
        if (!a) continue;
        if (a->kind == rules::AttrExpr::Kind::Capture) facts[s].push_back(a->capture);
        if (a->kind == rules::AttrExpr::Kind::Call) facts[s].insert(facts[s].end(), a->args.begin(), a->args.end());
      }
    }
  }
  const std::string both = "(" + names[0] + "|" + names[1] + ")";
  for (int s = 0; s < 2; ++s) {
    const Tok letter{std::string(s == 0 ? "#dot.lhs" : "#dot.rhs") + both, false};
    for (const std::string& x : facts[s]) out["$" + x].push_back(up({letter}));
    std::vector<Tok> here;
    if (!perm[s].empty()) here.push_back({perm[s], false});
    here.push_back(letter);
    path.push_back(here);
    if (s < static_cast<int>(n.operands.size())) collect_words(*n.operands[s], path, out, anon, free_order);
    path.pop_back();
  }
}

void collect_words(const Node& n, std::vector<std::vector<Tok>>& path, std::map<std::string, std::vector<std::vector<Tok>>>& out,
                   int& anon, const FreeOrderFacts* free_order) {
  auto up = [&](const std::vector<Tok>& own) {
    std::vector<Tok> w = own;
    for (size_t k = path.size(); k-- > 0;) w.insert(w.end(), path[k].begin(), path[k].end());
    return w;
  };
  if (!n.type_capture.empty()) out["$" + n.type_capture].push_back(up({}));
  if (n.type.kind == rules::TypeRef::Kind::TypeCapture) out["$" + n.type.name].push_back(up({}));
  if (n.type.kind == rules::TypeRef::Kind::OfCapture) out["%" + n.type.name].push_back(up({}));
  // A value bound with `as %r` is read here, and again wherever `%r` is used: one more capture.
  if (!n.as_name.empty()) out["%" + n.as_name].push_back(up({}));
  if (n.kind == Node::Kind::Value) {
    out["%" + n.name].push_back(up({}));
    return;
  }
  // A literal `const($c)` (not a splat: its elements differ) is read in its node's axes like an
  // input; a helper in the result reads the literal captures it is given there too.
  if (n.kind == Node::Kind::Const) {
    if (n.helper.empty()) out["$" + n.name].push_back(up({}));
    for (const std::string& x : n.helper_args) out["$" + x].push_back(up({}));
    return;
  }
  if (n.kind != Node::Kind::Op) return;
  if (n.op == OpCode::DotGeneral) return dot_words(n, path, out, anon, free_order);
  std::vector<Tok> here;
  switch (n.op) {
    case OpCode::Transpose: {
      bool found = false;
      for (const auto& a : n.attrs) {
        if (a.name != "perm") continue;
        found = true;
        // A helper's word comes from its all-shape spec (native_specs.cpp).
        const AttrHelperSpec* h =
            a.kind == rules::AttrExpr::Kind::Call ? attr_helper_spec_named(a.capture) : nullptr;
        const PermWord w = h ? h->word : PermWord::Opaque;
        if (a.kind == rules::AttrExpr::Kind::Capture) here.push_back({a.capture, false});
        else if (w == PermWord::Compose && a.args.size() == 2)
          here = {{a.args[0], false}, {a.args[1], false}};  // transposing by p, then by q
        else if (w == PermWord::Inverse && a.args.size() == 1)
          here = {{a.args[0], true}};
        else here.push_back({"#perm" + std::to_string(anon++), false});
      }
      if (!found) here.push_back({"#perm" + std::to_string(anon++), false});
      break;
    }
    // Opaque letters are named by what fixes their map on axes: broadcast_to and reshape by their
    // result type (two of them from operands of one shape to one type move axes alike), a reduction by
    // its axes and keepdims. Unnamed, a reduction over $a and one over $b were one letter, and
    // same_shape(%x, %y) between their operands passed the one-frame check (a red team's reading).
    case OpCode::BroadcastTo: here.push_back({"#broadcast" + result_type_name(n, anon), false, &n}); break;
    case OpCode::Reshape: here.push_back({"#reshape" + result_type_name(n, anon), false, &n}); break;
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
      // Axes or keepdims not written: the source matches any, so the letter is its own (two such
      // reductions named alike passed the one-frame check: a red team, 2026-12-07).
      if (!attr_of(n, "axes") || !attr_of(n, "keepdims"))
        here.push_back({"#reduce(#" + std::to_string(anon++) + ")", false, &n});
      else
        here.push_back({"#reduce(" + list_name(attr_of(n, "axes")) + ";" + list_name(attr_of(n, "keepdims")) + ")", false, &n});
      break;
    default: break;
  }
  // Captured integer attributes other than a permutation: read in the node's operand axes, which the
  // node's own axis move (if any) then carries to its output. Helper calls read their arguments there.
  for (const auto& a : n.attrs) {
    const AttrSpec* spec = find_attr_spec(n.op, a.name);
    if (!spec || spec->role == AttrRole::Permutation || spec->role == AttrRole::Other || spec->role == AttrRole::Count) continue;
    if (a.kind == rules::AttrExpr::Kind::Capture) out["$" + a.capture].push_back(up(here));
    // A literal one (a concat's {axis = 0}) names axes of its node's frame just as a capture does: the
    // same literal must reach the root through one word ("T^60(concat(%x, %y) {axis = 0}) =>
    // concat(T^60(%x), T^60(%y)) {axis = 0}" was PROVED FOR ALL SHAPES, and is ill-typed at rank 7).
    if (a.kind == rules::AttrExpr::Kind::Ints) {
      std::string key = "the literal " + a.name + " [";
      for (size_t k = 0; k < a.ints.size(); ++k) key += (k ? ", " : "") + std::to_string(a.ints[k]);
      out[key + "]"].push_back(up(here));
    }
    if (a.kind == rules::AttrExpr::Kind::Call)
      for (const std::string& x : a.args) out["$" + x].push_back(up(here));
  }
  path.push_back(here);
  for (const auto& o : n.operands) collect_words(*o, path, out, anon, free_order);
  path.pop_back();
}

/// "" when every capture is read through one permutation word on both sides (after the identities the
/// constraints state and free reduction), so its axes map to the same output axes at EVERY rank; else
/// why not. Checking the maps on evaluated ranks alone would miss words equal only in small symmetric
/// groups (p·p = 1 holds for every permutation of two axes, not of three).
namespace {
/// Whether the node an opaque letter stands for has the type or value `key` ("$T" or "%b"): `: $T`,
/// `as %b`, `: type(%b)`.
bool node_is(const Node& n, const std::string& key) {
  const std::string name = key.substr(1);
  if (key[0] == '$') return n.type_capture == name || (n.type.kind == rules::TypeRef::Kind::TypeCapture && n.type.name == name);
  return n.as_name == name || (n.type.kind == rules::TypeRef::Kind::OfCapture && n.type.name == name);
}
/// `wa` is the word of an operand of a broadcast_to, reshape or reduction node N, `wb` the word of N
/// itself, and N is `key_b`: wa = [N's letter] ++ wb.
bool identity_step(const std::vector<Tok>& wa, const std::vector<Tok>& wb, const std::string& key_b) {
  if (wa.size() != wb.size() + 1 || !wa[0].node || wa[0].inv || !node_is(*wa[0].node, key_b)) return false;
  return std::equal(wb.begin(), wb.end(), wa.begin() + 1);
}
}  // namespace

std::string perm_words_premise(const rules::Rule& r, const RuleFacts& f, bool every_capture) {
  std::map<std::string, std::vector<std::vector<Tok>>> words;
  std::vector<std::vector<Tok>> path;
  int anon = 0;
  FreeOrderFacts free_order;
  for (const rules::Constraint& c : r.where) {
    const PredicateSpec* s = c.negated ? nullptr : predicate_spec_named(c.pred);
    if (s && s->identity == PermIdentity::FreeOrder && c.args.size() == 3)
      free_order.insert({c.args[0].name, c.args[1].name, c.args[2].name});
  }
  collect_words(*r.source, path, words, anon, &free_order);
  collect_words(*r.result, path, words, anon, &free_order);
  // Identities from positive constraints: p = 1; q = p^-1 (the larger name is rewritten).
  std::map<std::string, Tok> subst;
  for (const rules::Constraint& c : r.where) {
    if (c.negated) continue;
    const PredicateSpec* s = predicate_spec_named(c.pred);
    const PermIdentity id = s ? s->identity : PermIdentity::None;
    if (id == PermIdentity::Identity && c.args.size() == 1) subst[c.args[0].name] = Tok{"#id", false};
    if (id == PermIdentity::Inverse && c.args.size() == 2) {
      const std::string a = std::min(c.args[0].name, c.args[1].name), b = std::max(c.args[0].name, c.args[1].name);
      if (a != b && !subst.count(b)) subst[b] = Tok{a, true};
    }
  }
  auto reduce = [&](const std::vector<Tok>& w) {
    std::vector<Tok> out;
    for (Tok t : w) {
      for (int guard = 0; guard < 8; ++guard) {  // follow substitutions (acyclic: larger -> smaller names)
        auto it = subst.find(t.name);
        if (it == subst.end()) break;
        t = Tok{it->second.name, it->second.inv != t.inv};
      }
      if (t.name == "#id") continue;
      if (!out.empty() && out.back().name == t.name && out.back().inv != t.inv && t.name[0] != '#') out.pop_back();
      else out.push_back(t);
    }
    return out;
  };
  // Runs of one letter are written as powers: p.p.p.p.p.p is p^6 (p^-1.p^-1 is p^-2).
  auto show = [](const std::vector<Tok>& w) {
    std::string s;
    for (size_t i = 0; i < w.size();) {
      size_t j = i;
      while (j < w.size() && w[j].name == w[i].name && w[j].inv == w[i].inv) ++j;
      const size_t n = j - i;
      s += (s.empty() ? "" : ".") + w[i].name;
      if (w[i].inv || n > 1) s += "^" + std::string(w[i].inv ? "-" : "") + std::to_string(n);
      i = j;
    }
    return s.empty() ? std::string("1") : s;
  };
  // A constraint relating per-axis facts (same_shape(%x, %y), same_type(%x, $T), axes_all_size(%x,
  // $a, 1), some_axis_size(%x, $a, 1)) reads all its arguments in one frame of axes: every argument
  // must reach the root through the same word. axes_all_size(%x, $a, 1) with {axes = $a} on a
  // reduction of T^60(%x) was PROVED FOR ALL SHAPES: $a named axes of %x in one place and of T^60(%x)
  // in the other, the same axes only while p^60 = 1 (ranks up to 6).
  for (const rules::Constraint& c : r.where) {
    const PredicateSpec* spec = predicate_spec_named(c.pred);
    if (!spec || !spec->one_frame) continue;
    std::string first;
    for (const auto& a : c.args) {
      if (a.kind != rules::Constraint::Arg::Kind::Value && a.kind != rules::Constraint::Arg::Kind::Capture) continue;
      const std::string key = (a.kind == rules::Constraint::Arg::Kind::Value ? "%" : "$") + a.name;
      auto it = words.find(key);
      if (it == words.end() || it->second.empty()) continue;
      if (key[0] == '%' && f.scalar_caps.count(a.name)) continue;
      if (first.empty()) {
        first = key;
        continue;
      }
      std::vector<Tok> w0 = reduce(words[first][0]), w1 = reduce(it->second[0]);
      // same_type / same_shape between a broadcast_to's, reshape's or reduction's operand and that
      // node itself makes the node the identity on axes (a broadcast or reshape to its own shape, a
      // reduction over no axis or over size-1 axes it keeps): the two are in one frame although the
      // operand's word has the node's letter first. Only that direct relation: until 2026-12-07 these
      // letters were dropped from any two words, and same_shape(%x, %y) between the operands of two
      // reductions over different axes passed (a red team's reading; the reductions are not identities).
      if ((c.pred == "same_type" || c.pred == "same_shape") && (identity_step(w0, w1, key) || identity_step(w1, w0, first)))
        continue;
      if (w0 != w1)
        return first + " and " + key + " are related by " + c.pred + " but reach the root through the permutation words " +
               show(w0) + " and " + show(w1) + ", which differ as words: the constraint may relate other axes at some "
               "rank (bounded only)";
    }
  }
  // A captured type (`: $T` twice, or `: type(%x)`) ties the dims of two nodes position by position: one
  // frame of axes, like same_type. No read of a type is evaluated, so P2 never sees it, and the rank
  // argument drops the same axes from both only when they reach the root through one word: `%x : $T`
  // under a dot_general and the dot's own `: $T` tie an lhs axis to the output axis at the same
  // position, a pairing the dropping of axes does not keep (its proof enumerated only dots without a
  // contracting dim at B = 1; an adversarial review, 2026-12-07). The letters equal types make
  // identities (broadcast_to, reshape, reductions) drop out as for same_type. With a transpose the
  // loop below compares every capture's words, these too.
  if (!every_capture) {
    std::set<std::string> typed;
    std::function<void(const Node&)> walk = [&](const Node& n) {
      if (!n.type_capture.empty()) typed.insert("$" + n.type_capture);
      if (n.type.kind == rules::TypeRef::Kind::TypeCapture) typed.insert("$" + n.type.name);
      if (n.type.kind == rules::TypeRef::Kind::OfCapture) typed.insert("%" + n.type.name);
      for (const auto& o : n.operands) walk(*o);
    };
    walk(*r.source);
    walk(*r.result);
    for (const std::string& cap : typed) {
      auto it = words.find(cap);
      if (it == words.end() || it->second.size() < 2) continue;
      if (cap[0] == '%' && f.scalar_caps.count(cap.substr(1))) continue;
      std::vector<Tok> w0 = reduce(it->second[0]);
      for (size_t k = 1; k < it->second.size(); ++k) {
        std::vector<Tok> wk = reduce(it->second[k]);
        // A node typed $T directly under a broadcast_to, reshape or reduction also typed $T: that node
        // is the identity on axes (as for same_type above).
        if (identity_step(wk, w0, cap) || identity_step(w0, wk, cap)) continue;
        if (wk != w0)
          return "the captured type " + (cap[0] == '%' ? "type(" + cap + ")" : cap) +
                 " ties nodes that reach the root through the words " + show(w0) + " and " + show(wk) +
                 ": it pairs axes of two frames, which dropping axes does not keep (bounded only)";
      }
    }
  }
  if (!every_capture) return "";
  for (const auto& [cap, ws] : words) {
    if (cap[0] == '%' && f.scalar_caps.count(cap.substr(1))) continue;  // a rank-0 capture has no axes to move
    const std::vector<Tok> first = reduce(ws[0]);
    for (size_t k = 1; k < ws.size(); ++k)
      if (reduce(ws[k]) != first)
        return cap + " is read through the permutation words " + show(first) + " and " + show(reduce(ws[k])) +
               ", which differ as words: its axes may move differently at some rank (bounded only)";
  }
  return "";
}

}  // namespace ptir::allshape::detail
