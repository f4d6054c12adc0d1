/// Whole-program verification: SSA dominance after mutations (moved, erased and foreign values), returns,
/// the entry function, malformed attributes that only the C++ API can build, diagnostics formatting,
/// robustness against extreme attribute values, and a linear-time check on a large program.
#include <chrono>

#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::first_error;

std::unique_ptr<Program> parse_ok(std::string_view text) {
  ParseResult r = parse_program(text, "t.ptir");
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.program);
}

std::vector<InstId> insts_of(const Program& p, BodyId b) {
  std::vector<InstId> out;
  p.for_each_inst(b, [&](InstId i) { out.push_back(i); });
  return out;
}

std::string first_message(const Program& p) {
  std::vector<Diagnostic> d = verify_program(p);
  return d.empty() ? "" : d[0].message;
}

constexpr const char* kChain = R"(
func @f(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %a = neg %x -> tensor<f32, 2>
  %b = neg %a -> tensor<f32, 2>
  return %b
}
)";

TEST(VerifierProgram, AUseMustFollowItsDefinition) {
  auto p = parse_ok(kChain);
  EXPECT_EQ(first_message(*p), "");
  std::vector<InstId> in = insts_of(*p, 0);
  p->move_before(in[1], in[0]);
  EXPECT_EQ(first_message(*p), "neg: operand 0 (%a) is used before its definition");
}

TEST(VerifierProgram, AnInstructionCannotUseItsOwnResult) {
  auto p = parse_ok(kChain);
  std::vector<InstId> in = insts_of(*p, 0);
  p->set_operand(in[0], 0, p->result(in[0]));
  EXPECT_EQ(first_message(*p), "neg: operand 0 (%a) is used before its definition");
}

TEST(VerifierProgram, AUseOfAnErasedResultIsReported) {
  auto p = parse_ok(R"(
func @f(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %a = neg %x -> tensor<f32, 2>
  %b = abs %x -> tensor<f32, 2>
  return %b
}
)");
  std::vector<InstId> in = insts_of(*p, 0);
  p->erase_inst(in[0]);
  EXPECT_EQ(first_message(*p), "");
  p->set_operand(in[1], 0, p->result(in[0]));
  EXPECT_EQ(first_message(*p), "abs: operand 0 (%a) is a result of an erased instruction");
}

TEST(VerifierProgram, ValuesDoNotCrossBodies) {
  auto p = parse_ok(R"(
func @f(%x: tensor<f32>) -> tensor<f32> {
  %y = neg %x -> tensor<f32>
  return %y
}
func @g(%z: tensor<f32>) -> tensor<f32> {
  %w = abs %z -> tensor<f32>
  return %w
}
)");
  InstId w = insts_of(*p, 1)[0];
  p->set_operand(w, 0, p->result(insts_of(*p, 0)[0]));
  EXPECT_EQ(first_message(*p), "abs: operand 0 (%y) is defined in @f, not in @g");
  p->set_operand(w, 0, p->body(0).params[0]);
  EXPECT_EQ(first_message(*p), "abs: operand 0 (%x) is a parameter of @f, not of @g");
  InstId ret = insts_of(*p, 1)[1];
  p->set_operand(w, 0, p->body(1).params[0]);
  p->set_operand(ret, 0, p->body(0).params[0]);
  EXPECT_EQ(first_message(*p), "return: operand 0 (%x) is a parameter of @f, not of @g");
}

TEST(VerifierProgram, LiteralOperandsAreVisibleEverywhere) {
  EXPECT_EQ(first_error(R"(
region ^r(%a: tensor<f32>) -> tensor<f32> {
  %b = add %a, dense<1.0> : tensor<f32> -> tensor<f32>
  return %b
}
func @f(%p: tensor<i1>) -> tensor<f32> {
  %c = cond %p, dense<1.0> : tensor<f32> then[^r] else[^r] -> tensor<f32>
  return dense<1.0> : tensor<f32>
}
)"),
            "");
}

TEST(VerifierProgram, EveryBodyEndsWithItsReturn) {
  auto p = parse_ok(kChain);
  std::vector<InstId> in = insts_of(*p, 0);
  p->move_before(in[2], in[1]);
  EXPECT_EQ(first_message(*p), "return: operand 0 (%b) is used before its definition");
  auto q = parse_ok("func @f(%x: tensor<f32>) -> tensor<f32> {\n  %a = neg %x -> tensor<f32>\n  return %x\n}\n");
  std::vector<InstId> qi = insts_of(*q, 0);
  q->move_before(qi[1], qi[0]);
  EXPECT_EQ(first_message(*q), "neg: instruction after the return of @f");

  Program r;
  BodyId b = r.add_body("f", false);
  TypeId t = r.intern_type(TensorType{DType::F32, {}});
  r.body(b).result_types = {t};
  ValueId x = r.add_param(b, t, "x");
  ValueId ops[] = {x};
  TypeId rt[] = {t};
  r.create_inst(b, OpCode::Neg, ops, 0, rt);
  EXPECT_EQ(first_message(r), "@f does not end with a return");
}

