// Instances of conversion patterns and their proofs.
#include "verify/prove/conversion.h"

#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/refine.h"
#include "verify/report.h"

namespace ptir::prove {
namespace {

/// The instance program of one root op in dtype d (elementwise: tensor<d, 3> operands; reductions:
/// tensor<d, 2x3> over axis 1; dot_general: 2x3 by 3x2), accumulating in `acc` where the op has one
/// (none: no accum attribute, the op's default accumulation).
std::string instance_text(OpCode op, DType d, std::optional<DType> acc, const std::string& dir) {
  const std::string dn = dtype_name(d), an = acc ? " accum[" + std::string(dtype_name(*acc)) + "]" : "";
  const std::string t3 = "tensor<" + dn + ", 3>";
  switch (op) {
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
      return "func @main(%x: tensor<" + dn + ", 2x3>) -> tensor<" + dn + ", 2> {\n  %r = " + std::string(mnemonic(op)) +
             " %x axes[1]" + an + " -> tensor<" + dn + ", 2>\n  return %r\n}\n";
    case OpCode::DotGeneral:
      return "func @main(%x: tensor<" + dn + ", 2x3>, %y: tensor<" + dn + ", 3x2>) -> tensor<" + dn +
             ", 2x2> {\n  %r = dot_general %x, %y contract_lhs[1] contract_rhs[0]" + an + " -> tensor<" + dn +
             ", 2x2>\n  return %r\n}\n";
    case OpCode::Compare:
      return "func @main(%x: " + t3 + ", %y: " + t3 + ") -> tensor<i1, 3> {\n  %r = compare %x, %y dir[" + dir +
             "] -> tensor<i1, 3>\n  return %r\n}\n";
    default:
      break;
  }
  const int arity = op_info(op).min_operands;
  if (arity == 1)
    return "func @main(%x: " + t3 + ") -> " + t3 + " {\n  %r = " + std::string(mnemonic(op)) + " %x -> " + t3 +
           "\n  return %r\n}\n";
  return "func @main(%x: " + t3 + ", %y: " + t3 + ") -> " + t3 + " {\n  %r = " + std::string(mnemonic(op)) + " %x, %y -> " +
         t3 + "\n  return %r\n}\n";
}

}  // namespace

std::vector<ConversionPatternReport> prove_conversion_patterns(
    const conversion::ConversionTarget& t, const std::vector<const conversion::ConversionPattern*>& patterns,
    unsigned timeout_ms, const std::set<std::string>& only) {
  std::vector<ConversionPatternReport> out;
  for (const conversion::ConversionPattern* pat : patterns) {
    ConversionPatternReport rep;
    rep.pattern = std::string(pat->name());
    bool all_proved = true, refuted = false, any = false;
    for (OpCode op : pat->roots()) {
      const bool folds = find_attr_spec(op, "accum") != nullptr;  // reduce_*, dot_general (ir/ops.cpp)
      std::vector<std::string> dirs = {""};
      if (op == OpCode::Compare) dirs = {"lt", "le", "eq", "ge", "gt", "ne"};
      for (auto [from, to] : t.type_map) {
        // The accumulations to instantiate: the converted dtype, the narrow one (which an exact pattern
        // must refuse to touch, and an inexact one converts), and none written (the op's default).
        std::vector<std::optional<DType>> accs = {std::nullopt};
        if (folds) accs = {to, from, std::nullopt};
        // A certificate (`only`) may list other accumulations that fired (accum[f64] on a bf16 sum under
        // a bf16 -> f32 target): each gets its instance too, so that it is proved, not passed over.
        if (folds && !only.empty())
          for (int d = 0; d < kNumDTypes; ++d) {
            const DType acc = static_cast<DType>(d);
            if (acc == to || acc == from) continue;
            for (const std::string& dir : dirs)
              if (only.count(rep.pattern + " " + conversion::conversion_kind(op, from, dir, acc))) {
                accs.push_back(acc);
                break;
              }
          }
        for (const std::optional<DType>& acc : accs)
          for (const std::string& dir : dirs) {
            const std::string kind = conversion::conversion_kind(op, from, dir, folds ? acc : std::nullopt);
            if (!only.empty() && !only.count(rep.pattern + " " + kind)) continue;
            ConversionInstanceResult r;
            r.instance = kind;
            ParseResult src = parse_program(instance_text(op, from, acc, dir), "<instance>");
            if (!src.ok() || !verify_program(*src.program, 1).empty()) {
              r.verdict = "ERROR";
              r.note = "the instance does not verify" + (src.ok() ? std::string() : ": " + src.error);
              all_proved = false;
              rep.instances.push_back(r);
              continue;
            }
            Program conv = *src.program;
            conversion::ConversionResult cr = conversion::apply_conversion(conv, t, {pat}, conversion::Mode::Partial);
            if (cr.converted == 0) {
              // Not fired: expected for a narrow accumulation under an exact pattern.
              r.verdict = "NOT FIRED";
              r.note = cr.still_illegal.empty() ? "legal already" : cr.still_illegal[0].reason;
              rep.instances.push_back(r);
              continue;
            }
            any = true;
            verify::CheckOptions co;
            co.timeout_ms = timeout_ms;
            verify::Verdict v = verify::check_refinement(*src.program, conv, co);
            r.verdict = verify::verdict_word(v);
            if (v.proved()) {
              r.note = std::get<verify::Proved>(v.v).note;
              // An exhaustive proof holds for every shape (the lifting argument); Z3's for the instance's.
              if (r.note.rfind("exhaustive", 0) == 0) r.note += ": every shape";
              else r.note = "Z3, at the instance's shapes" + (r.note.empty() ? std::string() : ": " + r.note);
            } else {
              all_proved = false;
              if (v.refuted()) {
                refuted = true;
                r.report = print_program(*src.program) + "converted to:\n" + print_program(conv) +
                           verify::format_text(v, *src.program, src.program->entry());
              } else if (v.unknown()) {
                r.note = std::get<verify::Unknown>(v.v).reason;
              }
            }
            rep.instances.push_back(r);
          }
      }
    }
    rep.verdict = refuted ? "REFUTED" : !any ? "NOT EXERCISED" : all_proved ? "PROVED" : "UNKNOWN";
    out.push_back(std::move(rep));
  }
  return out;
}

}  // namespace ptir::prove
