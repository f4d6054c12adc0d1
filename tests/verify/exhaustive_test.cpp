/// The exhaustive backend (verify/exhaustive/): its scope, PROVED only after every case ran, a refutation
/// that replays in the interpreter (with the first differing case), target UB where the source is
/// defined, source UB excusing the target, transcendentals never PROVED, the deadline giving no verdict,
/// and that check_refinement uses it. Every sweep here is 2^16 cases or fewer (milliseconds).
#include <gtest/gtest.h>

#include <string>

#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/exhaustive/exhaustive.h"
#include "verify/refine.h"

namespace ptir::verify {
namespace {

std::unique_ptr<Program> parse(const std::string& text) {
  auto r = parse_program(text, "<test>");
  EXPECT_TRUE(r.ok()) << r.error << "\n" << text;
  if (!r.ok()) return nullptr;
  auto d = verify_program(*r.program);
  EXPECT_TRUE(d.empty()) << (d.empty() ? "" : d[0].message) << "\n" << text;
  return std::move(r.program);
}

std::string fn(const std::string& params, const std::string& ret_type, const std::string& body) {
  return "func @f(" + params + ") -> " + ret_type + " {\n" + body + "  return %r\n}\n";
}

ExhaustiveResult run(const Program& s, const Program& t) { return check_exhaustive(s, s.entry(), t, t.entry()); }

TEST(Exhaustive, F16SqrtThroughF32IsProvedOverEveryInput) {
  auto s = parse(fn("%x: tensor<f16, 3>", "tensor<f16, 3>", "  %r = sqrt %x -> tensor<f16, 3>\n"));
  auto t = parse(fn("%x: tensor<f16, 3>", "tensor<f16, 3>",
                    "  %w = cast %x -> tensor<f32, 3>\n  %q = sqrt %w -> tensor<f32, 3>\n"
                    "  %r = cast %q -> tensor<f16, 3>\n"));
  ExhaustiveResult x = run(*s, *t);
  EXPECT_EQ(x.kind, ExhaustiveResult::Kind::Proved) << x.reason;
  EXPECT_EQ(x.bits, 16);
  EXPECT_EQ(x.cases, 65536u);
  Verdict v = check_refinement(*s, *t);
  ASSERT_TRUE(v.proved());
  EXPECT_EQ(std::get<Proved>(v.v).note, "exhaustive, 65536 cases");
}

TEST(Exhaustive, Bf16ThroughF16IsRefutedWithTheFirstDifferingInput) {
  // bf16 has 8 exponent bits, f16 5: computing a bf16 negation through f16 loses large values.
  auto s = parse(fn("%x: tensor<bf16, 2>", "tensor<bf16, 2>", "  %r = neg %x -> tensor<bf16, 2>\n"));
  auto t = parse(fn("%x: tensor<bf16, 2>", "tensor<bf16, 2>",
                    "  %w = cast %x -> tensor<f16, 2>\n  %q = neg %w -> tensor<f16, 2>\n"
                    "  %r = cast %q -> tensor<bf16, 2>\n"));
  ExhaustiveResult x = run(*s, *t);
  ASSERT_EQ(x.kind, ExhaustiveResult::Kind::Refuted);
  ASSERT_EQ(x.input_bits.size(), 1u);
  // Case order is the bf16 bit pattern: 0x0000 (+0) survives, 0x0001 (about 9e-41, far below f16's
  // smallest subnormal) becomes -0 instead of its negation: the first difference.
  EXPECT_EQ(x.input_bits[0], 1u);
  Verdict v = check_refinement(*s, *t, CheckOptions{.fast_pass_runs = 0});
  ASSERT_TRUE(v.refuted());
  const Refuted& r = std::get<Refuted>(v.v);
  EXPECT_EQ(r.found_by, "exhaustive (65536 cases)");
  EXPECT_EQ(r.inputs[0].bits(0), 1u);
  EXPECT_FALSE(results_equal(r.src.results[0], r.tgt.results[0]));
}

TEST(Exhaustive, TargetUBWhereTheSourceIsDefinedIsADifference) {
  auto s = parse(fn("%a: tensor<si8, 2>, %b: tensor<si8, 2>", "tensor<si8, 2>",
                    "  %r = sub %a, %b -> tensor<si8, 2>\n"));
  auto t = parse(fn("%a: tensor<si8, 2>, %b: tensor<si8, 2>", "tensor<si8, 2>",
                    "  %q = div %a, %b -> tensor<si8, 2>\n  %r = sub %a, %b -> tensor<si8, 2>\n"));
  ExhaustiveResult x = run(*s, *t);
  ASSERT_EQ(x.kind, ExhaustiveResult::Kind::Refuted);
  EXPECT_EQ(x.input_bits[1], 0u);  // b = 0: the target divides by zero
  EXPECT_EQ(x.input_bits[0], 0u);  // the first such case
}

TEST(Exhaustive, SourceUBExcusesTheTarget) {
  // The source has UB where b == 0 (and at MIN / -1); elsewhere it returns a, as the target does
  // everywhere: the target refines it.
  auto s = parse(fn("%a: tensor<si8, 2>, %b: tensor<si8, 2>", "tensor<si8, 2>",
                    "  %q = div %a, %b -> tensor<si8, 2>\n  %z = mul %q, dense<0> : tensor<si8, 2> -> tensor<si8, 2>\n"
                    "  %r = add %z, %a -> tensor<si8, 2>\n"));
  auto t = parse(fn("%a: tensor<si8, 2>, %b: tensor<si8, 2>", "tensor<si8, 2>",
                    "  %r = add %a, dense<0> : tensor<si8, 2> -> tensor<si8, 2>\n"));
  ExhaustiveResult x = run(*s, *t);
  EXPECT_EQ(x.kind, ExhaustiveResult::Kind::Proved) << x.reason;
  EXPECT_EQ(x.bits, 16);
  // The other direction: the former target as source is defined where b == 0, the former source is not.
  ExhaustiveResult y = run(*t, *s);
  EXPECT_EQ(y.kind, ExhaustiveResult::Kind::Refuted);
}

TEST(Exhaustive, TranscendentalsAreNeverProved) {
  auto s = parse(fn("%x: tensor<f16, 2>", "tensor<f16, 2>", "  %r = exp %x -> tensor<f16, 2>\n"));
  auto t = parse(fn("%x: tensor<f16, 2>", "tensor<f16, 2>", "  %r = exp %x -> tensor<f16, 2>\n"));
  ExhaustiveResult x = run(*s, *t);
  EXPECT_EQ(x.kind, ExhaustiveResult::Kind::Inconclusive);
  EXPECT_NE(x.reason.find("libm"), std::string::npos) << x.reason;
}

TEST(Exhaustive, RsqrtAsOneOverSqrtIsRefutedInF16) {
  auto s = parse(fn("%x: tensor<f16, 2>", "tensor<f16, 2>", "  %r = rsqrt %x -> tensor<f16, 2>\n"));
  auto t = parse(fn("%x: tensor<f16, 2>", "tensor<f16, 2>",
                    "  %q = sqrt %x -> tensor<f16, 2>\n  %r = div dense<1.0> : tensor<f16, 2>, %q -> tensor<f16, 2>\n"));
  ExhaustiveResult x = run(*s, *t);
  EXPECT_EQ(x.kind, ExhaustiveResult::Kind::Refuted);
}

TEST(Exhaustive, UnaryFactsOfTheDoubleRoundingLemma) {
  // verify/encode/body.cpp encodes cast(op(cast(a) : f32)) : D as op(a) in D; the binary facts are
  // tests/verify/check_lemmas.sh (2^32 cases each), the unary ones are checked here over every input.
  for (const char* d : {"f16", "bf16"})
    for (const char* op : {"sqrt", "reciprocal", "neg", "abs"}) {
      const std::string t = std::string("tensor<") + d + ", 2>", w = "tensor<f32, 2>";
      auto s = parse(fn("%x: " + t, t, std::string("  %r = ") + op + " %x -> " + t + "\n"));
      auto g = parse(fn("%x: " + t, t, "  %a = cast %x -> " + w + "\n  %q = " + op + " %a -> " + w +
                                          "\n  %r = cast %q -> " + t + "\n"));
      ExhaustiveResult x = run(*s, *g);
      EXPECT_EQ(x.kind, ExhaustiveResult::Kind::Proved) << op << " " << d << ": " << x.reason;
      EXPECT_EQ(x.cases, 65536u);
    }
}

TEST(Exhaustive, ScopeNamesWhatIsOutside) {
  auto wide = parse(fn("%x: tensor<f32, 2>", "tensor<f32, 2>", "  %r = neg %x -> tensor<f32, 2>\n"));
  EXPECT_NE(exhaustive_scope(*wide, wide->entry(), *wide, wide->entry()).find("wider than 16 bits"), std::string::npos);
  auto red = parse(fn("%x: tensor<f16, 2>", "tensor<f16>", "  %r = reduce_sum %x axes[0] -> tensor<f16>\n"));
  EXPECT_NE(exhaustive_scope(*red, red->entry(), *red, red->entry()).find("not an elementwise op"), std::string::npos);
  auto three = parse(fn("%a: tensor<f16, 2>, %b: tensor<f16, 2>, %c: tensor<si8, 2>", "tensor<f16, 2>",
                        "  %r = add %a, %b -> tensor<f16, 2>\n"));
  EXPECT_NE(exhaustive_scope(*three, three->entry(), *three, three->entry()).find("40 input bits"), std::string::npos);
  auto none = parse("func @f() -> tensor<f16, 2> {\n  %r = neg dense<1.0> : tensor<f16, 2> -> tensor<f16, 2>\n  return %r\n}\n");
  EXPECT_EQ(exhaustive_scope(*none, none->entry(), *none, none->entry()), "no parameters");
  auto fm = parse("func @f(%x: tensor<f16, 2>) -> tensor<f16, 2> attributes[fastmath[nnan]] {\n"
                  "  %r = neg %x -> tensor<f16, 2>\n  return %r\n}\n");
  EXPECT_NE(exhaustive_scope(*fm, fm->entry(), *fm, fm->entry()).find("fast-math"), std::string::npos);
}

TEST(Exhaustive, APassedDeadlineGivesNoVerdict) {
  auto s = parse(fn("%a: tensor<f16, 2>, %b: tensor<f16, 2>", "tensor<f16, 2>", "  %r = add %a, %b -> tensor<f16, 2>\n"));
  ExhaustiveOptions o;
  o.deadline = std::chrono::steady_clock::now();
  ExhaustiveResult x = check_exhaustive(*s, s->entry(), *s, s->entry(), o);
  EXPECT_EQ(x.kind, ExhaustiveResult::Kind::Inconclusive);
  EXPECT_LT(x.cases, uint64_t{1} << 32);
}

}  // namespace
}  // namespace ptir::verify
