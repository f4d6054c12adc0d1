// One MLIR context per parse (docs/mlir.md "Reading MLIR").
#include "mlir/context.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
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
    // Parsed without the verifier, which runs below once the ops MLIR 19's own verifier crashes on are
    // refused (tosa.concat with an axis outside the rank: a segfault in its verifier, mlir-opt-19's too;
    // an adversarial review). Every other module is verified exactly as the parser would.
    mlir::ParserConfig config(p.ctx.get(), /*verifyAfterParse=*/false);
    p.module = mlir::parseSourceFile<mlir::ModuleOp>(*p.sm, config);
    if (p.module) {
      bool refused = false;
      p.module->walk([&](mlir::Operation* op) {
        if (refused || op->getName().getStringRef() != "tosa.concat") return;
        auto axis = op->getAttrOfType<mlir::IntegerAttr>("axis");
        int64_t rank = -1;
        if (op->getNumResults() == 1)
          if (auto t = llvm::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType())) rank = t.getRank();
        if (!axis || rank < 0 || axis.getInt() < 0 || axis.getInt() >= rank) {
          op->emitError("tosa.concat: the axis must be in [0, rank) of a ranked result (MLIR 19's verifier crashes "
                        "on this op otherwise)");
          refused = true;
        }
      });
      if (refused || mlir::failed(mlir::verify(*p.module))) p.module = {};
    }
  }
  os.flush();
  return p;
}

}  // namespace ptir::mlirfe