TEST(VerifierProgram, TheEntryFunctionMustExist) {
  Program p;
  BodyId b = p.add_body("r", true);
  p.set_return(b, {});
  std::vector<Diagnostic> d = verify_program(p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "program has no func: the entry function is missing");
  EXPECT_EQ(d[0].inst, kNone);
  EXPECT_EQ(format_diagnostic(d[0], p, nullptr), "error: program has no func: the entry function is missing");
}

TEST(VerifierProgram, MaxErrorsLimitsTheReport) {
  auto p = parse_ok(R"(
func @f(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %a = exp %x -> tensor<f32, 3>
  %b = log %x -> tensor<f32, 3>
  %c = neg %x -> tensor<f32, 3>
  return %x
}
)");
  EXPECT_EQ(verify_program(*p, 1).size(), 1u);
  EXPECT_EQ(verify_program(*p, 2).size(), 2u);
  std::vector<Diagnostic> all = verify_program(*p, 0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].message, "neg: operand 0 has type tensor<f32, 2>, expected tensor<f32, 3> (the result type)");
  EXPECT_EQ(all[2].body, 0u);
  EXPECT_EQ(all[2].inst, insts_of(*p, 0)[2]);
}

TEST(VerifierProgram, DiagnosticsPointAtTheStatement) {
  ParseResult r = parse_program(
      "func @f(%x: tensor<f32, 2>) -> tensor<f32, 2> {\n  %y = transpose %x perm[1] -> tensor<f32, 2>\n"
      "  return %y\n}\n",
      "dir/bad.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<Diagnostic> d = verify_program(*r.program);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(format_diagnostic(d[0], *r.program, &r.source),
            "dir/bad.ptir:2:3: error: transpose: perm[1] is not a permutation of 0..0");
  EXPECT_EQ(format_diagnostic(d[0], *r.program, nullptr), "error: transpose: perm[1] is not a permutation of 0..0");
}

TEST(VerifierProgram, DiagnosticsOfNewInstructionsPointAtTheirBody) {
  ParseResult r = parse_program("\nfunc @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n", "new.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  TypeId wrong = p.intern_type(TensorType{DType::F32, {3}});
  ValueId ops[] = {p.body(0).params[0]};
  TypeId rt[] = {wrong};
  p.create_inst(0, OpCode::Exp, ops, 0, rt);
  std::vector<Diagnostic> d = verify_program(p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(format_diagnostic(d[0], p, &r.source),
            "new.ptir:2:1: error: exp: operand 0 has type tensor<f32>, expected tensor<f32, 3> (the result type)");
}

// A type made through the API is held to the parser's limits too: 2^32 x 2^32 elements is 2^64, which
// wraps to 0 in an int64_t product (a plugin's pattern crashed the interpreter with it).
TEST(VerifierProgram, TypesMadeThroughTheApiAreHeldToTheElementLimit) {
  ParseResult r = parse_program("func @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n", "api.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  const int64_t big = int64_t{1} << 32;
  TypeId huge = p.intern_type(TensorType{DType::F32, {big, big}});
  ValueId ops[] = {p.body(0).params[0]};
  TypeId rt[] = {huge};
  p.create_inst(0, OpCode::BroadcastTo, ops, 0, rt);
  std::vector<Diagnostic> d = verify_program(p);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].message, "broadcast_to: result 0 has type tensor<f32, 4294967296x4294967296> with more than 2^28 "
                          "elements (PTIR's limit)");
  EXPECT_FALSE(within_type_limits(TensorType{DType::F32, {int64_t{1} << 28, 2}}));
  EXPECT_TRUE(within_type_limits(TensorType{DType::F32, {int64_t{1} << 28}}));
  EXPECT_TRUE(within_type_limits(TensorType{DType::F32, {0, int64_t{1} << 28}}));
  EXPECT_FALSE(within_type_limits(TensorType{DType::F32, {0, (int64_t{1} << 28) + 1}}));
}

// Names are unique per kind, as the parser requires: a plugin pattern that added a second @main
// through the API printed a program that did not parse again.
TEST(VerifierProgram, TwoFuncsOfOneNameAreRefused) {
  ParseResult r = parse_program("func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n", "api.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  const BodyId b = p.add_body("main", /*is_region=*/false);
  const ValueId x = p.add_param(b, p.intern_type(TensorType{DType::F32, {}}), "x");
  p.body(b).result_types.push_back(p.type_id(x));
  const ValueId rs[] = {x};
  p.set_return(b, rs);
  std::vector<Diagnostic> d = verify_program(p);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].message, "redefinition of func '@main'");
  // Another name is fine.
  ParseResult q = parse_program("func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n", "api.ptir");
  Program& p2 = *q.program;
  const BodyId b2 = p2.add_body("helper", false);
  const ValueId y = p2.add_param(b2, p2.intern_type(TensorType{DType::F32, {}}), "y");
  p2.body(b2).result_types.push_back(p2.type_id(y));
  const ValueId rs2[] = {y};
  p2.set_return(b2, rs2);
  EXPECT_TRUE(verify_program(p2).empty());
}

}  // namespace
}  // namespace ptir
