// DOT pictures through boost::write_graphviz. Each node carries its GraphViz attributes in a small map
// that the vertex writer prints.
#include "verify/dot.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <map>
#include <sstream>

#include "ir/text.h"
#include "verify/report.h"

namespace ptir::verify {
namespace {

using Attrs = std::map<std::string, std::string>;
struct Node {
  Attrs a;
};
struct Edge {
  std::string label;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Node, Edge>;
using Vertex = Graph::vertex_descriptor;

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

void write_attrs(std::ostream& os, const Attrs& a) {
  os << "[";
  bool first = true;
  for (const auto& [k, v] : a) {
    os << (first ? "" : ", ") << k << "=\"" << escape(v) << "\"";
    first = false;
  }
  os << "]";
}

/// A short text of an op's attributes: perm[1, 0] dir[lt] then[^t] ...
std::string attr_text(const AttrSet& s) {
  std::string o;
  for (const Attr& a : s.attrs) {
    o += " " + a.name + "[";
    const AttrValue& v = a.value;
    switch (v.kind) {
      case AttrKind::Ints:
      case AttrKind::Int:
        for (size_t k = 0; k < v.ints.size(); ++k) o += (k ? ", " : "") + std::to_string(v.ints[k]);
        break;
      case AttrKind::Bool: o += v.ints.empty() || v.ints[0] ? "true" : "false"; break;
      case AttrKind::DType: o += v.ints.empty() ? "?" : dtype_name(static_cast<DType>(v.ints[0])); break;
      case AttrKind::Region: o += "^" + v.text; break;
      case AttrKind::Word: o += v.text; break;
      case AttrKind::String: o += "\"" + v.text + "\""; break;
      case AttrKind::Literal:
      case AttrKind::Scalar: o += v.lit.size() <= 8 ? print_dense(v.lit) : "..."; break;
    }
    o += "]";
  }
  return o;
}

std::string value_label(const Program& p, ValueId v) {
  std::string_view n = p.name(v);
  return n.empty() ? "%" + std::to_string(v) : "%" + std::string(n);
}

/// Adds body b's instructions to g; `inputs` are the nodes of its parameters. Returns the nodes whose
/// values the return reads, one per result.
std::vector<Vertex> add_body(Graph& g, const Program& p, BodyId b, const std::vector<Vertex>& inputs,
                             const std::string& fill) {
  std::map<ValueId, Vertex> def;
  const Body& body = p.body(b);
  for (size_t k = 0; k < body.params.size() && k < inputs.size(); ++k) def[body.params[k]] = inputs[k];
  std::vector<Vertex> rets;
  auto source_of = [&](ValueId v) -> Vertex {
    auto it = def.find(v);
    if (it != def.end()) return it->second;
    Vertex lit = boost::add_vertex(g);  // an inline literal
    const Tensor* t = p.constant_of(v);
    g[lit].a = {{"shape", "note"}, {"label", t && t->size() <= 8 ? print_literal(*t) : to_string(p.type_of(v))}};
    def[v] = lit;
    return lit;
  };
  p.for_each_inst(b, [&](InstId i) {
    std::vector<Vertex> ops;
    for (uint32_t k = 0; k < p.num_operands(i); ++k) ops.push_back(source_of(p.operand(i, k)));
    if (p.op(i) == OpCode::Return) {
      rets = ops;
      return;
    }
    Vertex n = boost::add_vertex(g);
    std::string lhs;
    for (uint32_t r = 0; r < p.num_results(i); ++r) lhs += (r ? ", " : "") + value_label(p, p.result(i, r));
    std::string types;
    for (uint32_t r = 0; r < p.num_results(i); ++r) types += (r ? ", " : "") + to_string(p.type_of(p.result(i, r)));
    g[n].a = {{"shape", "box"}, {"style", "rounded,filled"}, {"fillcolor", fill},
              {"label", lhs + " = " + std::string(mnemonic(p.op(i))) + attr_text(p.attrs_of(i)) + "\n" + types}};
    for (uint32_t r = 0; r < p.num_results(i); ++r) def[p.result(i, r)] = n;
    for (size_t k = 0; k < ops.size(); ++k) {
      auto e = boost::add_edge(ops[k], n, g).first;
      if (ops.size() > 1) g[e].label = std::to_string(k);
    }
  });
  return rets;
}

std::string write(const Graph& g, const std::string& caption) {
  std::ostringstream os;
  boost::write_graphviz(
      os, g, [&](std::ostream& o, Vertex v) { write_attrs(o, g[v].a); },
      [&](std::ostream& o, Graph::edge_descriptor e) {
        if (!g[e].label.empty()) o << "[label=\"" << escape(g[e].label) << "\"]";
      },
      [&](std::ostream& o) {
        o << "rankdir=TB;\nnode [fontname=\"monospace\", fontsize=10];\n";
        if (!caption.empty()) o << "label=\"" << escape(caption) << "\";\nlabelloc=t;\n";
      });
  return os.str();
}

std::vector<Vertex> add_inputs(Graph& g, const Program& p, BodyId b, const Refuted* cex) {
  std::vector<Vertex> in;
  const Body& body = p.body(b);
  for (size_t k = 0; k < body.params.size(); ++k) {
    Vertex v = boost::add_vertex(g);
    std::string label = "input " + value_label(p, body.params[k]) + "\n" + to_string(p.type_of(body.params[k]));
    if (cex && k < cex->inputs.size()) label += "\n= " + print_dense(cex->inputs[k]);
    g[v].a = {{"shape", "invhouse"}, {"style", "filled"}, {"fillcolor", cex ? "gold" : "lightgrey"}, {"label", label}};
    in.push_back(v);
  }
  return in;
}

void add_results(Graph& g, const std::vector<Vertex>& rets, const char* side, const std::vector<Tensor>* values,
                 int differing, int64_t element) {
  for (size_t k = 0; k < rets.size(); ++k) {
    Vertex v = boost::add_vertex(g);
    std::string label = std::string(side) + " result " + std::to_string(k);
    if (values && k < values->size()) label += "\n= " + print_dense((*values)[k]);
    const bool bad = static_cast<int>(k) == differing;
    if (bad) label += "\ndiffers at " + element_index((*values)[k].type, element);
    g[v].a = {{"shape", "house"}, {"style", "filled"}, {"fillcolor", bad ? "red" : "palegreen"}, {"label", label}};
    if (bad) g[v].a["penwidth"] = "3";
    boost::add_edge(rets[k], v, g);
  }
}

}  // namespace

std::string program_dot(const Program& p, BodyId b) {
  Graph g;
  const std::vector<Vertex> in = add_inputs(g, p, b, nullptr);
  const std::vector<Vertex> rets = add_body(g, p, b, in, "lightblue");
  add_results(g, rets, "", nullptr, -1, -1);
  return write(g, (p.body(b).is_region ? "^" : "@") + p.body(b).name);
}

std::string pair_dot(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const Refuted* cex,
                     const std::string& caption) {
  Graph g;
  const std::vector<Vertex> in = add_inputs(g, src, sb, cex);
  const std::vector<Vertex> sr = add_body(g, src, sb, in, "lightblue");
  const std::vector<Vertex> tr = add_body(g, tgt, tb, in, "lightyellow");
  const bool ran = cex && cex->tgt.status == RunStatus::Ok;
  add_results(g, sr, "source", cex ? &cex->src.results : nullptr, cex ? cex->result : -1, cex ? cex->element : -1);
  add_results(g, tr, "target", ran ? &cex->tgt.results : nullptr, ran ? cex->result : -1, cex ? cex->element : -1);
  return write(g, caption);
}

}  // namespace ptir::verify
