// Instances of conversion patterns and their proofs.
#include "verify/prove/conversion.h"

#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/refine.h"
#include "verify/report.h"

namespace ptir::prove {
namespace {

/// The instance program of one root op in dtype d (elementwise: tensor<d, 3> operands; reductions:
/// tensor<d, 2x3> over axis 1; dot_general: 2x3 by 3x2), accumulating in `acc` where the op has one.
std::string instance_text(OpCode op, DType d, DType acc, const std::string& dir) {
  const std::string dn = dtype_name(d), an = dtype_name(acc);
  const std::string t3 = "tensor<" + dn + ", 3>";
  switch (op) {
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
      return "func @main(%x: tensor<" + dn + ", 2x3>) -> tensor<" + dn + ", 2> {\n  %r = " + std::string(mnemonic(op)) +
             " %x axes[1] accum[" + an + "] -> tensor<" + dn + ", 2>\n  return %r\n}\n";
    case OpCode::DotGeneral:
      return "func @main(%x: tensor<" + dn + ", 2x3>, %y: tensor<" + dn + ", 3x2>) -> tensor<" + dn +
             ", 2x2> {\n  %r = dot_general %x, %y contract_lhs[1] contract_rhs[0] accum[" + an + "] -> tensor<" + dn +
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
      const bool folds = op == OpCode::ReduceSum || op == OpCode::ReduceMax || op == OpCode::ReduceMin ||
                         op == OpCode::DotGeneral;
      std::vector<std::string> dirs = {""};
      if (op == OpCode::Compare) dirs = {"lt", "le", "eq", "ge", "gt", "ne"};
      for (auto [from, to] : t.type_map) {
        // The accumulation dtypes to instantiate: the converted one, and the narrow one (which an exact
        // pattern must refuse to touch, and an inexact one converts).
        std::vector<DType> accs = {to};
        if (folds) accs.push_back(from);
        for (DType acc : accs)
          for (const std::string& dir : dirs) {
            if (!only.empty() &&
                !only.count(rep.pattern + " " + std::string(mnemonic(op)) + " " + dtype_name(from)))
              continue;
            ConversionInstanceResult r;
            r.instance = std::string(mnemonic(op)) + (dir.empty() ? "" : " dir[" + dir + "]") + " " + dtype_name(from) +
                         (folds ? std::string(" accum[") + dtype_name(acc) + "]" : "");
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
