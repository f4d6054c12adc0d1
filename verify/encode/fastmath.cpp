// Fast-math flags in the encoding (docs/semantics.md "Fast-math flags"): the same meaning as
// ir/interp/fastmath.cpp, plus the free zero signs of nsz for the side whose every behaviour counts.
#include "verify/encode/ops.h"

namespace ptir::verify {

void apply_fastmath(const Program& p, InstId i, FastMath fm, std::span<const SymTensor> args,
                    std::vector<SymTensor>& results, smt::Expr& ub, const EncodeOptions& opts) {
  if (fm.none() || !fastmath_governs(p.op(i))) return;
  const bool nnan = fm.has(FastMathFlag::NNaN), ninf = fm.has(FastMathFlag::NInf);
  auto check = [&](const SymTensor& t) {
    if (!is_float(t.type.dtype)) return;
    for (const smt::Expr& x : t.elems) {
      if (nnan) ub = ub || x.isNaN();
      if (ninf) ub = ub || x.isInf();
    }
  };
  if (nnan || ninf) {
    for (const SymTensor& a : args) check(a);
    for (const SymTensor& r : results) check(r);
  }
  if (!fm.has(FastMathFlag::NSZ) || results.size() != 1 || !is_float(results[0].type.dtype)) return;
  if (opts.zero_sign == EncodeOptions::ZeroSign::Default) {
    if (opts.zero_choices)
      for (const smt::Expr& x : results[0].elems) opts.zero_choices->push_back({i, x.isZero()});
    return;
  }
  if (!opts.zero_signs) throw EncodeError("nsz: no place for the zero-sign variables");
  SymTensor& r = results[0];
  const smt::FPFormat f = sem::fp_format(r.type.dtype);
  const bool in_region = p.body(p.inst(i).body).is_region;
  for (size_t k = 0; k < r.elems.size(); ++k) {
    const std::string name = opts.zero_sign_prefix + "!" + std::to_string(opts.zero_signs->size()) + "!i" +
                             std::to_string(i) + "[" + std::to_string(k) + "]";
    smt::Expr v = smt::Expr::var(name, smt::Sort::boolean());
    opts.zero_signs->push_back({i, static_cast<int64_t>(k), in_region, v});
    r.elems[k] = smt::Expr::ite(r.elems[k].isZero(),
                                smt::Expr::ite(v, smt::Expr::zero(f, true), smt::Expr::zero(f, false)), r.elems[k]);
  }
}

}  // namespace ptir::verify
