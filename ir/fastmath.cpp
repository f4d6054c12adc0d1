// Fast-math flag names and the list of ops they govern.
#include "ir/fastmath.h"

#include <vector>

#include "ir/program.h"

namespace ptir {

const char* fastmath_flag_name(FastMathFlag f) {
  switch (f) {
    case FastMathFlag::NNaN: return "nnan";
    case FastMathFlag::NInf: return "ninf";
    case FastMathFlag::NSZ: return "nsz";
    case FastMathFlag::Reassoc: return "reassoc";
  }
  return "?";
}

std::optional<FastMathFlag> parse_fastmath_flag(std::string_view s) {
  for (int k = 0; k < kNumFastMathFlags; ++k)
    if (s == fastmath_flag_name(static_cast<FastMathFlag>(k))) return static_cast<FastMathFlag>(k);
  return std::nullopt;
}

std::string fastmath_list(FastMath fm) {
  std::string s;
  for (int k = 0; k < kNumFastMathFlags; ++k) {
    if (!fm.has(static_cast<FastMathFlag>(k))) continue;
    if (!s.empty()) s += ", ";
    s += fastmath_flag_name(static_cast<FastMathFlag>(k));
  }
  return s;
}

bool fastmath_governs(OpCode op) {
  switch (op) {
    // Float arithmetic: elementwise math, compare, and the folds (reductions, dot, windows, segments,
    // scatter combines).
    case OpCode::Neg:
    case OpCode::Abs:
    case OpCode::Exp:
    case OpCode::Log:
    case OpCode::Tanh:
    case OpCode::Erf:
    case OpCode::Rsqrt:
    case OpCode::Reciprocal:
    case OpCode::Sqrt:
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Maximum:
    case OpCode::Minimum:
    case OpCode::Compare:
    case OpCode::DotGeneral:
    case OpCode::ReduceSum:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin:
    case OpCode::ReduceWindow:
    case OpCode::SegmentReduce:
    case OpCode::ScatterAdd:
    case OpCode::ScatterReduce:
      return true;
    // Data movement, selection, conversion, ordering, effects, opaque ops and region ops (the ops inside
    // a region are governed themselves).
    case OpCode::Constant:
    case OpCode::Select:
    case OpCode::Cast:
    case OpCode::StopGradient:
    case OpCode::Reshape:
    case OpCode::Transpose:
    case OpCode::BroadcastTo:
    case OpCode::Slice:
    case OpCode::Concat:
    case OpCode::Pad:
    case OpCode::Tile:
    case OpCode::Iota:
    case OpCode::Argmax:
    case OpCode::Take:
    case OpCode::Gather:
    case OpCode::DynamicSlice:
    case OpCode::DynamicUpdateSlice:
    case OpCode::ExtractPatches:
    case OpCode::TopK:
    case OpCode::Cond:
    case OpCode::While:
    case OpCode::Scan:
    case OpCode::RngUniform:
    case OpCode::RngNormal:
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize:
    case OpCode::CustomCall:
    case OpCode::Return:
      return false;
  }
  return false;
}

FastMath Program::fastmath_of(BodyId b) const {
  if (b >= bodies_.size()) return {};
  if (!bodies_[b].is_region) return bodies_[b].fastmath;
  // users[r]: the bodies holding an instruction that names region r.
  std::vector<std::vector<BodyId>> users(bodies_.size());
  for (BodyId u = 0; u < bodies_.size(); ++u)
    for_each_inst(u, [&](InstId i) {
      for (const Attr& a : attrs_of(i).attrs)
        if (a.value.kind == AttrKind::Region && !a.value.ints.empty() && a.value.ints[0] >= 0 &&
            static_cast<uint64_t>(a.value.ints[0]) < bodies_.size())
          users[static_cast<size_t>(a.value.ints[0])].push_back(u);
    });
  // The flags every function reaching b has in common; a region reached by no function has none.
  FastMath all{0xF};
  bool reached = false;
  std::vector<bool> seen(bodies_.size(), false);
  std::vector<BodyId> work{b};
  seen[b] = true;
  while (!work.empty()) {
    const BodyId r = work.back();
    work.pop_back();
    for (BodyId u : users[r]) {
      if (!bodies_[u].is_region) {
        all = all & bodies_[u].fastmath;
        reached = true;
      } else if (!seen[u]) {
        seen[u] = true;
        work.push_back(u);
      }
    }
  }
  return reached ? all : FastMath{};
}

}  // namespace ptir
