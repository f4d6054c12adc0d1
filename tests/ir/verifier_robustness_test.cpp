/// The verifier on inputs only the C++ API can build (wrong arity, wrong attribute kinds, dangling region
/// ids, rank > 16), on every op with extreme attribute values (it must report, never crash), and on a
/// large program (the check is linear).
#include <chrono>

#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::first_error;

/// A one-function program `@f(%x: X) -> R` holding one instruction built directly through the API.
struct Built {
  Program p;
  InstId inst = kNone;
};

std::unique_ptr<Built> build(OpCode op, int num_operands, std::vector<TensorType> results, AttrSet attrs = {}) {
  auto b = std::make_unique<Built>();
  Program& p = b->p;
  BodyId f = p.add_body("f", false);
  ValueId x = p.add_param(f, p.intern_type(TensorType{DType::F32, {2, 3}}), "x");
  std::vector<ValueId> ops(num_operands, x);
  std::vector<TypeId> rt;
  for (const TensorType& t : results) rt.push_back(p.intern_type(t));
  b->inst = p.create_inst(f, op, ops, p.intern_attrs(attrs), rt);
  return b;
}

AttrSet one_attr(std::string name, AttrKind kind, std::vector<int64_t> ints, std::string text = "") {
  AttrSet s;
  s.attrs.push_back(Attr{std::move(name), AttrValue{kind, std::move(ints), std::move(text), {}}});
  return s;
}

const TensorType kF23{DType::F32, {2, 3}};

TEST(VerifierRobustness, ArityAndResultCountComeFromTheOpTable) {
  EXPECT_EQ(verify_inst(build(OpCode::Add, 1, {kF23})->p, 0), "add: expects 2 operands, got 1");
  EXPECT_EQ(verify_inst(build(OpCode::Neg, 0, {kF23})->p, 0), "neg: expects 1 operand, got 0");
  EXPECT_EQ(verify_inst(build(OpCode::Cond, 0, {kF23})->p, 0), "cond: expects at least 1 operand, got 0");
  EXPECT_EQ(verify_inst(build(OpCode::Neg, 1, {kF23, kF23})->p, 0), "neg: has 2 results, expected 1");
  EXPECT_EQ(verify_inst(build(OpCode::TopK, 1, {kF23}, one_attr("k", AttrKind::Int, {1}))->p, 0),
            "top_k: has 1 result, expected 2");
  EXPECT_EQ(verify_inst(build(OpCode::Constant, 1, {kF23})->p, 0), "constant: expects 0 operands, got 1");
  EXPECT_EQ(verify_inst(build(OpCode::Constant, 0, {kF23})->p, 0), "constant: needs a literal (value[...])");
  EXPECT_EQ(verify_inst(build(OpCode::Neg, 1, {kF23})->p, 7), "no instruction with id 7");
}

TEST(VerifierRobustness, AttributeKindsAndPresenceAreChecked) {
  EXPECT_EQ(verify_inst(build(OpCode::Transpose, 1, {kF23}, one_attr("perm", AttrKind::Bool, {1}))->p, 0),
            "transpose: attribute 'perm' must be a list of integers");
  EXPECT_EQ(verify_inst(build(OpCode::Transpose, 1, {kF23}, one_attr("prem", AttrKind::Ints, {1, 0}))->p, 0),
            "transpose: unknown attribute 'prem'");
  EXPECT_EQ(verify_inst(build(OpCode::Transpose, 1, {kF23})->p, 0), "transpose: requires attribute 'perm'");
  EXPECT_EQ(verify_inst(build(OpCode::Concat, 1, {kF23}, one_attr("axis", AttrKind::Int, {}))->p, 0),
            "concat: attribute 'axis' takes one integer");
  EXPECT_EQ(verify_inst(build(OpCode::Compare, 2, {kF23}, one_attr("dir", AttrKind::Word, {}, "lte"))->p, 0),
            "compare: attribute 'dir' has an unknown word 'lte'");
  AttrSet reduce = one_attr("axes", AttrKind::Ints, {0});
  reduce.attrs.push_back(Attr{"keepdims", AttrValue{AttrKind::Bool, {2}, {}, {}}});
  EXPECT_EQ(verify_inst(build(OpCode::ReduceSum, 1, {kF23}, reduce)->p, 0),
            "reduce_sum: attribute 'keepdims' takes true or false");
  reduce.attrs[1] = Attr{"accum", AttrValue{AttrKind::DType, {99}, {}, {}}};
  EXPECT_EQ(verify_inst(build(OpCode::ReduceSum, 1, {kF23}, reduce)->p, 0),
            "reduce_sum: attribute 'accum' is not a dtype");
  EXPECT_EQ(verify_inst(build(OpCode::CustomCall, 1, {kF23})->p, 0), "custom_call: requires attribute 'target'");
}

