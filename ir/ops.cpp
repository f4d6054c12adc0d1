// The op table facets that live in ir/: static info and the attribute schema.
#include "ir/ops.h"

#include <array>

namespace ptir {
namespace {
constexpr OpInfo kOpInfo[] = {
#define PTIR_OP(E, M, MIN, MAX, NRES, TR) {M, MIN, MAX, NRES, TR},
#include "ir/ops.def"
#undef PTIR_OP
};
static_assert(sizeof(kOpInfo) / sizeof(kOpInfo[0]) == kNumOps);

using K = AttrKind;
using R = AttrRole;
using D = AttrDefault;
constexpr std::string_view kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};
constexpr std::string_view kWinKinds[] = {"sum", "max", "min"};
constexpr std::string_view kSegKinds[] = {"sum", "max"};
constexpr std::string_view kScatterReduce[] = {"add", "max", "min", "replace"};

constexpr AttrSpec kNone[] = {{"", K::Int, false, {}}};  // placeholder; spans below exclude it
constexpr AttrSpec kConstant[] = {{"value", K::Literal, false, {}}};
constexpr AttrSpec kCompare[] = {{"dir", K::Word, true, kDirs}};
constexpr AttrSpec kShapeOpt[] = {{"shape", K::Ints, false, {}, R::PerAxis}};
constexpr AttrSpec kTranspose[] = {{"perm", K::Ints, true, {}, R::Permutation}};
constexpr AttrSpec kSlice[] = {{"starts", K::Ints, true, {}, R::PerAxis}};
constexpr AttrSpec kAxis[] = {{"axis", K::Int, true, {}, R::Axis}};
constexpr AttrSpec kPad[] = {{"low", K::Ints, true, {}, R::PerAxis},
                             {"high", K::Ints, true, {}, R::PerAxis},
                             {"interior", K::Ints, false, {}, R::PerAxis, D::Own},
                             {"value", K::Scalar, false, {}, R::Other, D::Zero}};
constexpr AttrSpec kTile[] = {{"repeats", K::Ints, true, {}, R::PerAxis}};
constexpr AttrSpec kDot[] = {{"batch_lhs", K::Ints, false, {}, R::AxisList, D::Own},
                             {"batch_rhs", K::Ints, false, {}, R::AxisList, D::Own},
                             {"contract_lhs", K::Ints, true, {}, R::AxisList},
                             {"contract_rhs", K::Ints, true, {}, R::AxisList},
                             {"accum", K::DType, false, {}, R::Other, D::Own}};
constexpr AttrSpec kReduce[] = {{"axes", K::Ints, true, {}, R::AxisList},
                                {"keepdims", K::Bool, false, {}, R::Other, D::Own},
                                {"accum", K::DType, false, {}, R::Other, D::Own}};
constexpr AttrSpec kArgmax[] = {{"axis", K::Int, true, {}, R::Axis}, {"keepdims", K::Bool, false, {}, R::Other, D::False}};
constexpr AttrSpec kScatterRed[] = {{"axis", K::Int, true, {}, R::Axis}, {"reduce", K::Word, true, kScatterReduce}};
constexpr AttrSpec kScatterAdd[] = {{"update_window_dims", K::Ints, true, {}, R::AxisList},
                                    {"inserted_window_dims", K::Ints, true, {}, R::AxisList},
                                    {"scatter_dims_to_operand_dims", K::Ints, true, {}, R::AxisList},
                                    {"index_vector_dim", K::Int, true, {}, R::Axis}};
constexpr AttrSpec kPatches[] = {{"window", K::Ints, true, {}, R::PerAxis},       {"strides", K::Ints, false, {}, R::PerAxis, D::Ones},
                                 {"dilation", K::Ints, false, {}, R::PerAxis, D::Ones},
                                 {"pad_low", K::Ints, false, {}, R::PerAxis, D::Zeros},
                                 {"pad_high", K::Ints, false, {}, R::PerAxis, D::Zeros},
                                 {"value", K::Scalar, false, {}, R::Other, D::Zero}};
constexpr AttrSpec kRedWindow[] = {{"kind", K::Word, true, kWinKinds},  {"window", K::Ints, true, {}, R::PerAxis},
                                   {"strides", K::Ints, false, {}, R::PerAxis, D::Ones},
                                   {"pad_low", K::Ints, false, {}, R::PerAxis, D::Zeros},
                                   {"pad_high", K::Ints, false, {}, R::PerAxis, D::Zeros},
                                   {"base_dilation", K::Ints, false, {}, R::PerAxis, D::Ones},
                                   {"window_dilation", K::Ints, false, {}, R::PerAxis, D::Ones}};
constexpr AttrSpec kTopK[] = {{"k", K::Int, true, {}, R::Count}, {"axis", K::Int, false, {}, R::Axis, D::Last}, {"largest", K::Bool, false, {}, R::Other, D::True}};
constexpr AttrSpec kSegment[] = {{"kind", K::Word, true, kSegKinds}, {"num_segments", K::Int, true, {}, R::Count}};
constexpr AttrSpec kCond[] = {{"then", K::Region, true, {}}, {"else", K::Region, true, {}}};
constexpr AttrSpec kWhile[] = {{"cond", K::Region, true, {}}, {"body", K::Region, true, {}}};
constexpr AttrSpec kScan[] = {{"body", K::Region, true, {}}, {"carries", K::Int, true, {}, R::Count}};
constexpr AttrSpec kRng[] = {{"seed", K::Int, true, {}, R::Count}};
constexpr AttrSpec kQuant[] = {{"axis", K::Int, false, {}, R::Axis, D::Absent}};
constexpr AttrSpec kCustom[] = {{"target", K::String, true, {}}};

template <size_t N>
constexpr std::span<const AttrSpec> S(const AttrSpec (&a)[N]) { return {a, N}; }
}  // namespace

