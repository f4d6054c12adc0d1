// Translation validation: does a target program refine a source program? The check is a numbered list
// of named queries (Alive2 style); the verdict is a value. Every counterexample is replayed in the
// reference interpreter and only a replayed difference is REFUTED; a timeout or a counterexample that
// does not replay is UNKNOWN, never PROVED.
//
//   1 types and shapes agree          the entry functions have the same signature (else Invalid)
//   2 precondition satisfiable        the source is defined, or runs a loop past the unroll bound, on
//                                     some input (else it is UB everywhere: PROVED, vacuously)
//   3 target UB only where source UB  no input where the source is defined and the target is not
//   4 values equal                    one query per output element: equal where the source is defined
//   5 loops finish within the bound   no input runs a source loop past the unroll bound, and none where
//                                     the source is defined runs a target loop past it (else UNKNOWN)
//
// Queries 3 and 4 assume every loop finished within the bound, where the encoding is exact; query 5
// covers the rest. Before any solver runs, a fast pass runs both sides in the interpreter on edge and
// random inputs.
#pragma once
#include <functional>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/interp.h"
#include "ir/program.h"

namespace ptir::verify {

/// Options of one refinement check.
struct CheckOptions {
  unsigned timeout_ms = 10000;         ///< budget of the whole check; queries that run out are UNKNOWN
  /// Memory budget in MB (0: none): an encoding estimated larger is not built (UNKNOWN at once, saying
  /// so; verify/budget.h), Z3 is capped at it (running out is UNKNOWN), and so are interpreter runs.
  uint64_t memory_mb = 4096;
  int while_unroll = 16;               ///< while iterations encoded; a loop that may run longer is UNKNOWN
  unsigned threads = 2;                ///< solver threads, one Z3 context each
  int fast_pass_runs = 64;             ///< interpreter runs on edge/random inputs before Z3 (0: skip)
  uint64_t seed = 1;                   ///< seed of the fast pass inputs
  int replay_attempts = 4;             ///< models tried for a query whose counterexample does not replay
  /// Models tried for a query whose counterexamples another allowed behaviour of the source answers (or
  /// may answer): its nsz zero signs or reassoc orders. Each is blocked and Z3 asked again, after the
  /// first with "the source chooses no zero sign" added; then the query is UNKNOWN with the reason.
  int fastmath_rounds = 8;
  const KernelRegistry* kernels = nullptr;  ///< kernels for opaque ops when replaying
  bool emit_smt2 = false;              ///< keep every solver query as SMT-LIB 2 text in Verdict::smt2
  /// Count `timeout_ms` in Z3 resource units (timeout_ms * smt::kRlimitPerMs for the whole check, each
  /// query given its share of what is left, what it spent subtracted) instead of wall time, so the same
  /// check gives the same verdict on a loaded machine and an idle one (`ptir prove` sets it). The wall
  /// clock is then only a safety net at smt::kWallFactor * timeout_ms + smt::kWallSlackMs. With threads > 1 the order in which
  /// queries spend the shared budget can vary, so only threads == 1 is fully reproducible.
  bool deterministic = false;
};

/// What one numbered query concluded.
struct QueryLog {
  int number = 0;
  std::string name;     ///< e.g. "values equal"
  std::string subject;  ///< e.g. "result 0 element [1, 2]"; empty for whole-program queries
  std::string outcome;  ///< "unsat", "unsat (same term)", "sat", "sat, replayed", "timeout", ...
  double ms = 0;
  /// Element queries this entry stands for: consecutive elements of query 4 that were never run (or never
  /// planned: a check with millions of elements stops planning at its deadline) are one entry, whose
  /// subject names the first and the last.
  int64_t count = 1;
};

/// The target refines the source for every input of the given shapes.
struct Proved {
  std::string note;  ///< e.g. "the source has undefined behaviour on every input"
};

/// A concrete input on which the target does not refine the source, replayed in the interpreter.
struct Refuted {
  int query = 0;              ///< 3 or 4, or 0 when the fast pass found it
  std::string query_name;
  std::string found_by;       ///< "fast pass (interpreter)" or "z3"
  std::vector<Tensor> inputs;
  RunResult src, tgt;         ///< interpreter runs on `inputs`: src is Ok
  int result = -1;            ///< the first differing result when both ran (else -1: target UB)
  int64_t element = -1;       ///< flat index of the differing element in that result
};

/// No verdict: a timeout, the loop bound, an encoding limit, or a counterexample that did not replay.
struct Unknown {
  std::string reason;
};

/// The two programs cannot be compared (signature mismatch, malformed program).
struct Invalid {
  std::string reason;
};

/// The outcome of check_refinement, with the log of its queries.
struct Verdict {
  std::variant<Proved, Refuted, Unknown, Invalid> v;
  std::vector<QueryLog> log;
  double ms = 0;         ///< wall time of the whole check
  int solver_calls = 0;  ///< Z3 checks run
  std::string smt2;      ///< the queries in SMT-LIB 2 when CheckOptions::emit_smt2