TEST(VerifierRobustness, RanksAbove16AreRejected) {
  TensorType big{DType::F32, std::vector<int64_t>(17, 1)};
  EXPECT_EQ(verify_inst(build(OpCode::Reshape, 1, {big})->p, 0), "reshape: result 0 has rank 17, more than 16");
}

TEST(VerifierRobustness, NegativeAndOverflowingDimsAreReported) {
  EXPECT_EQ(verify_inst(build(OpCode::Reshape, 1, {TensorType{DType::F32, {-6}}})->p, 0),
            "reshape: result 0 has type tensor<f32, -6> with a negative dim");
  TensorType huge{DType::F32, {INT64_MAX, INT64_MAX, 2}};
  // Held to PTIR's element limit before any rule computes an element count (docs/text-format.md "Limits").
  EXPECT_EQ(verify_inst(build(OpCode::Reshape, 1, {huge})->p, 0),
            "reshape: result 0 has type tensor<f32, 9223372036854775807x9223372036854775807x2> with more than 2^28 "
            "elements (PTIR's limit)");
}

TEST(VerifierRobustness, DanglingRegionIdsAreReported) {
  ParseResult r = parse_program(R"(
region ^t(%a: tensor<f32>) -> tensor<f32> {
  return %a
}
func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = cond %p, %x then[^t] else[^t] -> tensor<f32>
  return %r
}
)");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  InstId c = p.body(1).first;
  AttrSet& attrs = p.mutable_attrs_for_resolution(p.inst(c).attrs);
  for (int64_t bad : {int64_t{999}, int64_t{-1}, INT64_MAX}) {
    attrs.attrs[0].value.ints = {bad};
    EXPECT_EQ(verify_inst(p, c), "cond: then[^t] refers to no region");
  }
  attrs.attrs[0].value.ints = {};
  EXPECT_EQ(verify_inst(p, c), "cond: then[^t] refers to no region");
  attrs.attrs[0].value.ints = {1};
  EXPECT_EQ(verify_inst(p, c), "cond: then[^t] refers to @f, which is a func, not a region");
  EXPECT_EQ(verify_program(p, 0).size(), 1u);
}

