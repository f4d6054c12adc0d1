// The may-feed graph of a pattern set and its undeclared cycles (rewriter/rules/termination.h).
#include "rewriter/rules/termination.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <cmath>
#include <deque>

#include "rewriter/rules/rules.h"

namespace ptir::rules {
namespace {

/// Every op node of a DAG, root first.
void op_nodes(const Node& n, std::vector<const Node*>& out) {
  if (n.kind != Node::Kind::Op) return;
  out.push_back(&n);
  for (const auto& o : n.operands) op_nodes(*o, out);
}

bool same_number(const Number& a, const Number& b) {
  if (std::isnan(a.value) || std::isnan(b.value)) return std::isnan(a.value) && std::isnan(b.value);
  return a.value == b.value && std::signbit(a.value) == std::signbit(b.value);
}

/// False only when two attributes are both written as constants and differ.
bool attrs_unify(const Node& produced, const Node& pattern) {
  for (const AttrExpr& pa : produced.attrs) {
    if (pa.kind != AttrExpr::Kind::Ints && pa.kind != AttrExpr::Kind::Word) continue;
    for (const AttrExpr& ma : pattern.attrs) {
      if (ma.name != pa.name || ma.kind != pa.kind) continue;
      if (pa.kind == AttrExpr::Kind::Ints ? pa.ints != ma.ints : pa.word != ma.word) return false;
    }
  }
  return true;
}

/// Could the subtree a rule produces (`r`, from its result DAG) be matched by `m` (from a source DAG)?
/// Conservative: only a definite mismatch answers false.
bool unify(const Node& r, const Node& m) {
  if (r.kind == Node::Kind::Value || m.kind == Node::Kind::Value) return true;
  if (r.kind == Node::Kind::Op || m.kind == Node::Kind::Op) {
    if (r.kind != m.kind || r.op != m.op || r.operands.size() != m.operands.size()) return false;
    if (!attrs_unify(r, m)) return false;
    auto in_order = [&](bool swap) {
      for (size_t k = 0; k < r.operands.size(); ++k)
        if (!unify(*r.operands[swap ? 1 - k : k], *m.operands[k])) return false;
      return true;
    };
    const bool commutative = has_trait(m.op, OpTrait::Commutative) && m.operands.size() == 2;
    return in_order(false) || (commutative && in_order(true));
  }
  // Literals: a splat against a splat compares numbers; a computed literal (`const(...)`) may be anything.
  if (r.kind == Node::Kind::Splat && m.kind == Node::Kind::Splat) return same_number(r.number, m.number);
  return true;
}

bool consumes_op(const Pattern& p, OpCode op) {
  if (p.matches_any_op()) return true;
  const auto roots = p.roots();
  return std::find(roots.begin(), roots.end(), op) != roots.end();
}

/// The ops of every op node of a source DAG (the instructions a rule reads).
bool source_reads_op(const Rule& r, OpCode op) {
  std::vector<const Node*> nodes;
  op_nodes(*r.source, nodes);
  return std::any_of(nodes.begin(), nodes.end(), [&](const Node* n) { return n->op == op; });
}

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

/// A shortest cycle through `start` using only edges inside component `comp`.
std::vector<size_t> shortest_cycle(const Graph& g, const std::vector<int>& component, size_t start) {
  const int comp = component[start];
  std::vector<long> parent(boost::num_vertices(g), -1);
  std::deque<size_t> queue{start};
  while (!queue.empty()) {
    const size_t v = queue.front();
    queue.pop_front();
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const size_t w = boost::target(*e, g);
      if (component[w] != comp) continue;
      if (w == start) {
        std::vector<size_t> path{v};
        while (path.back() != start) path.push_back(static_cast<size_t>(parent[path.back()]));
        std::reverse(path.begin(), path.end());
        return path;
      }
      if (parent[w] != -1) continue;
      parent[w] = static_cast<long>(v);
      queue.push_back(w);
    }
  }
  return {};
}

}  // namespace