  bool proved() const { return std::holds_alternative<Proved>(v); }
  bool refuted() const { return std::holds_alternative<Refuted>(v); }
  bool unknown() const { return std::holds_alternative<Unknown>(v); }
  bool invalid() const { return std::holds_alternative<Invalid>(v); }
};

/// "PROVED", "REFUTED", "UNKNOWN" or "ERROR" (Invalid).
const char* verdict_word(const Verdict& v);

/// Checks that the entry function of `tgt` refines the entry function of `src`. This compares ONE
/// function: a tool reporting about whole programs uses check_program_refinement.
Verdict check_refinement(const Program& src, const Program& tgt, const CheckOptions& opts = {});

/// Checks body `sb` of `src` against body `tb` of `tgt` (same signature).
Verdict check_refinement(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const CheckOptions& opts = {});

/// One function's verdict within a whole-program check.
struct FunctionVerdict {
  std::string name;  ///< the function's name (without '@')
  BodyId src = kNone, tgt = kNone;
  Verdict verdict;
};

/// The verdict about a whole program (docs/semantics.md, "Programs"): every function of the source is
/// checked against its namesake in the target, and the program verdict is the weakest of them
/// (ERROR < REFUTED < UNKNOWN < PROVED). A function missing from either side, or a function whose
/// signature changed, makes the programs incomparable (ERROR), never PROVED.
struct ProgramVerdict {
  std::vector<FunctionVerdict> functions;  ///< in the source's order
  std::vector<std::string> errors;         ///< why the programs cannot be compared (missing/extra functions)
  std::string only;                        ///< non-empty: only this function was checked (by request)
  size_t src_functions = 0;                ///< functions the source defines
  double ms = 0;

  /// The weakest function verdict: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 ERROR (Verdict::v's indices).
  int kind() const;
  bool proved() const { return kind() == 0; }
};

/// "PROVED", "REFUTED", "UNKNOWN" or "ERROR" for a whole-program verdict.
const char* verdict_word(const ProgramVerdict& v);

/// Checks every function of `tgt` against its namesake in `src` (or only `only_function` when it is
/// non-empty: an unknown name is an error). The time budget `opts.timeout_ms` covers the whole program:
/// each function gets an equal share of what is left when its check starts.
/// `on_function`, when given, is called before each function's check (`done` null) and after it
/// (`done` its verdict), with the function's index k of n: a tool shows progress with it.
using FunctionProgress = std::function<void(size_t k, size_t n, const std::string& name, const Verdict* done)>;
ProgramVerdict check_program_refinement(const Program& src, const Program& tgt, const CheckOptions& opts = {},
                                        const std::string& only_function = "",
                                        const FunctionProgress& on_function = {});

/// Z3 checks that overran their budget and were abandoned, still running in the background
/// (check_refinement returns within its budget even when Z3 does not stop in time; such a check
/// finishes on its own and is joined when the process exits, which can then take a few seconds). A
/// tool that has flushed its output may std::_Exit(code) when this is non-zero: that runs no static
/// destructors, so it cannot race with them.
int abandoned_checks_running();

}  // namespace ptir::verify