const char* attr_role_name(AttrRole r) {
  switch (r) {
    case AttrRole::Other: return "a word, dtype or flag";
    case AttrRole::Permutation: return "a permutation";
    case AttrRole::AxisList: return "a list of axis numbers";
    case AttrRole::Axis: return "an axis number";
    case AttrRole::PerAxis: return "one integer per axis";
    case AttrRole::Count: return "a count";
  }
  return "?";
}

const OpInfo& op_info(OpCode op) { return kOpInfo[static_cast<int>(op)]; }

std::optional<OpCode> op_by_mnemonic(std::string_view m) {
  for (int i = 0; i < kNumOps; ++i)
    if (kOpInfo[i].mnemonic == m && static_cast<OpCode>(i) != OpCode::Return) return static_cast<OpCode>(i);
  return std::nullopt;
}

std::span<const AttrSpec> op_attr_schema(OpCode op) {
  const std::span<const AttrSpec> none = std::span<const AttrSpec>(kNone, 0);
  switch (op) {
    case OpCode::Constant: return S(kConstant);
    case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Tanh:
    case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
    case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Maximum:
    case OpCode::Minimum: case OpCode::Select: case OpCode::Cast: case OpCode::StopGradient:
    case OpCode::Take: case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice: case OpCode::Return:
      return none;
    case OpCode::Compare: return S(kCompare);
    case OpCode::Reshape: case OpCode::BroadcastTo: return S(kShapeOpt);
    case OpCode::Transpose: return S(kTranspose);
    case OpCode::Slice: return S(kSlice);
    case OpCode::Concat: case OpCode::Iota: case OpCode::Gather: return S(kAxis);
    case OpCode::Pad: return S(kPad);
    case OpCode::Tile: return S(kTile);
    case OpCode::DotGeneral: return S(kDot);
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: return S(kReduce);
    case OpCode::Argmax: return S(kArgmax);
    case OpCode::ScatterReduce: return S(kScatterRed);
    case OpCode::ScatterAdd: return S(kScatterAdd);
    case OpCode::ExtractPatches: return S(kPatches);
    case OpCode::ReduceWindow: return S(kRedWindow);
    case OpCode::TopK: return S(kTopK);
    case OpCode::SegmentReduce: return S(kSegment);
    case OpCode::Cond: return S(kCond);
    case OpCode::While: return S(kWhile);
    case OpCode::Scan: return S(kScan);
    case OpCode::RngUniform: case OpCode::RngNormal: return S(kRng);
    case OpCode::Quantize: case OpCode::Dequantize: case OpCode::Requantize: return S(kQuant);
    case OpCode::CustomCall: return S(kCustom);
  }
  return none;
}

const AttrSpec* find_attr_spec(OpCode op, std::string_view name) {
  for (const AttrSpec& s : op_attr_schema(op))
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace ptir