bool may_feed(const Pattern& producer, const Pattern& consumer) {
  const auto* rp = dynamic_cast<const RulePattern*>(&producer);
  const auto* rc = dynamic_cast<const RulePattern*>(&consumer);
  if (rp) {
    std::vector<const Node*> made;
    op_nodes(*rp->rule().result, made);
    for (const Node* r : made) {
      if (!rc) {
        if (consumes_op(consumer, r->op)) return true;
        continue;
      }
      std::vector<const Node*> reads;
      op_nodes(*rc->rule().source, reads);
      for (const Node* m : reads)
        if (unify(*r, *m)) return true;
    }
    return false;
  }
  for (OpCode op : producer.produces())
    if (rc ? source_reads_op(rc->rule(), op) : consumes_op(consumer, op)) return true;
  return false;
}

namespace {

/// The undeclared cycles as indices into `patterns` (see find_rule_cycles).
std::vector<std::vector<size_t>> cycle_indices(std::span<const Pattern* const> patterns) {
  const size_t n = patterns.size();
  Graph g(n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (may_feed(*patterns[a], *patterns[b])) boost::add_edge(a, b, g);
  std::vector<int> component(n);
  const int num =
      n ? boost::strong_components(g, boost::make_iterator_property_map(component.begin(),
                                                                         boost::get(boost::vertex_index, g)))
        : 0;
  // Per component: its size and its first unbounded member in `patterns` order (components are
  // visited in that order below, so the cycles come out sorted by it).
  std::vector<long> first_unbounded(num, -1);
  std::vector<int> size(num, 0);
  for (size_t v = 0; v < n; ++v) {
    ++size[component[v]];
    if (!patterns[v]->has_bounded_recursion() && first_unbounded[component[v]] == -1)
      first_unbounded[component[v]] = static_cast<long>(v);
  }
  std::vector<std::vector<size_t>> out;
  for (size_t v = 0; v < n; ++v) {
    const int c = component[v];
    if (first_unbounded[c] != static_cast<long>(v)) continue;
    if (size[c] == 1 && !boost::edge(v, v, g).second) continue;
    if (auto cycle = shortest_cycle(g, component, v); !cycle.empty()) out.push_back(std::move(cycle));
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> find_rule_cycles(std::span<const Pattern* const> patterns) {
  std::vector<std::vector<std::string>> out;
  for (const auto& cycle : cycle_indices(patterns)) {
    std::vector<std::string> names;
    for (size_t v : cycle) names.emplace_back(patterns[v]->debug_name());
    out.push_back(std::move(names));
  }
  return out;
}

std::string describe_rule_cycle(const std::vector<std::string>& cycle, bool through_cpp) {
  std::string s = through_cpp ? "patterns may cycle: " : "rules may cycle: ";
  for (const std::string& name : cycle) s += name + " -> ";
  s += cycle.empty() ? std::string("?") : cycle.front();
  // The hint in each author's spelling: rules say [bounded], C++ patterns set_has_bounded_recursion().
  return s + (through_cpp ? " (if each application shrinks the program: a rule declares it with [bounded], a C++ "
                            "pattern with set_has_bounded_recursion() in its constructor)"
                          : " (declare them bounded if each application shrinks the program)");
}

std::string termination_errors(std::span<const Pattern* const> patterns) {
  std::string s;
  for (const auto& cycle : cycle_indices(patterns)) {
    std::vector<std::string> names;
    bool cpp = false;
    for (size_t v : cycle) {
      names.emplace_back(patterns[v]->debug_name());
      if (!dynamic_cast<const RulePattern*>(patterns[v])) cpp = true;
    }
    // A rule's origin is FILE:LINE, which leads the line like every rule-file diagnostic.
    const Pattern& first = *patterns[cycle.front()];
    if (first.origin() != "C++") s += std::string(first.origin()) + ": ";
    const std::string msg = describe_rule_cycle(names, cpp);
    s += "error: " + msg + "\n";
  }
  return s;
}

}  // namespace ptir::rules
