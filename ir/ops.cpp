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
constexpr std::string_view kDirs[] = {"lt", "le", "eq", "ge", "gt", "ne"};
constexpr std::string_view kWinKinds[] = {"sum", "max", "min"};
constexpr std::string_view kSegKinds[] = {"sum", "max"};
constexpr std::string_view kScatterReduce[] = {"add", "max", "min", "replace"};

constexpr AttrSpec kNone[] = {{"", K::Int, false, {}}};  // placeholder; spans below exclude it
constexpr AttrSpec kConstant[] = {{"value", K::Literal, false, {}}};
constexpr AttrSpec kCompare[] = {{"dir", K::Word, true, kDirs}};
constexpr AttrSpec kShapeOpt[] = {{"shape", K::Ints, false, {}}};
constexpr AttrSpec kTranspose[] = {{"perm", K::Ints, true, {}}};
constexpr AttrSpec kSlice[] = {{"starts", K::Ints, true, {}}};
constexpr AttrSpec kAxis[] = {{"axis", K::Int, true, {}}};
constexpr AttrSpec kPad[] = {{"low", K::Ints, true, {}},
                             {"high", K::Ints, true, {}},
                             {"interior", K::Ints, false, {}},
                             {"value", K::Scalar, false, {}}};
constexpr AttrSpec kTile[] = {{"repeats", K::Ints, true, {}}};
constexpr AttrSpec kDot[] = {{"batch_lhs", K::Ints, false, {}},
                             {"batch_rhs", K::Ints, false, {}},
                             {"contract_lhs", K::Ints, true, {}},
                             {"contract_rhs", K::Ints, true, {}},
                             {"accum", K::DType, false, {}}};
constexpr AttrSpec kReduce[] = {{"axes", K::Ints, true, {}},
                                {"keepdims", K::Bool, false, {}},
                                {"accum", K::DType, false, {}}};
constexpr AttrSpec kArgmax[] = {{"axis", K::Int, true, {}}, {"keepdims", K::Bool, false, {}}};
constexpr AttrSpec kScatterRed[] = {{"axis", K::Int, true, {}}, {"reduce", K::Word, true, kScatterReduce}};
constexpr AttrSpec kScatterAdd[] = {{"update_window_dims", K::Ints, true, {}},
                                    {"inserted_window_dims", K::Ints, true, {}},
                                    {"scatter_dims_to_operand_dims", K::Ints, true, {}},
                                    {"index_vector_dim", K::Int, true, {}}};
constexpr AttrSpec kPatches[] = {{"window", K::Ints, true, {}},       {"strides", K::Ints, false, {}},
                                 {"dilation", K::Ints, false, {}},     {"pad_low", K::Ints, false, {}},
                                 {"pad_high", K::Ints, false, {}},     {"value", K::Scalar, false, {}}};
constexpr AttrSpec kRedWindow[] = {{"kind", K::Word, true, kWinKinds},  {"window", K::Ints, true, {}},
                                   {"strides", K::Ints, false, {}},     {"pad_low", K::Ints, false, {}},
                                   {"pad_high", K::Ints, false, {}},    {"base_dilation", K::Ints, false, {}},
                                   {"window_dilation", K::Ints, false, {}}};
constexpr AttrSpec kTopK[] = {{"k", K::Int, true, {}}, {"axis", K::Int, false, {}}, {"largest", K::Bool, false, {}}};
constexpr AttrSpec kSegment[] = {{"kind", K::Word, true, kSegKinds}, {"num_segments", K::Int, true, {}}};
constexpr AttrSpec kCond[] = {{"then", K::Region, true, {}}, {"else", K::Region, true, {}}};
constexpr AttrSpec kWhile[] = {{"cond", K::Region, true, {}}, {"body", K::Region, true, {}}};
constexpr AttrSpec kScan[] = {{"body", K::Region, true, {}}, {"carries", K::Int, true, {}}};
constexpr AttrSpec kRng[] = {{"seed", K::Int, true, {}}};
constexpr AttrSpec kQuant[] = {{"axis", K::Int, false, {}}};
constexpr AttrSpec kCustom[] = {{"target", K::String, true, {}}};

template <size_t N>
constexpr std::span<const AttrSpec> S(const AttrSpec (&a)[N]) { return {a, N}; }
}  // namespace

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
