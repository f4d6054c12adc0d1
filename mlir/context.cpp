// One MLIR context per parse (docs/mlir.md "Reading MLIR").
#include "mlir/context.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

namespace ptir::mlirfe {

Parsed parse_module(std::string_view text, std::string_view filename) {
  Parsed p;
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::tensor::TensorDialect, mlir::tosa::TosaDialect>();
  p.ctx = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  p.ctx->allowUnregisteredDialects();
  p.ctx->loadAllAvailableDialects();
  p.sm = std::make_unique<llvm::SourceMgr>();
  p.sm->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                                                llvm::StringRef(filename.data(), filename.size())),
                           llvm::SMLoc());
  llvm::raw_string_ostream os(p.diagnostics);
  {
    mlir::SourceMgrDiagnosticHandler handler(*p.sm, p.ctx.get(), os);
    mlir::ParserConfig config(p.ctx.get());
    p.module = mlir::parseSourceFile<mlir::ModuleOp>(*p.sm, config);
  }
  os.flush();
  return p;
}

}  // namespace ptir::mlirfe
