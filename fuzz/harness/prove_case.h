// The prover fuzzer's property (docs/fuzzing.md, "The prover fuzzer"): EVERY PROVED HOLDS. A generated
// rule (fuzz/gen/gen_rules.h) that loads is proved by the bounded prover (verify/prove/prove.h) and by
// the all-shape prover (verify/allshape/allshape.h); each PROVED verdict is then checked concretely:
// instances of the rule's source at the ranks and dims the verdict claims, the REAL pattern applied
// once (prove::apply_once), and the interpreter run on edge-biased inputs, comparing the source's and
// the rewritten program's results under the spec's equality (NaNs equal, +0 != -0; target UB or error
// where the source runs is a difference; fast-math flags through verify::confirm_difference).
// Used by the ctest property (tests/verify/fuzz_prove_test.cpp), campaigns and the libFuzzer target
// fuzz_prove.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/gen/gen_rules.h"
#include "fuzz/harness/repeats.h"

namespace ptir::fuzz {

struct ProveFuzzOptions {
  // The bounded prover (ptir prove's defaults for ranks and dims, fewer instances, smaller budgets).
  int bounded_instances = 48;
  int bounded_max_rank = 3;
  int bounded_max_dim = 3;
  unsigned bounded_timeout_ms = 2000;
  int bounded_campaign_runs = 1000;
  // The all-shape prover.
  unsigned allshape_timeout_ms = 2000;
  unsigned allshape_total_ms = 10000;
  // The concrete checks of a PROVED verdict: all-shape PROVED at root ranks 0..allshape_check_rank,
  // bounded PROVED at root ranks 0..bounded_max_rank; dims 0..check_max_dim for both.
  int allshape_check_rank = 6;
  int check_max_dim = 5;
  int check_instances = 28;  ///< instances tried per claim (those the rule does not fire on count for nothing)
  int check_runs = 16;       ///< interpreter input sets per fired instance (the first 4 all-edge)
  int64_t max_elements = 6000;  ///< instances with more input elements are regenerated smaller
  /// Also fail when the all-shape ENGINE alone says PROVED and the concrete check refutes it while the
  /// bounded prover did not prove the rule (ptir prove's safety net then reports UNKNOWN/DISAGREEMENT,
  /// so no user sees that PROVED). Off by default: such cases are counted in the outcome.
  bool engine_strict = false;
  /// A rule whose whole check takes more CPU time (all threads) is a finding (a hang).
  double max_rule_ms = 180000;
  uint64_t seed = 1;
};

/// What happened to one rule (for statistics).
struct ProveFuzzOutcome {
  bool loaded = false;
  std::string load_error;
  std::string bounded;    ///< PROVED, TESTED, REFUTED, ... ("" when not loaded)
  std::string allshape;   ///< the raw engine verdict: PROVED, BOUNDED ONLY, REFUTED, UNKNOWN
  bool allshape_engine_proved = false; ///< the engine's verdict is PROVED FOR ALL SHAPES
  bool allshape_final_proved = false;  ///< engine PROVED and bounded PROVED: what ptir prove prints as ALL SHAPES
  int checked = 0;        ///< concrete instances the rule fired on (over every claim checked)
  bool engine_disagreement = false;  ///< the engine's PROVED refuted concretely, caught by the safety net
  std::string engine_note;
  double ms = 0;
};

/// Runs the property on one rule file text (one rule). `role_conflict`: the generator planted a capture
/// in two attribute roles, so the text must NOT load. Returns "" when fine, else the finding: what
/// failed, the rule text and the concrete instance.
std::string check_rule_text(const std::string& text, bool role_conflict, const ProveFuzzOptions& o,
                            ProveFuzzOutcome* out = nullptr);

/// The libFuzzer case: the bytes decide a rule (generate_rule over BytesChoices), then check_rule_text
/// with small budgets. With `repeats`, a rule (its text and role_conflict) that filter has seen is not
/// checked again (fuzz/harness/repeats.h); the fuzz_prove target passes its process's filter.
std::string fuzz_prove_case(const uint8_t* data, size_t size, RepeatFilter* repeats = nullptr);

}  // namespace ptir::fuzz