/// VerifyMemo answers as verify_inst does: a signature that passed is answered from the memo, one that
/// fails is verified every time (and not remembered), ops reading other bodies are always verified.
TEST(VerifierRobustness, VerifyMemoAnswersAsVerifyInst) {
  ParseResult r = parse_program(R"(
region ^t(%a: tensor<f32>) -> tensor<f32> {
  return %a
}
func @f(%p: tensor<i1>, %x: tensor<f32, 2x3>, %s: tensor<f32>) -> tensor<f32, 3x2> {
  %a = transpose %x perm[1, 0] -> tensor<f32, 3x2>
  %b = transpose %x perm[1, 0] -> tensor<f32, 3x2>
  %c = cond %p, %s then[^t] else[^t] -> tensor<f32>
  %d = transpose %x perm[1, 0] -> tensor<f32, 2x3>
  %e = transpose %x perm[1, 0] -> tensor<f32, 3x2x1>
  return %b
}
)");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  const InstId a = p.body(1).first, b = p.inst(a).next, c = p.inst(b).next, d = p.inst(c).next, e = p.inst(d).next;
  VerifyMemo memo;
  EXPECT_TRUE(memo.passes(p, a));
  EXPECT_EQ(memo.verify(p, b), "");  // the same signature: from the memo
  // Same op, attributes and operands as `a`, another result type: not `a`'s signature.
  EXPECT_FALSE(memo.passes(p, d));
  EXPECT_EQ(memo.verify(p, d), verify_inst(p, d));
  EXPECT_NE(verify_inst(p, d), "");
  EXPECT_FALSE(memo.passes(p, e));
  // An attribute set changed under the memo's feet is a different program (the memo is bound to one),
  // so here a broken transpose gets a fresh attribute set, hence a fresh signature.
  AttrSetId bad = make_ints_attr(p, "perm", {1, 1});
  p.set_attrs(b, bad);
  EXPECT_FALSE(memo.passes(p, b));
  EXPECT_EQ(memo.verify(p, b), verify_inst(p, b));
  EXPECT_NE(memo.verify(p, b), "");
  EXPECT_FALSE(memo.passes(p, b));  // a failure is not remembered as a pass
  // cond reads its regions: never answered from the memo.
  EXPECT_TRUE(memo.passes(p, c));
  AttrSet& attrs = p.mutable_attrs_for_resolution(p.inst(c).attrs);
  attrs.attrs[0].value.ints = {999};
  EXPECT_EQ(memo.verify(p, c), "cond: then[^t] refers to no region");
}

