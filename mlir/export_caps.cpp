// The table of export_mlir's capabilities (mlir/export_caps.h), one switch over the op table so that a
// new op is a -Wswitch warning here until it is given a row.
#include "mlir/export_caps.h"

namespace ptir::mlirfe {
namespace {

/// Whether op `op` has an exact spelling when exporting to `d` (docs/mlir.md "Export" lists how).
bool spelled(OpCode op, ExportDialect d) {
  switch (op) {
    case OpCode::Constant: case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log:
    case OpCode::Tanh: case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
    case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Maximum:
    case OpCode::Minimum: case OpCode::Compare: case OpCode::Select: case OpCode::Cast:
    case OpCode::StopGradient: case OpCode::Reshape: case OpCode::BroadcastTo: case OpCode::Slice:
    case OpCode::Concat: case OpCode::Pad: case OpCode::Tile: case OpCode::Iota: case OpCode::DotGeneral:
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: case OpCode::Argmax:
    case OpCode::Take: case OpCode::Gather: case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice:
    case OpCode::SegmentReduce: case OpCode::TopK: case OpCode::Return:
      return true;
    case OpCode::Transpose:  // arith and tensor have no transpose (linalg.transpose is not imported)
      return d == ExportDialect::Tosa;
    // No exact counterpart: scatters, windows, control flow, effects, opaque ops.
    case OpCode::ScatterReduce: case OpCode::ScatterAdd: case OpCode::ExtractPatches: case OpCode::ReduceWindow:
    case OpCode::Cond: case OpCode::While: case OpCode::Scan: case OpCode::RngUniform:
    case OpCode::RngNormal: case OpCode::Quantize: case OpCode::Dequantize: case OpCode::Requantize:
    case OpCode::CustomCall:
      return false;
  }
  return false;
}

ExportCaps make(ExportDialect d) {
  ExportCaps c;
  for (int k = 0; k < kNumOps; ++k) c.ops[static_cast<size_t>(k)] = spelled(static_cast<OpCode>(k), d);
  c.dtypes = {DType::I1,  DType::SI8, DType::SI16, DType::SI32, DType::SI64,
              DType::BF16, DType::F16, DType::F32,  DType::F64};
  c.transposing_dot = d == ExportDialect::Tosa;
  return c;
}

}  // namespace

const ExportCaps& export_caps(ExportDialect d) {
  static const ExportCaps kTosa = make(ExportDialect::Tosa), kArith = make(ExportDialect::Arith);
  return d == ExportDialect::Tosa ? kTosa : kArith;
}

}  // namespace ptir::mlirfe
