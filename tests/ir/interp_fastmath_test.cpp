// Fast-math flags: text form (parse, canonical print, errors), Program::fastmath_of for regions, and the
// interpreter's nnan/ninf UB and nsz zero signs (docs/semantics.md "Fast-math flags").
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

constexpr uint64_t kNaN = 0x7FC00000, kInf = 0x7F800000, kNegInf = 0xFF800000, kNegZero = 0x80000000;
constexpr uint64_t kOne = 0x3F800000, kMax = 0x7F7FFFFF;

/// `func @main(%a: f32x2, %b: f32x2) -> f32x2 attributes[fastmath[FLAGS]] { %r = STMT ... }`.
std::string flagged(const std::string& flags, const std::string& stmt, const std::string& result = "tensor<f32, 2>") {
  return "func @main(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> " + result +
         (flags.empty() ? "" : " attributes[fastmath[" + flags + "]]") + " {\n  %r = " + stmt + " -> " + result +
         "\n  return %r\n}\n";
}

RunResult run2(const std::string& text, uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1,
               const InterpOptions& opts = {}) {
  return run_text(text, {from_bits("tensor<f32, 2>", {a0, a1}), from_bits("tensor<f32, 2>", {b0, b1})}, opts);
}

TEST(FastMathText, ParsePrintCanonicalOrder) {
  ParseResult pr = parse_program(flagged("afn, reassoc, nsz, contract, ninf, nnan", "add %a, %b"), "t.ptir");
  ASSERT_TRUE(pr.ok()) << pr.error;
  const Body& f = pr.program->body(pr.program->entry());
  EXPECT_TRUE(f.fastmath.has(FastMathFlag::NNaN));
  EXPECT_TRUE(f.fastmath.has(FastMathFlag::NInf));
  EXPECT_TRUE(f.fastmath.has(FastMathFlag::NSZ));
  EXPECT_TRUE(f.fastmath.has(FastMathFlag::Reassoc));
  EXPECT_TRUE(f.fastmath.has(FastMathFlag::Contract));
  EXPECT_TRUE(f.fastmath.has(FastMathFlag::AFn));
  const std::string printed = print_program(*pr.program);
  EXPECT_NE(printed.find("attributes[fastmath[nnan, ninf, nsz, reassoc, contract, afn]] {"), std::string::npos) << printed;
  ParseResult again = parse_program(printed, "t2.ptir");
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_EQ(print_program(*again.program), printed);
  // No flags: nothing printed.
  ParseResult plain = parse_program(flagged("", "add %a, %b"), "t.ptir");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(print_program(*plain.program).find("attributes"), std::string::npos);
}

TEST(FastMathText, Errors) {
  struct Bad {
    std::string flags, message;
  };
  for (const Bad& b : {Bad{"nnan, fast", "t.ptir:1:96: error: unknown fast-math flag 'fast'"},
                       Bad{"nsz, nnan, nsz", "t.ptir:1:101: error: duplicate fast-math flag 'nsz'"},
                       Bad{"", "t.ptir:1:90: error: expected a fast-math flag"}}) {
    std::string text = "func @main(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> tensor<f32, 2> attributes[fastmath[" +
                       b.flags + "]] {\n  return %a\n}\n";
    ParseResult pr = parse_program(text, "t.ptir");
    EXPECT_FALSE(pr.ok()) << text;
    EXPECT_EQ(pr.error.rfind(b.message, 0), 0u) << pr.error;
  }
  ParseResult region = parse_program("region ^r(%a: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {\n"
                                     "  return %a\n}\nfunc @f(%a: tensor<f32>) -> tensor<f32> {\n  return %a\n}\n",
                                     "t.ptir");
  EXPECT_FALSE(region.ok());
  EXPECT_NE(region.error.find("a region takes no attributes"), std::string::npos) << region.error;
}

