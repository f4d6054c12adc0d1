// The reducer of `ptir tv` (docs/mlir.md "Shrinking"): one function kept, one op dropped at a time.
#include <vector>

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/context.h"
#include "mlir/import.h"

namespace ptir::mlirfe {
namespace {

mlir::func::FuncOp find_func(mlir::ModuleOp m, std::string_view name) {
  for (auto f : m.getOps<mlir::func::FuncOp>())
    if (f.getSymName() == llvm::StringRef(name.data(), name.size())) return f;
  return {};
}

std::vector<mlir::Operation*> body_ops(mlir::func::FuncOp f) {
  std::vector<mlir::Operation*> ops;
  if (f.isExternal()) return ops;
  for (mlir::Operation& op : f.getBody().front())
    if (!op.hasTrait<mlir::OpTrait::IsTerminator>()) ops.push_back(&op);
  return ops;
}

}  // namespace

int count_ops(std::string_view text, std::string_view func) {
  Parsed p = parse_module(text, "<reduce>");
  if (!p.module) return -1;
  auto f = find_func(*p.module, func);
  if (!f) return -1;
  return static_cast<int>(body_ops(f).size());
}

int op_weight(std::string_view text, std::string_view func) {
  Parsed p = parse_module(text, "<reduce>");
  if (!p.module) return -1;
  auto f = find_func(*p.module, func);
  if (!f) return -1;
  int w = 0;
  for (mlir::Operation* op : body_ops(f)) w += op->getNumOperands() == 0 ? 1 : 2;
  return w;
}

std::string reduce_variant(std::string_view text, std::string_view func, int k, std::string* error) {
  Parsed p = parse_module(text, "<reduce>");
  if (!p.module) {
    if (error) *error = p.diagnostics;
    return "";
  }
  mlir::ModuleOp m = *p.module;
  mlir::func::FuncOp keep = find_func(m, func);
  if (!keep) {
    if (error) *error = "no function @" + std::string(func);
    return "";
  }
  for (mlir::Operation& top : llvm::make_early_inc_range(m.getBody()->getOperations()))
    if (&top != keep.getOperation()) top.erase();
  if (k > 0) {
    std::vector<mlir::Operation*> ops = body_ops(keep);
    if (k > static_cast<int>(ops.size())) return "";
    mlir::Operation* op = ops[k - 1];
    mlir::Block& block = keep.getBody().front();
    for (mlir::Value r : op->getResults()) {
      if (r.use_empty()) continue;
      mlir::Value rep;
      for (mlir::Value o : op->getOperands())
        if (o.getType() == r.getType()) { rep = o; break; }
      if (!rep)
        for (mlir::BlockArgument a : block.getArguments())
          if (a.getType() == r.getType()) { rep = a; break; }
      if (!rep) {
        // A constant replacing a constant does not shrink anything.
        if (op->getNumOperands() == 0) return "";
        auto st = llvm::dyn_cast<mlir::RankedTensorType>(r.getType());
        if (!st) return "";
        mlir::OpBuilder b(op);
        mlir::Attribute zero = b.getZeroAttr(st);
        auto typed = llvm::dyn_cast_or_null<mlir::TypedAttr>(zero);
        if (!typed) return "";
        rep = b.create<mlir::arith::ConstantOp>(op->getLoc(), typed);
      }
      r.replaceAllUsesWith(rep);
    }
    op->erase();
    // Ops left without uses go too (pure ones only: an unregistered op is kept).
    for (bool changed = true; changed;) {
      changed = false;
      for (mlir::Operation& o : llvm::make_early_inc_range(llvm::reverse(block)))
        if (!o.hasTrait<mlir::OpTrait::IsTerminator>() && o.use_empty() && mlir::isPure(&o)) {
          o.erase();
          changed = true;
        }
    }
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  m.print(os);
  os.flush();
  return out;
}

}  // namespace ptir::mlirfe