/// Programs with `$` standing for an integer list; each is tried with every list in kValues.
constexpr const char* kTemplates[] = {
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 3x2> {\n %r = transpose %x perm[$] -> tensor<f32, 3x2>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 2x3> {\n %r = broadcast_to %x shape[$] -> tensor<f32, 2x3>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 6> {\n %r = reshape %x shape[$] -> tensor<f32, 6>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 1x1> {\n %r = slice %x starts[$] -> tensor<f32, 1x1>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 4x3> {\n %r = concat %x, %x axis[$] -> tensor<f32, 4x3>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 2x3> {\n %r = pad %x low[$] high[$] interior[$] -> tensor<f32, 2x3>\n"
    " return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 4x3> {\n %r = tile %x repeats[$] -> tensor<f32, 4x3>\n return %r\n}",
    "func @f() -> tensor<si32, 2x3> {\n %r = iota axis[$] -> tensor<si32, 2x3>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 2x2> {\n %r = dot_general %x, %x batch_lhs[$] batch_rhs[$] "
    "contract_lhs[$] contract_rhs[$] -> tensor<f32, 2x2>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 2> {\n %r = reduce_max %x axes[$] keepdims[true] -> tensor<f32, 2>\n"
    " return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<si32, 2> {\n %r = argmax %x axis[$] -> tensor<si32, 2>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>, %i: tensor<si32, 2x3>) -> tensor<f32, 2x3> {\n %r = gather %x, %i axis[$] -> "
    "tensor<f32, 2x3>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>, %i: tensor<si32, 2x3>) -> tensor<f32, 2x3> {\n %r = scatter_reduce %x, %i, %x "
    "axis[$] reduce[add] -> tensor<f32, 2x3>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>, %i: tensor<si32, 2x3>) -> tensor<f32, 2x3> {\n %r = scatter_add %x, %i, %x "
    "update_window_dims[$] inserted_window_dims[$] scatter_dims_to_operand_dims[$] index_vector_dim[$] -> "
    "tensor<f32, 2x3>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 1x1x1> {\n %r = extract_patches %x window[$] strides[$] "
    "dilation[$] pad_low[$] pad_high[$] -> tensor<f32, 1x1x1>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 1x1> {\n %r = reduce_window %x kind[sum] window[$] strides[$] "
    "pad_low[$] pad_high[$] base_dilation[$] window_dilation[$] -> tensor<f32, 1x1>\n return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> (tensor<f32, 2x1>, tensor<si8, 2x1>) {\n %v, %i = top_k %x k[$] axis[$] -> "
    "(tensor<f32, 2x1>, tensor<si8, 2x1>)\n return %v, %i\n}",
    "func @f(%x: tensor<f32, 2x3>, %s: tensor<si32, 2>) -> tensor<f32, 2x3> {\n %r = segment_reduce %x, %s kind[max] "
    "num_segments[$] -> tensor<f32, 2x3>\n return %r\n}",
    "region ^b(%c: tensor<f32, 3>, %x: tensor<f32, 3>) -> tensor<f32, 3> {\n return %c\n}\n"
    "func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 3> {\n %r = scan %x, %x body[^b] carries[$] -> tensor<f32, 3>\n"
    " return %r\n}",
    "func @f(%x: tensor<f32, 2x3>) -> tensor<si8, 2x3> {\n %r = quantize %x, %x, %x axis[$] -> tensor<si8, 2x3>\n"
    " return %r\n}",
    "func @f() -> tensor<f32, 2> {\n %r = rng_normal seed[$] -> tensor<f32, 2>\n return %r\n}",
};

constexpr const char* kValues[] = {
    "", "0", "1", "-1", "2", "15", "16", "17", "31", "32", "63", "64", "-9223372036854775808", "9223372036854775807",
    "0, 0", "1, 0", "0, 1", "1, 1", "0, 2", "-1, 0", "0, 1, 2", "9223372036854775807, 9223372036854775807",
    "-9223372036854775808, -9223372036854775808", "4611686018427387904, 2",
};

std::string substitute(std::string s, const std::string& v) {
  for (size_t at = s.find('$'); at != std::string::npos; at = s.find('$', at + v.size())) s.replace(at, 1, v);
  return s;
}

TEST(VerifierRobustness, ExtremeAttributeValuesAreReportedNeverCrash) {
  int parsed = 0, rejected = 0;
  for (const char* t : kTemplates) {
    for (const char* v : kValues) {
      std::string text = substitute(t, v);
      ParseResult r = parse_program(text, "sweep.ptir");
      if (!r.ok()) continue;  // e.g. a one-integer attribute given a list
      ++parsed;
      std::vector<Diagnostic> d = verify_program(*r.program, 0);
      InstId first = r.program->body(r.program->num_bodies() - 1).first;
      std::string op(mnemonic(r.program->op(first)));
      for (const Diagnostic& e : d) {
        EXPECT_TRUE(e.message.rfind(op + ": ", 0) == 0 || e.message.rfind("return: ", 0) == 0) << text << "\n"
                                                                                                 << e.message;
      }
      rejected += !d.empty();
    }
  }
  EXPECT_GE(parsed, 300);
  EXPECT_GE(rejected, parsed / 2);
}

TEST(VerifierRobustness, LargeProgramsVerifyInLinearTime) {
  constexpr int kN = 200000;
  std::string text = "func @f(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n  %v0 = neg %x -> tensor<f32, 4>\n";
  for (int i = 1; i < kN; ++i)
    text += "  %v" + std::to_string(i) + " = add %v" + std::to_string(i - 1) + ", %x -> tensor<f32, 4>\n";
  text += "  return %v" + std::to_string(kN - 1) + "\n}\n";
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Diagnostic> d = verify_program(*r.program);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(d.empty());
  // ~10 ns per instruction is expected; the bound only catches a quadratic walk, not a slow machine.
  EXPECT_LT(ms, 5000.0);
  std::printf("verify_program: %d instructions in %.2f ms\n", kN, ms);
}

}  // namespace
}  // namespace ptir