/// A region inherits the flags its functions have in common; an unused region has none.
TEST(FastMathText, RegionsInherit) {
  const char* text = R"(
region ^t(%x: tensor<f32>) -> tensor<f32> {
  %r = add %x, %x -> tensor<f32>
  return %r
}
region ^unused(%x: tensor<f32>) -> tensor<f32> {
  return %x
}
func @a(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> attributes[fastmath[nnan, nsz]] {
  %r = cond %p, %x then[^t] else[^t] -> tensor<f32>
  return %r
}
func @b(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> attributes[fastmath[nnan, ninf]] {
  %r = cond %p, %x then[^t] else[^t] -> tensor<f32>
  return %r
}
)";
  ParseResult pr = parse_program(text, "t.ptir");
  ASSERT_TRUE(pr.ok()) << pr.error;
  const Program& p = *pr.program;
  const BodyId t = p.find_body("t", true), unused = p.find_body("unused", true);
  EXPECT_EQ(p.fastmath_of(t), FastMath{1u << static_cast<int>(FastMathFlag::NNaN)});
  EXPECT_TRUE(p.fastmath_of(unused).none());
  // Running @b: the region sees @b's ninf, so inf + inf in it is UB; run on its own it has only nnan.
  const Tensor yes = lit("dense<true> : tensor<i1>");
  const Tensor inf = from_bits("tensor<f32>", {kInf});
  RunResult r = run_body(p, p.find_body("b", false), std::vector<Tensor>{yes, inf});
  EXPECT_EQ(r.status, RunStatus::UB) << r.message;
  EXPECT_NE(r.message.find("infinite under fastmath ninf"), std::string::npos) << r.message;
  r = run_body(p, p.find_body("a", false), std::vector<Tensor>{yes, inf});
  EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
  r = run_body(p, t, std::vector<Tensor>{inf});
  EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
}

/// nnan: a NaN operand or result of a governed op is UB; without the flag the same run is defined.
TEST(FastMathInterp, NNaN) {
  EXPECT_EQ(run2(flagged("", "add %a, %b"), kNaN, kOne, kOne, kOne).status, RunStatus::Ok);
  RunResult r = run2(flagged("nnan", "add %a, %b"), kNaN, kOne, kOne, kOne);
  EXPECT_EQ(r.status, RunStatus::UB);
  EXPECT_NE(r.message.find("add: operand 0 element 0 is NaN under fastmath nnan"), std::string::npos) << r.message;
  // inf - inf: the operands are fine under nnan, the NaN result is not.
  r = run2(flagged("nnan", "sub %a, %b"), kInf, kOne, kInf, kOne);
  EXPECT_EQ(r.status, RunStatus::UB);
  EXPECT_NE(r.message.find("result 0 element 0 is NaN"), std::string::npos) << r.message;
  // ninf alone lets the NaN through.
  EXPECT_EQ(run2(flagged("ninf", "add %a, %b"), kNaN, kOne, kOne, kOne).status, RunStatus::Ok);
  // compare is governed (float operands); its i1 result is not a float.
  EXPECT_EQ(run2(flagged("nnan", "compare %a, %b dir[eq]", "tensor<i1, 2>"), kNaN, kOne, kOne, kOne).status,
            RunStatus::UB);
  // Data movement is not governed: select passes a NaN without UB.
  const std::string sel = "func @main(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> tensor<f32, 2> "
                          "attributes[fastmath[nnan, ninf]] {\n  %p = constant dense<true> : tensor<i1, 2> -> "
                          "tensor<i1, 2>\n  %r = select %p, %a, %b -> tensor<f32, 2>\n  %c = cast %r -> tensor<f64, 2>\n"
                          "  return %r\n}\n";
  EXPECT_EQ(run2(sel, kNaN, kInf, kNaN, kNegInf).status, RunStatus::Ok);
}

/// ninf: an infinite operand or result is UB, also an overflow to infinity; also in a dead instruction.
TEST(FastMathInterp, NInf) {
  RunResult r = run2(flagged("ninf", "mul %a, %b"), kOne, kNegInf, kOne, kOne);
  EXPECT_EQ(r.status, RunStatus::UB);
  EXPECT_NE(r.message.find("operand 0 element 1 is infinite"), std::string::npos) << r.message;
  r = run2(flagged("ninf", "add %a, %b"), kMax, kOne, kMax, kOne);  // overflows to +inf
  EXPECT_EQ(r.status, RunStatus::UB);
  EXPECT_NE(r.message.find("result 0 element 0 is infinite"), std::string::npos) << r.message;
  EXPECT_EQ(run2(flagged("nnan, nsz", "add %a, %b"), kMax, kOne, kMax, kOne).status, RunStatus::Ok);
  // A dead governed op still promises: its UB is the function's.
  const std::string dead = "func @main(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> tensor<f32, 2> "
                           "attributes[fastmath[ninf]] {\n  %d = div %a, %b -> tensor<f32, 2>\n  return %a\n}\n";
  EXPECT_EQ(run2(dead, kOne, kOne, 0, kOne).status, RunStatus::UB);  // 1 / 0 = inf
  EXPECT_EQ(run2(dead, kOne, kOne, kOne, kOne).status, RunStatus::Ok);
}

/// Reductions and dot_general check their float operands and results.
TEST(FastMathInterp, Folds) {
  const std::string sum = "func @main(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> tensor<f32> "
                          "attributes[fastmath[nnan]] {\n  %r = reduce_sum %a axes[0] -> tensor<f32>\n  return %r\n}\n";
  EXPECT_EQ(run2(sum, kInf, kNegInf, 0, 0).status, RunStatus::UB);  // inf + -inf = NaN
  EXPECT_EQ(run2(sum, kInf, kOne, 0, 0).status, RunStatus::Ok);
  const std::string dot = "func @main(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> tensor<f32> "
                          "attributes[fastmath[ninf]] {\n  %r = dot_general %a, %b contract_lhs[0] contract_rhs[0] "
                          "-> tensor<f32>\n  return %r\n}\n";
  EXPECT_EQ(run2(dot, kOne, kOne, kOne, kInf).status, RunStatus::UB);
  EXPECT_EQ(run2(dot, kOne, kOne, kOne, kOne).status, RunStatus::Ok);
}

/// nsz: the interpreter keeps the IEEE sign unless zero_signs chooses one for a function-body instruction.
TEST(FastMathInterp, NszSigns) {
  ParseResult pr = parse_program(flagged("nsz", "add %a, %b"), "t.ptir");
  ASSERT_TRUE(pr.ok());
  const Program& p = *pr.program;
  const std::vector<Tensor> in{from_bits("tensor<f32, 2>", {kNegZero, kOne}), from_bits("tensor<f32, 2>", {0, kOne})};
  RunResult r = run_program(p, in);
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{0, 0x40000000}));  // -0 + +0 = +0 (IEEE default)
  InstId add = p.body(p.entry()).first;
  ZeroSigns signs{{{add, 0}, true}, {{add, 1}, true}};  // element 1 is not a zero: unchanged
  InterpOptions io;
  io.zero_signs = &signs;
  r = run_program(p, in, io);
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{kNegZero, 0x40000000}));
  // Without nsz the choice is ignored.
  ParseResult plain = parse_program(flagged("nnan", "add %a, %b"), "t.ptir");
  r = run_program(*plain.program, in, io);
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{0, 0x40000000}));
}

