/// The fuzz harness's own checks on fixed programs: the differential runs each distinct input set once
/// and still reports a difference wherever one of the drawn sets shows it.
#include <gtest/gtest.h>

#include "fuzz/gen/bytes_choices.h"
#include "fuzz/gen/generator.h"
#include "fuzz/harness/harness.h"
#include "ir/text.h"

namespace ptir::fuzz {
namespace {

std::unique_ptr<Program> parse(std::string_view text) {
  ParseResult r = parse_program(text, "test.ptir");
  EXPECT_TRUE(r.ok()) << r.error << "\n" << text;
  return std::move(r.program);
}

constexpr std::string_view kIdentityI1 = "func @main(%x: tensor<i1>) -> tensor<i1> {\n  return %x\n}\n";
constexpr std::string_view kFalseI1 =
    "func @main(%x: tensor<i1>) -> tensor<i1> {\n"
    "  %c = constant dense<false> : tensor<i1> -> tensor<i1>\n"
    "  return %c\n}\n";

/// A scalar i1 has two values: of 32 drawn input sets, two are distinct and only those two run.
TEST(Differential, RunsEachDistinctInputSetOnce) {
  auto p = parse(kIdentityI1);
  DiffStats st;
  EXPECT_EQ(differential(*p, *p, {.runs = 32, .stats = &st}), "");
  EXPECT_EQ(st.drawn, 32);
  EXPECT_EQ(st.distinct, 2);
  // The confirmation's draw (check_pair: 256 sets, seed 7, half edge values).
  DiffStats confirm;
  EXPECT_EQ(differential(*p, *p, {.runs = 256, .seed = 7, .edge_bias = 0.5, .stats = &confirm}), "");
  EXPECT_EQ(confirm.drawn, 256);
  EXPECT_EQ(confirm.distinct, 2);
}

/// The target is wrong on one of the two values: the distinct sets include it, so the difference is found.
TEST(Differential, FindsADifferenceOnOneOfFewValues) {
  auto src = parse(kIdentityI1), tgt = parse(kFalseI1);
  const std::string d = differential(*src, *tgt, {.runs = 32});
  EXPECT_NE(d.find("differs"), std::string::npos) << d;
}

/// Wider tensors rarely repeat: every one of 64 drawn sets of four f32 elements past the all-edge ones
/// is distinct, and all of them run.
TEST(Differential, WideInputsAllRun) {
  auto p = parse("func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n  return %x\n}\n");
  DiffStats st;
  EXPECT_EQ(differential(*p, *p, {.runs = 64, .stats = &st}), "");
  EXPECT_EQ(st.drawn, 64);
  EXPECT_GE(st.distinct, 60);
}

/// The target runs only where the source ran Ok. A source that is UB on every input (x / 0) requires
/// nothing, so a target whose loop never ends is not run at all; where the source runs, a target stopped
/// by the loop bound is still a finding.
TEST(Differential, RunsTheTargetOnlyWhereTheSourceRuns) {
  constexpr std::string_view kLoop =
      "region ^c(%i: tensor<si32>) -> tensor<i1> {\n"
      "  %b = compare %i, dense<1> : tensor<si32> dir[lt] -> tensor<i1>\n"
      "  return %b\n}\n"
      "region ^b(%i: tensor<si32>) -> tensor<si32> {\n"
      "  %n = mul %i, dense<1> : tensor<si32> -> tensor<si32>\n"
      "  return %n\n}\n"
      "func @main(%x: tensor<si32>) -> tensor<si32> {\n"
      "  %r = while dense<0> : tensor<si32> cond[^c] body[^b] -> tensor<si32>\n"
      "  return %r\n}\n";
  auto never_ends = parse(kLoop);
  auto always_ub = parse(
      "func @main(%x: tensor<si32>) -> tensor<si32> {\n"
      "  %r = div %x, dense<0> : tensor<si32> -> tensor<si32>\n"
      "  return %r\n}\n");
  auto runs = parse("func @main(%x: tensor<si32>) -> tensor<si32> {\n  return %x\n}\n");
  DiffStats st;
  EXPECT_EQ(differential(*always_ub, *never_ends, {.runs = 32, .stats = &st}), "");
  EXPECT_GT(st.distinct, 1);
  EXPECT_EQ(st.target_runs, 0);
  DiffStats st2;
  const std::string d = differential(*runs, *never_ends, {.runs = 32, .stats = &st2});
  EXPECT_NE(d.find("the target has loop bound where the source runs"), std::string::npos) << d;
  EXPECT_EQ(st2.target_runs, 1);  // the first run is the finding
}

TEST(RepeatFilter, RemembersWhatItSawAndNothingElse) {
  RepeatFilter f(12);  // 4,096 slots: room for 2,048 texts
  EXPECT_FALSE(f.seen_before(""));
  EXPECT_TRUE(f.seen_before(""));
  // 2,000 distinct texts, differing in one byte, in length, or in the last of 8-byte words.
  std::vector<std::string> texts;
  for (int i = 0; i < 2000; ++i) {
    std::string t = "func @main() -> tensor<f32> {\n  return dense<" + std::to_string(i) + ".0> : tensor<f32>\n}\n";
    if (i % 3 == 1) t += std::string(static_cast<size_t>(i % 17), ' ');
    texts.push_back(t);
  }
  for (const std::string& t : texts) EXPECT_FALSE(f.seen_before(t)) << t;
  for (const std::string& t : texts) EXPECT_TRUE(f.seen_before(t)) << t;
  EXPECT_EQ(f.checked(), 2001u);
  EXPECT_EQ(f.repeats(), 2001u);
  EXPECT_EQ(f.restarts(), 0u);
  // A text and that text with a NUL after it are different texts.
  EXPECT_FALSE(f.seen_before(std::string_view("\0", 1)));
  EXPECT_FALSE(f.seen_before(std::string_view("a\0", 2)));
  EXPECT_TRUE(f.seen_before(std::string_view("a\0", 2)));
}

TEST(RepeatFilter, StartsOverWhenHalfFull) {
  RepeatFilter f(4);  // 16 slots: 8 texts, then the table is emptied
  for (int i = 0; i < 8; ++i) EXPECT_FALSE(f.seen_before(std::to_string(i)));
  EXPECT_EQ(f.restarts(), 0u);
  EXPECT_FALSE(f.seen_before("8"));  // the ninth empties the table and is its first text
  EXPECT_EQ(f.restarts(), 1u);
  EXPECT_TRUE(f.seen_before("8"));
  EXPECT_FALSE(f.seen_before("0"));  // forgotten: checked again, never skipped wrongly
}

TEST(Hash128, PiecesHashAsTheirConcatenation) {
  const std::string text = "func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n";
  for (size_t cut1 = 0; cut1 <= text.size(); cut1 += 3)
    for (size_t cut2 = cut1; cut2 <= text.size(); cut2 += 5) {
      Hash128Builder h;
      h.add(std::string_view(text).substr(0, cut1));
      h.add(std::string_view(text).substr(cut1, cut2 - cut1));
      h.add(std::string_view(text).substr(cut2));
      EXPECT_EQ(h.digest(), hash128(text)) << cut1 << " " << cut2;
    }
  EXPECT_NE(hash128(""), hash128(std::string_view("\0", 1)));
}

TEST(Hash128, LanesAreIndependent) {
  // Every one-byte change of a 40-byte text changes both lanes.
  std::string base(40, 'x');
  const Hash128 h0 = hash128(base);
  for (size_t i = 0; i < base.size(); ++i) {
    std::string t = base;
    t[i] = 'y';
    const Hash128 h = hash128(t);
    EXPECT_NE(h.a, h0.a) << i;
    EXPECT_NE(h.b, h0.b) << i;
  }
}

/// With a filter, a case whose program was checked before returns at once; without one, every call checks.
TEST(RepeatFilter, InputKeysMatchOnlyInputsEndingWithTheBytesRead) {
  RepeatFilter f(8);
  const std::vector<uint8_t> in = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_FALSE(f.input_seen_before(in.data(), in.size()));  // nothing remembered yet
  f.remember_input(in.data(), in.size(), 3);                // its generation read {6, 7, 8}
  // Another start, the same last three bytes, longer or shorter but longer than three: a repeat.
  const std::vector<uint8_t> other = {9, 9, 9, 9, 9, 6, 7, 8}, longer = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 7, 8},
                             four = {0, 6, 7, 8};
  EXPECT_TRUE(f.input_seen_before(other.data(), other.size()));
  EXPECT_TRUE(f.input_seen_before(longer.data(), longer.size()));
  EXPECT_TRUE(f.input_seen_before(four.data(), four.size()));
  // Exactly the three bytes: that generation would run dry where the first did not.
  const std::vector<uint8_t> three = {6, 7, 8};
  EXPECT_FALSE(f.input_seen_before(three.data(), three.size()));
  // One of the three bytes changed: not a repeat.
  const std::vector<uint8_t> changed = {1, 2, 3, 4, 5, 6, 0, 8};
  EXPECT_FALSE(f.input_seen_before(changed.data(), changed.size()));
  EXPECT_EQ(f.input_repeats(), 3u);
  EXPECT_EQ(f.repeats(), 3u);
  // A generation that read its whole input matches that input only (a longer one has more to read).
  f.remember_input(three.data(), three.size(), 3);
  EXPECT_TRUE(f.input_seen_before(three.data(), three.size()));
  const std::vector<uint8_t> five = {1, 2, 3};
  f.remember_input(five.data(), five.size(), 3);
  const std::vector<uint8_t> five_longer = {0, 1, 2, 3};
  EXPECT_FALSE(f.input_seen_before(five_longer.data(), five_longer.size()));
  EXPECT_TRUE(f.input_seen_before(five.data(), five.size()));
}

/// The soundness of skipping before generation, on the real generator: an input that the filter calls a
/// repeat generates exactly the program of the input whose key it matched.
TEST(RepeatFilter, AnInputKnownByItsLastBytesGeneratesTheSameProgram) {
  uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint8_t>(state >> 56);
  };
  const auto generate = [](const std::vector<uint8_t>& in, size_t* used) {
    BytesChoices c(in.data(), in.size());
    GenOptions o = fuzz_gen_options(c, 12);
    std::string text = generate_text(c, o).text;
    *used = c.used();
    return text;
  };
  int matched = 0, whole = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> in(static_cast<size_t>(1 + next() % 200 + (i % 3 == 0 ? 300 : 0)));
    for (uint8_t& b : in) b = next();
    size_t used = 0;
    const std::string text = generate(in, &used);
    ASSERT_LE(used, in.size());
    RepeatFilter f(10);
    f.remember_input(in.data(), in.size(), used);
    if (used == in.size()) {  // read whole: the same input only
      ++whole;
      EXPECT_TRUE(f.input_seen_before(in.data(), in.size())) << i;
      std::vector<uint8_t> longer = in;
      longer.insert(longer.begin(), next());
      EXPECT_FALSE(f.input_seen_before(longer.data(), longer.size())) << i;
      continue;
    }
    // Change every byte before the ones read, and put others in front.
    std::vector<uint8_t> mutated = in;
    for (size_t k = 0; k + used < in.size(); ++k) mutated[k] = static_cast<uint8_t>(mutated[k] ^ 0x5A);
    mutated.insert(mutated.begin(), static_cast<size_t>(1 + i % 5), next());
    ASSERT_TRUE(f.input_seen_before(mutated.data(), mutated.size())) << i;
    size_t used2 = 0;
    EXPECT_EQ(generate(mutated, &used2), text) << i;
    EXPECT_EQ(used2, used) << i;
    ++matched;
    // One of the bytes read changed: never a repeat by its key.
    if (used > 0) {
      std::vector<uint8_t> flipped = in;
      flipped[in.size() - 1 - (static_cast<size_t>(i) % used)] ^= 1;
      EXPECT_FALSE(f.input_seen_before(flipped.data(), flipped.size())) << i;
    }
  }
  EXPECT_EQ(matched + whole, 300);
  EXPECT_GT(whole, 0);     // some inputs were read whole (short ones)
  EXPECT_GT(matched, 150);  // and most were not
}

