// MLIR's own passes in-process (docs/mlir.md "fuzz_mlir_tv"): the module parsed in a fresh context, the
// pass run through MLIR's PassManager, the result printed as MLIR text.
#include <algorithm>
#include <set>
#include <vector>

#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/context.h"
#include "mlir/import.h"

namespace ptir::mlirfe {

const char* mlir_pass_name(MlirPass p) {
  switch (p) {
    case MlirPass::Canonicalize: return "canonicalize";
    case MlirPass::TosaLayerwiseConstantFold: return "tosa-layerwise-constant-fold";
  }
  return "?";
}

std::string run_mlir_pass(std::string_view text, MlirPass pass, std::string* error) {
  Parsed p = parse_module(text, "input.mlir");
  if (!p.module) {
    if (error) *error = "the input does not parse: " + p.diagnostics;
    return "";
  }
  std::string diags;
  llvm::raw_string_ostream dos(diags);
  mlir::SourceMgrDiagnosticHandler handler(*p.sm, p.ctx.get(), dos);
  mlir::PassManager pm(p.ctx.get());
  if (pass == MlirPass::Canonicalize) pm.addPass(mlir::createCanonicalizerPass());
  else pm.addNestedPass<mlir::func::FuncOp>(mlir::tosa::createTosaLayerwiseConstantFoldPass());
  if (mlir::failed(pm.run(*p.module))) {
    dos.flush();
    if (error) *error = std::string("the pass ") + mlir_pass_name(pass) + " failed: " + diags;
    return "";
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  p.module->print(os);
  os.flush();
  return out;
}

namespace {

/// The known-finding triggers present in module `m`, with the TOSA ops possibly renamed to `prefix`.
void direct_sites(mlir::ModuleOp m, const std::string& prefix, std::set<std::string>& ids) {
  // An operand defined by a splat float zero constant (either sign: the folders test isZero()).
  auto splat_zero = [](mlir::Value v) {
    mlir::Operation* d = v.getDefiningOp();
    if (!d) return false;
    const llvm::StringRef n = d->getName().getStringRef();
    if (n != "tosa.const" && n != "arith.constant") return false;
    auto de = llvm::dyn_cast_or_null<mlir::DenseFPElementsAttr>(d->getAttr("value"));
    return de && de.isSplat() && de.getSplatValue<llvm::APFloat>().isZero();
  };
  auto is_int = [](mlir::Value v) {
    auto t = llvm::dyn_cast<mlir::ShapedType>(v.getType());
    return t && llvm::isa<mlir::IntegerType>(t.getElementType());
  };
  m->walk([&](mlir::Operation* op) {
    const std::string n = op->getName().getStringRef().str();
    if (op->getNumOperands() < 2 && n != "tosa.clamp") return;
    if (n == prefix + ".add" && (splat_zero(op->getOperand(0)) || splat_zero(op->getOperand(1)))) ids.insert("tosa-add-zero");
    if (n == prefix + ".sub" && splat_zero(op->getOperand(1))) ids.insert("tosa-sub-zero");
    if (n == prefix + ".mul" && (splat_zero(op->getOperand(0)) || splat_zero(op->getOperand(1)))) ids.insert("tosa-mul-zero");
    if (n == "tosa.clamp" && is_int(op->getOperand(0))) {
      mlir::Operation* d = op->getOperand(0).getDefiningOp();
      if (d && d->getName().getStringRef() == "tosa.clamp") ids.insert("tosa-clamp-clamp-int");
    }
  });
}

}  // namespace

std::vector<std::string> known_fold_sites(std::string_view text) {
  std::set<std::string> ids;
  {
    Parsed p = parse_module(text, "input.mlir");
    if (!p.module) return {};
    direct_sites(*p.module, "tosa", ids);
  }
  // Triggers that MLIR's own folding creates (a tosa.mul whose operand folds to a zero splat): the module
  // with some of tosa.add/sub/mul renamed to ops of an unregistered dialect (no folders; written in
  // generic form by export_mlir, so the rename is textual), then canonicalized and TOSA-constant-folded,
  // and the renamed ops' operands looked at. Once with all of them renamed, then once for each single
  // occurrence with only that one renamed: the zero may itself be the fold of another add/sub/mul, even
  // of the same op (a tosa.mul of the fold of tosa.sub(c, c) and -1.0; tosa.mul(tosa.mul(x, x), x) with
  // x the smallest negative subnormal, whose inner product underflows to +0.0: both folded by MLIR to
  // +0.0 where the product is -0.0).
  std::vector<std::string> renamings;
  {
    std::string all(text);
    std::vector<size_t> sites;
    for (const char* op : {"add", "sub", "mul"}) {
      const std::string from = std::string("\"tosa.") + op + "\"(";
      for (size_t pos = text.find(from); pos != std::string_view::npos; pos = text.find(from, pos + 1)) sites.push_back(pos);
    }
    std::sort(sites.begin(), sites.end());
    // "tosa." and "ptirknown." differ in length: rename from the back so earlier positions stay valid.
    for (auto it = sites.rbegin(); it != sites.rend(); ++it) all.replace(*it + 1, 4, "ptirknown");
    if (!sites.empty()) renamings.push_back(all);
    if (sites.size() > 1)
      for (size_t at : sites) {
        std::string one(text);
        one.replace(at + 1, 4, "ptirknown");
        renamings.push_back(std::move(one));
      }
  }
  for (const std::string& renamed : renamings) {
    std::string err;
    std::string folded = run_mlir_pass(renamed, MlirPass::Canonicalize, &err);
    if (!folded.empty()) folded = run_mlir_pass(folded, MlirPass::TosaLayerwiseConstantFold, &err);
    if (!folded.empty()) {
      Parsed q = parse_module(folded, "folded.mlir");
      if (q.module) direct_sites(*q.module, "ptirknown", ids);
    }
  }
  return {ids.begin(), ids.end()};
}

}  // namespace ptir::mlirfe
