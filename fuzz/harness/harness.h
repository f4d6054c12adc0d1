// The checks behind the libFuzzer targets, shared with the regression tests that replay their findings
// (tests/fuzz/regressions_test.cpp) and with the RapidCheck properties. Each returns an empty string when
// the case is fine, else a finding: what went wrong, then the program(s) involved.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/gen/generator.h"
#include "fuzz/harness/repeats.h"
#include "ir/program.h"
#include "rewriter/pass.h"

namespace ptir {
class IndexMapCache;
}

namespace ptir::fuzz {

/// What a differential did: input sets drawn, and how many of them were distinct (run).
struct DiffStats {
  int drawn = 0;
  int distinct = 0;
  int target_runs = 0;  ///< runs of the target: only where the source ran Ok (else nothing is compared)
};

/// How two programs are compared on concrete inputs.
struct DiffOptions {
  int runs = 32;  ///< input sets drawn: the first up to 11 are all-edge tensors, the rest random
  uint64_t seed = 1;
  double edge_bias = 0.4;  ///< fraction of edge values in the random inputs
  DiffStats* stats = nullptr;  ///< if set, gets the counts (added to what it holds)
  /// Index maps shared with other interpreter runs of the caller (ir/interp.h; a hit is compared in
  /// full, so any two programs can share one); nullptr: the call keeps its own.
  IndexMapCache* index_maps = nullptr;
};

/// Runs both entry functions on the same inputs (with fuzz_kernels()). Wherever `src` runs Ok, `tgt` must
/// run Ok with results equal under the spec (NaNs equal, +0 != -0). `src` failing with an Error (not UB,
/// not the loop bound) is a finding too: the interpreter refuses a verified program.
/// An input set equal to one drawn before in the same call (same types, same splat or dense form, same
/// bytes) is not run again: the interpreter is a function of the program, the inputs and the options
/// (these set no time budget; no state is kept between runs; rng ops draw from their seed attribute;
/// fuzz_kernels() are pure hashes), so a repeat gives the same results and cannot find anything the
/// first run did not. Small types repeat often: in fuzz_equiv's confirmations about 60% of the 256
/// drawn sets are repeats (docs/fuzzing.md, "Throughput, second round"). The target runs only where the
/// source ran Ok: where the source has UB or stops at the loop bound nothing is required of the target,
/// and running it anyway (a mutant's loop to its 4,096-iteration bound, 256 times) took one
/// fuzz_equiv input 20 s under ASan.
std::string differential(const Program& src, const Program& tgt, const DiffOptions& o = {});

/// How hard the pipeline's expensive checks (rewriter/checks.h) work; `on` false: no checks.
struct ChecksLevel {
  bool on = true;
  int random_trials = 4;  ///< random inputs replayed per rewrite
  int edge_trials = 11;   ///< all-edge inputs replayed per rewrite
  IndexMapCache* index_maps = nullptr;  ///< the replays' index maps, shared (see DiffOptions); nullptr: own
};

/// A copy of `p` after the default pipeline (patterns/passes.h kDefaultPipeline).
struct PipelineOutcome {
  std::unique_ptr<Program> program;
  PipelineResult result;
};
/// Runs `pipeline` on a copy of `p`; `expensive_checks` attaches rewriter/checks.h (with fuzz_kernels());
/// `worklist_seed` != 0 pops the canonicalize worklist in a seeded random order.
PipelineOutcome run_pipeline(const Program& p, ChecksLevel checks, uint64_t worklist_seed = 0,
                             std::string_view pipeline = {});

/// The pipeline properties on one program: it runs without a check failing, its output verifies and
/// keeps the interpreter's results, and a second run changes nothing.
std::string check_pipeline(const Program& p, ChecksLevel checks, const DiffOptions& diff = {});

/// The checker-soundness check on one pair: a PROVED verdict must survive `confirm_runs` interpreter
/// runs on edge-biased inputs, a REFUTED one must replay. `verdict` gets "PROVED", "REFUTED", ...
std::string check_pair(const Program& src, const Program& tgt, unsigned timeout_ms, int confirm_runs,
                       std::string* verdict = nullptr);

/// fuzz_equiv's budget per check (check_refinement's timeout_ms; Z3 counts it in resource units, so a
/// verdict does not depend on the machine's load). Measured natively on a grown corpus of 2,932 pairs
/// (docs/fuzzing.md, "Throughput, sixth round"): with 1 s, 2,829 were decided (PROVED or REFUTED) in
/// 20.3 s, 63% of it in the UNKNOWN checks that ran to the budget; with 250 ms, 2,827 in 10.6 s. The two
/// lost verdicts cost more than the hundred others together.
inline constexpr unsigned kEquivBudgetMs = 250;

/// libFuzzer cases: the bytes decide a program (and a mutant), then the checks above run.
/// With `repeats`, a program (fuzz_equiv: a program and its mutant) whose text that filter has seen
/// before is not checked again: the case returns "" once it is generated, or before generating it when
/// the input ends with the bytes an earlier case's generation read (fuzz/harness/repeats.h). The
/// libFuzzer targets pass one filter per process; the regression tests replay every input in full.
std::string fuzz_pipeline_case(const uint8_t* data, size_t size, RepeatFilter* repeats);
std::string fuzz_equiv_case(const uint8_t* data, size_t size, RepeatFilter* repeats);
inline std::string fuzz_pipeline_case(const uint8_t* data, size_t size) {
  return fuzz_pipeline_case(data, size, nullptr);
}
inline std::string fuzz_equiv_case(const uint8_t* data, size_t size) { return fuzz_equiv_case(data, size, nullptr); }

/// The RepeatFilter of a libFuzzer target's process. At exit it prints one line to stderr:
/// "TARGET repeats: N WHAT checked, R repeats skipped (P% of C cases; K known by their input's last bytes
/// before generation), T table restarts", WHAT being
/// `what` ("programs"; fuzz_prove: "rules"). scripts/fuzz reads it for its summary.
RepeatFilter& target_repeat_filter(const char* target, const char* what = "programs");

/// Generator options decided by the first bytes of a fuzz input (shared by the fuzz cases).
GenOptions fuzz_gen_options(Choices& c, int max_ops);

}  // namespace ptir::fuzz