TEST(RepeatFilter, FuzzCasesSkipOnlyRepeats) {
  const std::vector<uint8_t> a = {7, 1, 200, 3, 99, 14, 5, 250, 31, 8, 64, 2, 111, 42, 9, 17};
  std::vector<uint8_t> b = a;
  b[1] = 3;  // another profile: another program
  RepeatFilter f;
  EXPECT_EQ(fuzz_pipeline_case(a.data(), a.size(), &f), "");
  EXPECT_EQ(fuzz_pipeline_case(a.data(), a.size(), &f), "");
  EXPECT_EQ(fuzz_pipeline_case(b.data(), b.size(), &f), "");
  EXPECT_EQ(f.checked(), 2u);
  EXPECT_EQ(f.repeats(), 1u);
  // fuzz_equiv: the program and its mutant are the key.
  RepeatFilter e;
  EXPECT_EQ(fuzz_equiv_case(a.data(), a.size(), &e), "");
  ASSERT_EQ(e.checked(), 1u) << "these bytes should give a mutant";
  EXPECT_EQ(fuzz_equiv_case(a.data(), a.size(), &e), "");
  EXPECT_EQ(e.checked(), 1u);
  EXPECT_EQ(e.repeats(), 1u);
}

}  // namespace
}  // namespace ptir::fuzz
