// Pictures of programs and verdicts: GraphViz DOT written through Boost.Graph's write_graphviz.
#pragma once
#include <string>

#include "ir/program.h"
#include "verify/refine.h"

namespace ptir::verify {

/// Body `b` of `p` as a DOT digraph: parameters, instructions and results as nodes, operands as edges.
std::string program_dot(const Program& p, BodyId b);

/// Both sides of a checked pair in one picture, sharing the input nodes. With a refutation the inputs
/// carry their counterexample values, every result its source/target value, and the differing result
/// is highlighted in red; `caption` (e.g. the verdict line) labels the graph.
std::string pair_dot(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const Refuted* cex,
                     const std::string& caption);

}  // namespace ptir::verify
