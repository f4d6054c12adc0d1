// The checker-soundness checks behind fuzz_equiv (harness.h): a pair's verdict against the interpreter.
// Apart from harness.cpp so that fuzz_pipeline, which never calls the checker, does not link it (and
// libFuzzer does not scan the checker's coverage counters after every one of its inputs).
#include <algorithm>

#include "fuzz/gen/bytes_choices.h"
#include "fuzz/harness/compare.h"
#include "fuzz/harness/harness.h"
#include "fuzz/harness/mutate.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/refine.h"
#include "verify/report.h"
#include "verify/smt/solver.h"

namespace ptir::fuzz {

std::string check_pair(const Program& src, const Program& tgt, unsigned timeout_ms, int confirm_runs,
                       std::string* verdict) {
  // Z3 contexts reused from one check to the next (smt::ContextReuse): making one is most of a small
  // check's cost under ASan. Z3's answers do not depend on it; only whether one comes within the budget can.
  smt::ContextReuse reuse;
  verify::Verdict v = verify::check_refinement(
      src, tgt, {.timeout_ms = timeout_ms, .threads = 1, .fast_pass_runs = 32, .kernels = &fuzz_kernels()});
  if (verdict) *verdict = verify::verdict_word(v);
  // Printed only for a finding.
  auto pair = [&] { return "--- source ---\n" + print_program(src) + "--- target ---\n" + print_program(tgt); };
  if (v.proved()) {
    std::string d = differential(src, tgt, {.runs = confirm_runs, .seed = 7, .edge_bias = 0.5});
    if (!d.empty()) return "PROVED, but the interpreter disagrees: " + d + pair();
  } else if (v.refuted()) {
    const auto& r = std::get<verify::Refuted>(v.v);
    const InterpOptions io = interp_options();
    RunResult s = run_program(src, r.inputs, io), t = run_program(tgt, r.inputs, io);
    if (s.status != RunStatus::Ok) return "REFUTED, but the source does not run Ok on the counterexample\n" + pair();
    if (compare(s, t, r.inputs).empty())
      return "REFUTED, but the counterexample does not replay\n" + show_inputs(r.inputs) + pair();
  } else if (v.invalid()) {
    return "the checker calls a verified pair invalid: " + std::get<verify::Invalid>(v.v).reason + "\n" + pair();
  }
  return "";
}

std::string fuzz_equiv_case(const uint8_t* data, size_t size, RepeatFilter* repeats) {
  // An input ending with the bytes an earlier case read makes that pair again (repeats.h).
  if (repeats && repeats->input_seen_before(data, size)) return "";
  BytesChoices c(data, size);
  GenOptions o = fuzz_gen_options(c, 6);
  o.max_elements = std::min<int64_t>(o.max_elements, 8);
  o.max_region_depth = 1;
  Generated g = generate(c, o);
  if (!g.program) return "the generator wrote a program the parser rejects: " + g.error + "\n" + g.text;
  if (!verify_program(*g.program, 1).empty()) return "the generator wrote a program that does not verify\n" + g.text;
  std::optional<Mutant> m = mutate(*g.program, c);
  if (repeats) repeats->remember_input(data, size, c.used());  // the program and its mutant: every byte read
  if (!m) return "";
  // The check is a function of the pair and of its time budget: a repeat of a check that ran out of
  // time might end otherwise, and is not run again either.
  if (repeats && repeats->seen_before(g.text + "\n// mutant\n" + print_program(*m->program))) return "";
  std::string f = check_pair(*g.program, *m->program, kEquivBudgetMs, 256);
  // A check that overran its budget left its Z3 context to a solver host that is still stopping it
  // (Z3 polls its cancel flag rarely in some phases: seconds, now and then). One such host may run on
  // beside the next inputs (on the other core); a second is waited for, which bounds the memory held.
  // The target runs with -detect_leaks=0 (scripts/fuzz; docs/fuzzing.md, "Long campaigns: abandoned
  // Z3 contexts"), and the process deletes every abandoned context before LeakSanitizer's check at exit.
  smt::reap_finished_checks(1);
  return f.empty() ? "" : "mutation: " + m->description + "\n" + f;
}

}  // namespace ptir::fuzz