/// contract: the default run is unfused; InterpOptions::contracted fuses a site (a*b+c rounded once),
/// only under contract, only at a mul operand, and nnan/ninf see the fused result.
TEST(FastMathInterp, ContractFusesChosenSites) {
  const std::string body = "(%a: tensor<f32, 2>, %b: tensor<f32, 2>) -> tensor<f32, 2>";
  auto program = [&](const std::string& flags, const std::string& site) {
    return "func @main" + body + (flags.empty() ? "" : " attributes[fastmath[" + flags + "]]") +
           " {\n  %m = mul %a, %a -> tensor<f32, 2>\n  %r = " + site + " -> tensor<f32, 2>\n  return %r\n}\n";
  };
  // a = 1 + 2^-12: a*a = 1 + 2^-11 + 2^-24 rounds (a tie, to even) to 1 + 2^-11, so a*a - 1 is 2^-11
  // unfused and 2^-11 + 2^-24 fused. b = 1.
  const uint64_t a = 0x3F800800;  // 1 + 2^-12
  const std::vector<Tensor> in{from_bits("tensor<f32, 2>", {a, kOne}), from_bits("tensor<f32, 2>", {kOne, kOne})};
  const uint64_t unfused = 0x3A000000;   // 2^-11
  const uint64_t fused = 0x3A000400;     // 2^-11 + 2^-24
  ParseResult pr = parse_program(program("contract", "sub %m, %b"), "t.ptir");
  ASSERT_TRUE(pr.ok()) << pr.error;
  const Program& p = *pr.program;
  const InstId site = p.def_inst(p.operand(p.terminator(p.entry()), 0));
  ASSERT_EQ(contract_operands(p, site), (std::vector<uint32_t>{0}));
  RunResult r = run_program(p, in);
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{unfused, 0}));
  Contractions fuse{{site, 0}};
  InterpOptions io;
  io.contracted = &fuse;
  r = run_program(p, in, io);
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{fused, 0}));
  // b - a*a fused is fma(-a, a, b): the negated value.
  ParseResult rev = parse_program(program("contract", "sub %b, %m"), "t.ptir");
  ASSERT_TRUE(rev.ok());
  const InstId rsite = rev.program->def_inst(rev.program->operand(rev.program->terminator(rev.program->entry()), 0));
  Contractions fuse1{{rsite, 1}};
  io.contracted = &fuse1;
  r = run_program(*rev.program, in, io);
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{fused | 0x80000000, 0}));
  // A position that is not a mul operand, or a function without contract: unfused.
  Contractions wrong{{rsite, 0}};
  io.contracted = &wrong;
  EXPECT_EQ(bits(run_program(*rev.program, in, io).results[0]), (std::vector<uint64_t>{unfused | 0x80000000, 0}));
  ParseResult plain = parse_program(program("nsz", "sub %m, %b"), "t.ptir");
  io.contracted = &fuse;
  EXPECT_EQ(bits(run_program(*plain.program, in, io).results[0]), (std::vector<uint64_t>{unfused, 0}));
  // nnan sees the chosen result (the mul itself still runs, with its own UB): a = 2^64, b = +inf: a*a
  // overflows to +inf, so a*a - b is inf - inf = NaN unfused (UB), and 2^128 - inf = -inf fused (defined).
  const std::vector<Tensor> big{from_bits("tensor<f32, 2>", {0x5F800000, kOne}), from_bits("tensor<f32, 2>", {kInf, kOne})};
  ParseResult ninf = parse_program(program("nnan, contract", "sub %m, %b"), "t.ptir");
  EXPECT_EQ(run_program(*ninf.program, big).status, RunStatus::UB);
  const InstId nsite = ninf.program->def_inst(ninf.program->operand(ninf.program->terminator(ninf.program->entry()), 0));
  Contractions fusen{{nsite, 0}};
  io.contracted = &fusen;
  r = run_program(*ninf.program, big, io);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_EQ(bits(r.results[0]), (std::vector<uint64_t>{kNegInf, 0}));
}

}  // namespace
}  // namespace ptir::test
