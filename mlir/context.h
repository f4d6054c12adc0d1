// Private to mlir/*.cpp (it includes MLIR's headers): one MLIR context with the dialects ptir reads, and
// a module parsed from text with MLIR's diagnostics captured as `FILE:LINE:COL: error: ...` lines.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "llvm/Support/SourceMgr.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace ptir::mlirfe {

/// A parsed module with the context and source that own it (destroyed module first).
struct Parsed {
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<llvm::SourceMgr> sm;
  mlir::OwningOpRef<mlir::ModuleOp> module;  ///< null when the text did not parse
  std::string diagnostics;                   ///< MLIR's errors, one `FILE:LINE:COL: error: ...` each
};

/// Parses `text` with the registered dialects func, arith, math, tensor, tosa; other dialects (StableHLO
/// in generic form) are allowed unregistered.
Parsed parse_module(std::string_view text, std::string_view filename);

}  // namespace ptir::mlirfe
