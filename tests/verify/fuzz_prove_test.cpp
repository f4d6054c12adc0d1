// The prover fuzzer (fuzz/harness/prove_case.h, docs/fuzzing.md "The prover fuzzer") under ctest:
// fixed seeds, label soundness, well under 60 s. The same test is the campaign driver:
//   PTIR_FUZZ_PROVE_SECONDS=1200 [PTIR_FUZZ_PROVE_SEED=S] [PTIR_FUZZ_PROVE_VERBOSE=1, or 2 to print each rule]
//     build/release/tests/ptir_fuzz_prove_tests --gtest_filter='FuzzProve.EveryProvedHolds'
// runs rules of seeds S, S+1, ... until the time is up, prints every finding and the totals, and fails
// if anything was found.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz/gen/gen_rules.h"
#include "fuzz/harness/prove_case.h"
#include "rewriter/rules/rules.h"

namespace ptir::fuzz {
namespace {

uint64_t env_u64(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

std::string rule_name(uint64_t seed) { return "fuzz_" + std::to_string(seed); }

// The generator: every text is one rule that loads or fails with a located message; a planted capture in
// two attribute roles never loads; every op family and feature of the language shows up.
TEST(FuzzProve, GeneratedRulesLoadOrAreRejectedWithAMessage) {
  int loaded = 0, conflicts = 0, errors = 0;
  std::map<std::string, int> seen;
  const char* features[] = {"transpose(", "broadcast_to(", "slice(", "tile(", "concat(", "reshape(", "reduce_sum(",
                            "reduce_max(", "reduce_min(", "neg(", "abs(", "add(", "sub(", "mul(", "maximum(",
                            "minimum(", "select(", "compare(", "cast(", "const($", "splat(", " as %", ": $T",
                            "assumes", " where ", "not ", "keepdims", "accum", "inverse_perm(", "compose_perm(",
                            "add_ints(", "composes_to_identity(", "axes_all_size(", "exact_accum(", "all i < rank(",
                            "i == $", "with_at(", "[i < rank(", "rank(%"};
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    PrngChoices c(seed);
    const GeneratedRule g = generate_rule(c, {}, rule_name(seed));
    EXPECT_GE(g.source_ops, 1) << g.text;
    EXPECT_LE(g.source_ops, 8) << g.text;
    auto r = rules::load_rule_text(g.text, "gen.rules");
    if (auto* e = std::get_if<rules::RuleError>(&r)) {
      ++errors;
      EXPECT_FALSE(e->message.empty()) << g.text;
      EXPECT_GT(e->loc.line, 0u) << g.text;
      if (g.role_conflict) {
        ++conflicts;
        EXPECT_NE(e->message.find("a captured attribute has one role"), std::string::npos)
            << e->format() << "\n" << g.text;
      }
      continue;
    }
    EXPECT_FALSE(g.role_conflict) << "a capture in two roles loaded:\n" << g.text;
    ASSERT_EQ(std::get<rules::RuleFile>(r).rules.size(), 1u) << g.text;
    ++loaded;
    for (const char* f : features)
      if (g.text.find(f) != std::string::npos) ++seen[f];
  }
  std::printf("2000 generated rules: %d load, %d rejected (%d of them planted role conflicts)\n", loaded, errors,
              conflicts);
  EXPECT_GE(loaded, 1000);
  EXPECT_GE(conflicts, 30);
  for (const char* f : features) EXPECT_GT(seen[f], 0) << "no loaded rule has " << f;
}

// The property: every PROVED (bounded, and all-shape after ptir prove's safety net) holds concretely.
TEST(FuzzProve, EveryProvedHolds) {
  const uint64_t seconds = env_u64("PTIR_FUZZ_PROVE_SECONDS", 0);
  const uint64_t base = env_u64("PTIR_FUZZ_PROVE_SEED", 1);
  const bool verbose = env_u64("PTIR_FUZZ_PROVE_VERBOSE", 0) != 0;
  // ctest: a fixed set of seeds (chosen so that both kinds of PROVED occur; about 25 s here).
  const uint64_t count = seconds ? UINT64_MAX : env_u64("PTIR_FUZZ_PROVE_RULES", 60);
  ProveFuzzOptions o;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  int tried = 0, loaded = 0, bounded_proved = 0, final_proved = 0, engine_proved = 0, engine_disagreements = 0;
  int checked_bounded = 0, checked_all = 0;
  double slowest = 0;
  std::map<std::string, int> bounded, all;
  std::vector<std::string> findings;
  for (uint64_t seed = base; seed - base < count; ++seed) {
    if (seconds && elapsed() >= static_cast<double>(seconds)) break;
    PrngChoices c(seed);
    const GeneratedRule g = generate_rule(c, {}, rule_name(seed));
    o.seed = seed;
    ProveFuzzOutcome out;
    const std::string f = check_rule_text(g.text, g.role_conflict, o, &out);
    ++tried;
    slowest = std::max(slowest, out.ms);
    if (out.loaded) {
      ++loaded;
      ++bounded[out.bounded];
      ++all[out.allshape];
      bounded_proved += out.bounded == "PROVED";
      engine_proved += out.allshape_engine_proved;
      final_proved += out.allshape_final_proved;
      if (out.bounded == "PROVED") checked_bounded += out.checked > 0;
      if (out.allshape_final_proved) checked_all += out.checked > 0;
      if (out.engine_disagreement) {
        ++engine_disagreements;
        std::printf("seed %llu: engine disagreement caught by the safety net (bounded %s):\n%s\n%s\n",
                    static_cast<unsigned long long>(seed), out.bounded.c_str(), out.engine_note.c_str(), g.text.c_str());
      }
    }
    if (verbose)
      std::printf("seed %llu %.0f ms: %s / %s, %d fired instances checked; %s\n", static_cast<unsigned long long>(seed),
                  out.ms, out.loaded ? out.bounded.c_str() : "not loaded", out.allshape.c_str(), out.checked,
                  g.mutation.c_str());
    if (verbose && env_u64("PTIR_FUZZ_PROVE_VERBOSE", 0) >= 2) std::printf("%s", g.text.c_str());
    if (!f.empty()) {
      findings.push_back("seed " + std::to_string(seed) + ": " + f);
      std::printf("FINDING (seed %llu):\n%s\n", static_cast<unsigned long long>(seed), f.c_str());
    }
    std::fflush(stdout);
  }
  std::string b, a;
  for (const auto& [k, v] : bounded) b += " " + k + " " + std::to_string(v);
  for (const auto& [k, v] : all) a += " " + k + " " + std::to_string(v);
  std::printf("prover fuzzer: %d rules tried (seeds %llu..), %d loaded, %.0f s, slowest %.1f s\n  bounded:%s\n  "
              "all shapes (engine):%s\n  PROVED checked concretely: bounded %d (%d fired), all shapes %d (%d fired); "
              "engine-only PROVED %d, engine disagreements caught by the safety net %d\n  findings: %zu\n",
              tried, static_cast<unsigned long long>(base), loaded, elapsed(), slowest / 1000, b.c_str(), a.c_str(),
              bounded_proved, checked_bounded, final_proved, checked_all, engine_proved - final_proved,
              engine_disagreements, findings.size());
  EXPECT_TRUE(findings.empty()) << findings.size() << " findings; the first:\n" << (findings.empty() ? "" : findings[0]);
  if (!seconds && count >= 60) {
    // Not vacuous: both kinds of PROVED occurred and were checked on instances the rule fired on.
    EXPECT_GT(checked_bounded, 0);
    EXPECT_GT(checked_all, 0);
  }
}

// The libFuzzer target's seeds (corpus/fuzz/fuzz_prove/) through the same case it runs.
TEST(FuzzProve, SeedsReplay) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PTIR_SOURCE_DIR) / "corpus" / "fuzz" / "fuzz_prove";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(fuzz_prove_case(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "") << e.path();
    ++n;
  }
  EXPECT_GE(n, 5);
}

}  // namespace
}  // namespace ptir::fuzz
