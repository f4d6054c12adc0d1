// The permutation-word premise of the rank argument (verify/allshape/words.cpp, docs/verification.md
// "The rank bound"): every capture must be read through one word of permutations on both sides, after
// the identities the positive constraints state and free reduction. Words equal only in small symmetric
// groups (p·p = 1 for two axes, p^6 = 1 up to three) must be told apart.
#include <gtest/gtest.h>

#include <string>

#include "rewriter/rules/rules.h"
#include "verify/allshape/internal.h"

namespace ptir::allshape::detail {
namespace {

/// perm_words_premise of the only rule of `text`; `every_capture` false: as for a rule without a
/// transpose (only the one-frame constraints' arguments are compared).
std::string premise(const std::string& text, bool every_capture = true) {
  auto r = rules::load_rule_text(text, "words_test.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) {
    ADD_FAILURE() << e->format();
    return "<not loaded>";
  }
  const rules::Rule& rule = std::get<rules::RuleFile>(r).rules.at(0);
  return perm_words_premise(rule, facts_of(rule), every_capture);
}
std::string frame_premise(const std::string& text) { return premise(text, false); }

// Without a transpose the one-frame constraints are still checked (they were not: an adversarial
// review): a reduction's axes list names axes of its operand, so relating it to the reduction's result
// mixes two frames; two values of one type are in one frame across broadcast_to, reshape and reductions
// (equal types make those the identity on axes), not across a dot_general side.
TEST(AllShapeWords, OneFrameConstraintsWithoutATranspose) {
  EXPECT_NE(frame_premise("rule r : reduce_sum(%x) {axes = $a, keepdims = false} : $T as %s where "
                          "axes_all_size($T, $a, 1), exact_accum(%s) => reshape(%x) : $T"),
            "");
  EXPECT_EQ(frame_premise("rule r : reduce_sum(%x) {axes = $a} : $T as %s where axes_all_size(%x, $a, 1), "
                          "exact_accum(%s) => reshape(%x) : $T"),
            "");
  EXPECT_EQ(frame_premise("rule b : broadcast_to(%x) : $T where same_type(%x, $T) => %x"), "");
  EXPECT_EQ(frame_premise("rule b : reshape(%x) : $T where same_type(%x, $T) => %x"), "");
  EXPECT_NE(frame_premise("rule d : dot_general(%x, %y) {contract_lhs = $cl, contract_rhs = $cr} : $T as %d where "
                          "same_type(%x, $T), not has_attr(%d, batch_lhs), not has_attr(%d, accum) => %x"),
            "");
}

TEST(AllShapeWords, AcceptsTransposePairAndComposedPermutations) {
  EXPECT_EQ(premise("rule transpose_pair : transpose(transpose(%x) {perm = $p}) {perm = $q} "
                    "where composes_to_identity($p, $q) => %x"),
            "");
  EXPECT_EQ(premise("rule tt : transpose(transpose(%x) {perm = $p}) {perm = $q} => transpose(%x) {perm = compose_perm($p, $q)}"),
            "");
  EXPECT_EQ(premise("rule id : transpose(%x) {perm = $p} where is_identity_perm($p) => %x"), "");
  // p.p.p^-1 reduces freely to p.
  EXPECT_EQ(premise("rule inv : transpose(%x) {perm = $p} => "
                    "transpose(transpose(transpose(%x) {perm = $p}) {perm = $p}) {perm = inverse_perm($p)}"),
            "");
}

TEST(AllShapeWords, RejectsWordsEqualOnlyInSmallSymmetricGroups) {
  // p.p = 1 for every permutation of two axes, not of three.
  EXPECT_EQ(premise("rule pp : transpose(transpose(%x) {perm = $p}) {perm = $p} => %x"),
            "%x is read through the permutation words p^2 and 1, which differ as words: its axes may move "
            "differently at some rank (bounded only)");
  // The wrong order of a composition: q then p is not p then q.
  EXPECT_NE(premise("rule qp : transpose(transpose(%x) {perm = $p}) {perm = $q} => transpose(%x) {perm = compose_perm($q, $p)}"),
            "");
}

TEST(AllShapeWords, RejectsAPowerSixWordMismatchOfPerAxisFacts) {
  // tests/golden/prove/Inputs/perm_power_slice.rules: %x is read through p^6 on both sides, but the
  // slice's type $T (and its starts) above the transposes on one side and below them on the other.
  const std::string t6 = "transpose(transpose(transpose(transpose(transpose(transpose(";
  const std::string p6 = ") {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}";
  const std::string why = premise("rule perm6_slice : slice(" + t6 + "%x" + p6 + ") {starts = $s} : $T => " + t6 +
                                  "slice(%x) {starts = $s} : $T" + p6);
  EXPECT_EQ(why.rfind("$T is read through the permutation words 1 and p^6, which differ as words", 0), 0u) << why;
}

// Found by a red team (docs only): both rules were PROVED FOR ALL SHAPES and are wrong at rank 7
// (a 7-cycle p has p^60 = p^4), where the canary (ranks B+1..5) does not look. Here with p^6 (wrong
// from rank 4).
TEST(AllShapeWords, ALiteralBoundWithAsIsReadLikeAnInput) {
  const std::string t6 = "transpose(transpose(transpose(transpose(transpose(transpose(";
  const std::string p6 = ") {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}";
  const std::string why =
      premise("rule lit [bounded] : add(" + t6 + "%x" + p6 + ", const($c) as %k) => " + t6 + "add(%x, %k)" + p6);
  EXPECT_EQ(why.rfind("%k is read through the permutation words 1 and p^6, which differ as words", 0), 0u) << why;
  // The same with an op bound with `as`.
  const std::string why2 =
      premise("rule opas [bounded] : add(" + t6 + "%x" + p6 + ", neg(%y) as %k) => " + t6 + "add(%x, %k)" + p6);
  EXPECT_NE(why2, "");
}

// Found by a red team: a literal concat axis moved across p^60 was PROVED FOR ALL SHAPES.
TEST(AllShapeWords, ALiteralAxisIsReadInItsNodesFrame) {
  const std::string t6 = "transpose(transpose(transpose(transpose(transpose(transpose(";
  const std::string p6 = ") {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}";
  const std::string why = premise("rule cat [bounded] : " + t6 + "concat(%x, %y) {axis = 0}" + p6 + " => concat(" + t6 +
                                  "%x" + p6 + ", " + t6 + "%y" + p6 + ") {axis = 0}");
  EXPECT_EQ(why.rfind("the literal axis [0] is read through the permutation words p^6 and 1, which differ as words", 0), 0u) << why;
  // The same literal axis in one frame on both sides: fine.
  EXPECT_EQ(premise("rule cat2 : neg(concat(%x, %y) {axis = 0}) => concat(neg(%x), neg(%y)) {axis = 0}"), "");
}

TEST(AllShapeWords, AConstraintRelatingPerAxisFactsReadsThemInOneFrame) {
  const std::string t6 = "transpose(transpose(transpose(transpose(transpose(transpose(";
  const std::string p6 = ") {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}) {perm = $p}";
  const std::string why = premise("rule c [bounded] : reduce_sum(" + t6 + "%x" + p6 +
                                  " as %t) {axes = $a, keepdims = false} : $T as %r where axes_all_size(%x, $a, 1), "
                                  "not has_attr(%r, accum) => reshape(%t) : $T");
  EXPECT_EQ(why.rfind("%x and $a are related by axes_all_size but reach the root through the permutation words "
                      "p^6.#reduce($a;false) and #reduce($a;false)",
                      0),
            0u)
      << why;
  // Read in one frame (both through p): fine.
  EXPECT_EQ(premise("rule ok : add(transpose(%x) {perm = $p}, transpose(%y) {perm = $p}) where same_shape(%x, %y) => "
                    "transpose(add(%x, %y)) {perm = $p}"),
            "");
}

TEST(AllShapeWords, CollectsTheWordsOfEveryCaptureOccurrence) {
  auto r = rules::load_rule_text("rule w : slice(transpose(%x) {perm = $p}) {starts = $s} : $T => %x", "w.rules");
  ASSERT_TRUE(std::holds_alternative<rules::RuleFile>(r));
  const rules::Rule& rule = std::get<rules::RuleFile>(r).rules.at(0);
  std::map<std::string, std::vector<std::vector<Tok>>> words;
  std::vector<std::vector<Tok>> path;
  int anon = 0;
  collect_words(*rule.source, path, words, anon);
  // Leaf to root: %x through p; the starts and $T at the slice (no move above it).
  EXPECT_EQ(words["%x"], (std::vector<std::vector<Tok>>{{Tok{"p", false}}}));
  EXPECT_EQ(words["$s"], (std::vector<std::vector<Tok>>{{}}));
  EXPECT_EQ(words["$T"], (std::vector<std::vector<Tok>>{{}}));
  EXPECT_EQ(anon, 0);
}

TEST(AllShapeWords, SameShapeAcrossReductionsOverOtherAxesIsTwoFrames) {
  // Two reductions over different captured axes move their operands' axes apart: same_shape between
  // the operands relates axes of two frames (their letters used to be one "#reduce", and dropped).
  const std::string why =
      premise("rule r [bounded] : add(broadcast_to(reduce_max(%x) {axes = $a, keepdims = false} as %p) : $U, "
              "broadcast_to(reduce_max(%y) {axes = $b, keepdims = false} as %q) : $U) where same_shape(%x, %y) "
              "=> add(broadcast_to(%q) : $U, broadcast_to(%p) : $U)");
  EXPECT_NE(why.find("%x and %y are related by same_shape"), std::string::npos) << why;
  // Over the same captured axes they stay in one frame.
  EXPECT_EQ(premise("rule s [bounded] : add(broadcast_to(reduce_max(%x) {axes = $a, keepdims = false} as %p) : $U, "
                    "broadcast_to(reduce_max(%y) {axes = $a, keepdims = false} as %q) : $U) where same_shape(%x, %y) "
                    "=> add(broadcast_to(%q) : $U, broadcast_to(%p) : $U)"),
            "");
  // A node tied to its own operand is the identity on axes: one frame.
  EXPECT_EQ(frame_premise("rule b : broadcast_to(%x) : $T where same_type(%x, $T) => %x"), "");
  EXPECT_EQ(frame_premise("rule t : reshape(%x) : $T where same_type(%x, $T) => %x"), "");
}

}  // namespace
}  // namespace ptir::allshape::detail
