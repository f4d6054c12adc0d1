/// The SMT value type: numerals read back bit-exactly, commutative builders normalise their operands,
/// numeral comparisons fold, canonical renaming identifies alpha-equivalent formulas and nothing else,
/// and a timeout is an Unknown.
#include <cmath>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <z3.h>

#include "ir/dtype.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "verify/encode/scalar.h"
#include "verify/smt/expr.h"
#include "verify/smt/solver.h"

namespace ptir::smt {
namespace {

using verify::sem::fp_format;

TEST(SmtExpr, FloatNumeralsReadBackThroughToIeeeBv) {
  Context ctx;
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
    for (uint64_t bits : {uint64_t{0}, sign_mask(t), float_inf(t, false), float_inf(t, true), uint64_t{1},
                          sign_mask(t) | 3, round_to_float(t, false, 1, 0), float_inf(t, false) - 1}) {
      auto v = Expr::fpBits(bits, fp_format(t)).numeral();
      ASSERT_TRUE(v.has_value());
      EXPECT_EQ(*v, bits) << dtype_name(t);
    }
    auto nan = Expr::fpBits(canonical_nan(t) | 1, fp_format(t)).numeral();
    ASSERT_TRUE(nan.has_value());
    EXPECT_TRUE(float_is_nan(t, *nan));
  }
}

RC_GTEST_PROP(SmtExpr, F32ArithmeticOnNumeralsIsIeee, (uint32_t a, uint32_t b)) {
  Context ctx;
  const FPFormat f = fp_format(DType::F32);
  float x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  const float sum = x + y, prod = x * y, quot = x / y;  // the host is IEEE binary32 with RNE
  for (auto [e, want] : {std::pair{Expr::fpBits(a, f) + Expr::fpBits(b, f), sum},
                         std::pair{Expr::fpBits(a, f) * Expr::fpBits(b, f), prod},
                         std::pair{Expr::fpBits(a, f) / Expr::fpBits(b, f), quot}}) {
    auto got = e.numeral();  // folded by the builder (an operation on values is a value)
    RC_ASSERT(got.has_value());
    uint32_t w;
    std::memcpy(&w, &want, 4);
    if (float_is_nan(DType::F32, w)) RC_ASSERT(float_is_nan(DType::F32, *got));
    else RC_ASSERT(*got == w);
  }
}

// simplifyMemo is simplify remembered: the same term (rebuilt from scratch, as the all-shape encoder
// rebuilds every configuration's index terms) gives the identical simplified term, also after the table
// started again, and a fresh context starts with an empty table.
TEST(SmtExpr, SimplifyMemoGivesSimplifysTerm) {
  for (int round = 0; round < 2; ++round) {
    Context ctx;
    for (int k = 0; k < 70000; k += 997) {  // past the table's 65,536 entries: it starts again
      auto build = [&] {
        const Expr i = Expr::var("i", Sort::integer());
        const Expr n = Expr::var("n" + std::to_string(k % 5), Sort::integer());
        return i.iadd(Expr::intVal(k)).isub(Expr::intVal(k)).imul(Expr::intVal(1)).iadd(n.imul(Expr::intVal(0)));
      };
      const Expr plain = build().simplify();
      const Expr memo1 = build().simplifyMemo();
      const Expr memo2 = build().simplifyMemo();
      EXPECT_TRUE(memo1.same(plain)) << memo1.str() << " vs " << plain.str();
      EXPECT_TRUE(memo2.same(plain));
      EXPECT_EQ(plain.str(), "i");
    }
    for (int k = 0; k < 70000; ++k) {
      const Expr t = Expr::var("x" + std::to_string(k), Sort::integer()).iadd(Expr::intVal(0));
      ASSERT_TRUE(t.simplifyMemo().same(t.simplify()));
    }
  }
}

TEST(SmtExpr, CommutativeOperandsAreOrdered) {
  Context ctx;
  const FPFormat f = fp_format(DType::F32);
  const Expr x = Expr::var("x", Sort::floating(f)), y = Expr::var("y", Sort::floating(f));
  EXPECT_TRUE((x + y).same(y + x));
  EXPECT_TRUE((x * y).same(y * x));
  EXPECT_FALSE((x - y).same(y - x));
  EXPECT_FALSE((x / y).same(y / x));
  const Expr a = Expr::var("a", Sort::bv(8)), b = Expr::var("b", Sort::bv(8));
  EXPECT_TRUE((a + b).same(b + a));
  EXPECT_TRUE((a == b).same(b == a));
  EXPECT_TRUE(verify::sem::maximum(x, y, DType::F32).same(verify::sem::maximum(y, x, DType::F32)));
}

/// The float builders fold x + -0, x - +0, -0 - x, x * ±1, x / ±1 and -(-x) before Z3 sees them. Each
/// identity is checked on every f16 bit pattern in the reference interpreter (the agreement test ties
/// the interpreter to the encoding), and the builders are checked to fold exactly these.
TEST(SmtExpr, BuilderIdentitiesHoldForEveryF16) {
  Tensor all(TensorType{DType::F16, {65536}});
  for (int64_t i = 0; i < 65536; ++i) all.set_bits(i, static_cast<uint64_t>(i));
  const std::string T = "tensor<f16, 65536>";
  const std::pair<const char*, const char*> identities[] = {
      {"add %x, dense<-0.0> : $T", "stop_gradient %x"}, {"add dense<-0.0> : $T, %x", "stop_gradient %x"},
      {"sub %x, dense<0.0> : $T", "stop_gradient %x"},  {"sub dense<-0.0> : $T, %x", "neg %x"},
      {"mul %x, dense<1.0> : $T", "stop_gradient %x"},  {"mul dense<-1.0> : $T, %x", "neg %x"},
      {"div %x, dense<1.0> : $T", "stop_gradient %x"},  {"div %x, dense<-1.0> : $T", "neg %x"}};
  auto run = [&](std::string op) {
    for (size_t p; (p = op.find("$T")) != std::string::npos;) op.replace(p, 2, T);
    auto parsed = parse_program("func @f(%x: " + T + ") -> " + T + " {\n  %r = " + op + " -> " + T +
                                "\n  return %r\n}\n");
    EXPECT_TRUE(parsed.ok()) << parsed.error;
    RunResult r = run_program(*parsed.program, std::vector<Tensor>{all});
    EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
    return r.results.at(0);
  };
  for (auto [lhs, rhs] : identities) EXPECT_EQ(first_difference(run(lhs), run(rhs)), -1) << lhs << " vs " << rhs;

  Context ctx;
  const FPFormat f = fp_format(DType::F16);
  const Expr x = Expr::var("x", Sort::floating(f));
  const Expr pz = Expr::zero(f, false), nz = Expr::zero(f, true);
  const Expr one = Expr::fpBits(0x3C00, f), minus_one = Expr::fpBits(0xBC00, f);
  EXPECT_TRUE((x + nz).same(x));
  EXPECT_TRUE((nz + x).same(x));
  EXPECT_TRUE((x - pz).same(x));
  EXPECT_TRUE((nz - x).same(-x));
  EXPECT_TRUE((x * one).same(x));
  EXPECT_TRUE((minus_one * x).same(-x));
  EXPECT_TRUE((x / one).same(x));
  EXPECT_TRUE((x / minus_one).same(-x));
  EXPECT_TRUE((-(-x)).same(x));
  // ... and nothing that is not an identity: x + +0 (x = -0), +0 - x (x = +0), x * 0, x / 2.
  EXPECT_FALSE((x + pz).same(x));
  EXPECT_FALSE((pz - x).same(-x));
  EXPECT_FALSE((x * pz).same(pz));
  EXPECT_FALSE((x / Expr::fpBits(0x4000, f)).same(x));
}

/// Negations move out of products and quotients ((-a) * b -> -(a * b), a / (-b) -> -(a / b), so
/// (-a) * (-b) -> a * b): checked in the interpreter on 65536 ×
/// 3 pairs of f16 values (every pattern against a permutation of every pattern, and against ±0/±inf/NaN
/// mixes), and the builders fold exactly these.
TEST(SmtExpr, NegatedOperandPairsFoldForF16Pairs) {
  const std::string T = "tensor<f16, 65536>";
  auto run = [&](const std::string& body, const Tensor& a, const Tensor& b) {
    auto parsed = parse_program("func @f(%a: " + T + ", %b: " + T + ") -> " + T + " {\n" + body + "  return %r\n}\n");
    EXPECT_TRUE(parsed.ok()) << parsed.error;
    RunResult r = run_program(*parsed.program, std::vector<Tensor>{a, b});
    EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
    return r.results.at(0);
  };
  Tensor a(TensorType{DType::F16, {65536}});
  for (int64_t i = 0; i < 65536; ++i) a.set_bits(i, static_cast<uint64_t>(i));
  const uint64_t edge[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x3C00, 0x7BFF};
  for (int pass = 0; pass < 3; ++pass) {
    Tensor b(TensorType{DType::F16, {65536}});
    for (int64_t i = 0; i < 65536; ++i)
      b.set_bits(i, pass == 0 ? (i * 40503 + 17) & 0xFFFF : pass == 1 ? 65535 - i : edge[i % 8]);
    for (const char* op : {"mul", "div"}) {
      const std::string neg = "  %na = neg %a -> " + T + "\n  %nb = neg %b -> " + T + "\n";
      const std::string both = neg + "  %r = " + op + " %na, %nb -> " + T + "\n";
      const std::string plain = std::string("  %r = ") + op + " %a, %b -> " + T + "\n";
      const std::string left = neg + "  %r = " + op + " %na, %b -> " + T + "\n";
      const std::string right = neg + "  %r = " + op + " %a, %nb -> " + T + "\n";
      const std::string outside = std::string("  %p = ") + op + " %a, %b -> " + T + "\n  %r = neg %p -> " + T + "\n";
      EXPECT_EQ(first_difference(run(both, a, b), run(plain, a, b)), -1) << op << " pass " << pass;
      EXPECT_EQ(first_difference(run(left, a, b), run(outside, a, b)), -1) << op << " pass " << pass;
      EXPECT_EQ(first_difference(run(right, a, b), run(outside, a, b)), -1) << op << " pass " << pass;
    }
  }
  Context ctx;
  const FPFormat f = fp_format(DType::F16);
  const Expr x = Expr::var("x", Sort::floating(f)), y = Expr::var("y", Sort::floating(f));
  EXPECT_TRUE(((-x) * (-y)).same(x * y));
  EXPECT_TRUE(((-x) / (-y)).same(x / y));
  EXPECT_TRUE(((-x) * y).same(-(x * y)));
  EXPECT_TRUE((x * (-y)).same(-(x * y)));
  EXPECT_TRUE(((-x) / y).same(-(x / y)));
  EXPECT_TRUE((x / (-y)).same(-(x / y)));
  EXPECT_FALSE(((-x) / y).same(x / y));
  EXPECT_FALSE(((-x) * y).same(x * y));
}

/// x / 2^k is built as x * 2^-k when 2^-k is representable: checked in the interpreter for every f16 x
/// and every f16 power of two (normal and subnormal, both signs) whose reciprocal is finite, and the
/// builder leaves x / 3 and x / 2^-24 (reciprocal 2^24 overflows f16) alone.
TEST(SmtExpr, DivisionByAPowerOfTwoIsAProductForEveryF16) {
  const std::string T = "tensor<f16, 65536>";
  Tensor x(TensorType{DType::F16, {65536}});
  for (int64_t i = 0; i < 65536; ++i) x.set_bits(i, static_cast<uint64_t>(i));
  int checked = 0;
  for (int e = -24; e <= 15; ++e)
    for (double sgn : {1.0, -1.0}) {
      const double c = sgn * std::ldexp(1.0, e), r = 1.0 / c;
      if (std::fabs(r) > 65504 || std::fabs(r) < std::ldexp(1.0, -24)) continue;
      auto lit = [&](double v) { return "dense<" + format_elem(DType::F16, double_to_float(DType::F16, v)) + "> : " + T; };
      auto run = [&](const std::string& op) {
        auto parsed = parse_program("func @f(%x: " + T + ") -> " + T + " {\n  %r = " + op + " -> " + T + "\n  return %r\n}\n");
        EXPECT_TRUE(parsed.ok()) << parsed.error;
        RunResult rr = run_program(*parsed.program, std::vector<Tensor>{x});
        return rr.results.at(0);
      };
      EXPECT_EQ(first_difference(run("div %x, " + lit(c)), run("mul %x, " + lit(r))), -1) << "c = " << c;
      ++checked;
    }
  EXPECT_GE(checked, 60);
  Context ctx;
  const FPFormat f = fp_format(DType::F16);
  const Expr v = Expr::var("x", Sort::floating(f));
  EXPECT_TRUE((v / Expr::fpBits(0x4800, f)).same(v * Expr::fpBits(0x3000, f)));  // x / 8 = x * 0.125
  EXPECT_TRUE((v / Expr::fpBits(0xB400, f)).same(v * Expr::fpBits(0xC400, f)));  // x / -0.25 = x * -4
  EXPECT_FALSE((v / Expr::fpBits(0x4200, f)).same(v * Expr::fpBits(0x3555, f))); // x / 3 stays a division
  EXPECT_FALSE((v / Expr::fpBits(0x0001, f)).same(v));                            // 1/2^-24 overflows
}

/// x - x and x / x of one term are built as if-then-else terms (x - x: NaN for NaN/inf, else +0;
/// x / x: NaN for NaN/inf/zero, else 1): the identity is checked for every f16 in the interpreter, and
/// the builders are checked to produce exactly those terms.
TEST(SmtExpr, SelfSubtractionAndDivisionFoldForEveryF16) {
  const std::string T = "tensor<f16, 65536>";
  Tensor x(TensorType{DType::F16, {65536}});
  for (int64_t i = 0; i < 65536; ++i) x.set_bits(i, static_cast<uint64_t>(i));
  auto run = [&](const std::string& op) {
    auto parsed = parse_program("func @f(%x: " + T + ") -> " + T + " {\n  %r = " + op + " -> " + T + "\n  return %r\n}\n");
    EXPECT_TRUE(parsed.ok()) << parsed.error;
    return run_program(*parsed.program, std::vector<Tensor>{x}).results.at(0);
  };
  const Tensor sub = run("sub %x, %x"), div = run("div %x, %x");
  for (int64_t i = 0; i < 65536; ++i) {
    const bool nan_or_inf = float_is_nan(DType::F16, i) || float_is_inf(DType::F16, i);
    const uint64_t want_sub = nan_or_inf ? 0x7E00 : 0x0000;
    const uint64_t want_div = nan_or_inf || float_is_zero(DType::F16, i) ? 0x7E00 : 0x3C00;
    ASSERT_TRUE(float_is_nan(DType::F16, sub.bits(i)) ? float_is_nan(DType::F16, want_sub) : sub.bits(i) == want_sub) << i;
    ASSERT_TRUE(float_is_nan(DType::F16, div.bits(i)) ? float_is_nan(DType::F16, want_div) : div.bits(i) == want_div) << i;
  }
  Context ctx;
  const FPFormat f = fp_format(DType::F16);
  const Expr v = Expr::var("x", Sort::floating(f));
  const Expr one = Expr::fpBits(0x3C00, f);
  EXPECT_TRUE((v - v).same(Expr::ite(v.isNaN() || v.isInf(), Expr::nan(f), Expr::zero(f, false))));
  EXPECT_TRUE((v / v).same(Expr::ite(v.isNaN() || v.isInf() || v.isZero(), Expr::nan(f), one)));
  const Expr w = Expr::var("w", Sort::floating(f));
  EXPECT_FALSE((v - w).same(Expr::zero(f, false)));
}

/// abs folds: |-x| and ||x|| are built as |x|, |x| * |x| as x * x (floats), and the square of a signed
/// integer's abs (ite(x < 0, -x, x)) as x * x. Checked in the interpreter on every f16, si8 and si16
/// value (abs(MIN) = MIN and the product wraps), and on random and edge si32/si64 values; the builders
/// fold exactly these.
TEST(SmtExpr, AbsFoldsHoldForEveryF16AndSmallInteger) {
  auto run = [](DType d, const std::string& op, const Tensor& x) {
    const std::string T = "tensor<" + std::string(dtype_name(d)) + ", " + std::to_string(x.size()) + ">";
    std::string body;
    for (size_t p = 0, q; p < op.size(); p = q + 1) {
      q = op.find('\n', p);
      if (q == std::string::npos) q = op.size();
      body += "  " + op.substr(p, q - p) + " -> " + T + "\n";
    }
    auto parsed = parse_program("func @f(%x: " + T + ") -> " + T + " {\n" + body + "  return %r\n}\n");
    EXPECT_TRUE(parsed.ok()) << parsed.error;
    RunResult r = run_program(*parsed.program, std::vector<Tensor>{x});
    EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
    return r.results.at(0);
  };
  auto every = [](DType d, int64_t n) {
    Tensor x(TensorType{d, {n}});
    for (int64_t i = 0; i < n; ++i) x.set_bits(i, static_cast<uint64_t>(i));
    return x;
  };
  const Tensor f16 = every(DType::F16, 65536);
  EXPECT_EQ(first_difference(run(DType::F16, "%n = neg %x\n%r = abs %n", f16), run(DType::F16, "%r = abs %x", f16)), -1);
  EXPECT_EQ(first_difference(run(DType::F16, "%a = abs %x\n%r = abs %a", f16), run(DType::F16, "%r = abs %x", f16)), -1);
  EXPECT_EQ(first_difference(run(DType::F16, "%a = abs %x\n%r = mul %a, %a", f16), run(DType::F16, "%r = mul %x, %x", f16)),
            -1);
  std::vector<Tensor> ints = {every(DType::SI8, 256), every(DType::SI16, 65536)};
  for (DType d : {DType::SI32, DType::SI64}) {
    Tensor x(TensorType{d, {4096}});
    const uint64_t mask = bits_mask(d), min = mask ^ (mask >> 1);
    const uint64_t edge[] = {0, 1, mask, min, min + 1, mask >> 1, 2, mask - 1};
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (int64_t i = 0; i < 4096; ++i) {
      s = s * 6364136223846793005u + 1442695040888963407u;
      x.set_bits(i, i < 8 ? edge[i] : (s >> 7) & mask);
    }
    ints.push_back(x);
  }
  for (const Tensor& x : ints)
    EXPECT_EQ(first_difference(run(x.dtype(), "%a = abs %x\n%r = mul %a, %a", x), run(x.dtype(), "%r = mul %x, %x", x)), -1)
        << dtype_name(x.dtype());

  Context ctx;
  const FPFormat f = fp_format(DType::F16);
  const Expr x = Expr::var("x", Sort::floating(f)), y = Expr::var("y", Sort::floating(f));
  EXPECT_TRUE((-x).abs().same(x.abs()));
  EXPECT_TRUE(x.abs().abs().same(x.abs()));
  EXPECT_TRUE((x.abs() * x.abs()).same(x * x));
  EXPECT_FALSE((x.abs() * y.abs()).same(x * y));  // |x| * |y| keeps its sign: not x * y
  EXPECT_FALSE((x.abs() * x).same(x * x));
  const Expr i = Expr::var("i", Sort::bv(64)), j = Expr::var("j", Sort::bv(64));
  const Expr ai = verify::sem::abs(i, DType::SI64);
  EXPECT_TRUE((ai * ai).same(i * i));
  EXPECT_TRUE((Expr::ite(i.slt(j), i, -i) * Expr::ite(i.slt(j), i, -i)).same(i * i));
  EXPECT_FALSE((ai * verify::sem::abs(j, DType::SI64)).same(i * j));
  EXPECT_FALSE((Expr::ite(i.slt(j), j, -i) * Expr::ite(i.slt(j), j, -i)).same(i * i));
}

/// a / a of one term is built as ite(a == 0, a / a, 1): Z3's own bvsdiv/bvudiv give 1 for every
/// non-zero 8-bit a (INT_MIN included), so the term is the same function.
TEST(SmtExpr, SelfIntegerDivisionFolds) {
  Context ctx;
  for (uint64_t i = 1; i < 256; ++i) {
    const Expr a = Expr::bv(i, 8);
    EXPECT_EQ(a.sdiv(a).simplify().numeral(), std::optional<uint64_t>(1)) << i;
    EXPECT_EQ(a.udiv(a).simplify().numeral(), std::optional<uint64_t>(1)) << i;
  }
  // Symbolically: once v is known non-zero the folded term simplifies to the numeral 1, which the bare
  // 64-bit division would not without bit-blasting; a division of two terms is left alone.
  const Expr v = Expr::var("v", Sort::bv(64)), w = Expr::var("w", Sort::bv(64));
  const Expr one = Expr::bv(1, 64);
  EXPECT_TRUE(Expr::ite(v == Expr::bv(0, 64), one, v.sdiv(v)).simplify().same(one));
  EXPECT_TRUE(Expr::ite(v == Expr::bv(0, 64), one, v.udiv(v)).simplify().same(one));
  EXPECT_FALSE(v.sdiv(w).same(one));
}

/// The index algebra's identity for `tile` of `tile`: (a mod (b*c)) mod b is built as a mod b, guarded by
/// b*c != 0, so the built term equals SMT-LIB's meaning in every model (b and c of any sign, zero
/// included); the unguarded shortcut would differ where b*c == 0 (mod by zero is unspecified).
TEST(SmtExpr, ModOfModByAMultipleFoldsUnderItsGuard) {
  Context ctx;
  const Expr a = Expr::var("a", Sort::integer()), b = Expr::var("b", Sort::integer()),
             c = Expr::var("c", Sort::integer()), n = Expr::var("n", Sort::integer());
  // Nonlinear over unbounded integers, so checked point by point (Z3 decides each point at once): every
  // a in [-9, 9], b and c in [-4, 4], both factor orders.
  for (const Expr& prod : {b.imul(c), c.imul(b)}) {
    const Expr built = a.imod(prod).imod(b);
    ASSERT_NE(built.str().find("ite"), std::string::npos) << built.str();
    // The reference goes through a fresh n equal to the product: the builder sees no product there.
    const Expr ref = a.imod(n).imod(b);
    for (int64_t va = -9; va <= 9; ++va)
      for (int64_t vb = -4; vb <= 4; ++vb)
        for (int64_t vc = -4; vc <= 4; ++vc) {
          Solver s(10000);
          s.add(a == Expr::intVal(va));
          s.add(b == Expr::intVal(vb));
          s.add(c == Expr::intVal(vc));
          s.add(n == prod);
          s.add(built != ref);
          ASSERT_EQ(s.check(), Result::Unsat) << va << " " << vb << " " << vc;
        }
  }
  // Not a multiple of b: left alone.
  EXPECT_EQ(a.imod(c.imul(n)).imod(b).str().find("ite"), std::string::npos);
}

/// The division-free power-of-two terms (smt::pow2_with_exact_reciprocal, smt::pow2_reciprocal_term)
/// agree with their definitions through a division: for every f16 and bf16 bit pattern, and for every
/// power of two of f32 and f64 (both signs, normal and subnormal) plus their neighbours; and the
/// numeral identity pow2_reciprocal of the builder gives the same reciprocal.
TEST(SmtExpr, PowerOfTwoTermsMatchTheirDefinitionByDivision) {
  Context ctx;
  auto check = [&](FPFormat f, uint64_t bits) {
    const Expr c = Expr::fpBits(bits, f);
    const Expr one = Expr::fpBits(((uint64_t{1} << (f.ebits - 1)) - 1) << (f.sbits - 1), f);
    const unsigned m = f.sbits - 1, w = f.ebits + f.sbits;
    const uint64_t E = (bits >> m) & ((uint64_t{1} << f.ebits) - 1), F = bits & ((uint64_t{1} << m) - 1);
    const bool pow2 = E != (uint64_t{1} << f.ebits) - 1 && ((E != 0 && F == 0) || (E == 0 && F != 0 && (F & (F - 1)) == 0));
    // The definition: finite, nonzero, a power of two, and 1/c finite with (1/c) * c == 1 exactly.
    const Expr r = Expr::wrap(Z3_mk_fpa_div(current(), Z3_mk_fpa_rne(current()), one.raw(), c.raw()));
    const Expr def = Expr::boolean(pow2) && !r.isInf() &&
                     Expr::wrap(Z3_mk_fpa_mul(current(), Z3_mk_fpa_rne(current()), r.raw(), c.raw())) == one;
    const bool want = def.simplify().same(Expr::boolean(true));
    const Expr got = pow2_with_exact_reciprocal(c).simplify();
    ASSERT_TRUE(got.same(Expr::boolean(want))) << "bits " << std::hex << bits << " width " << std::dec << w;
    if (want) {
      ASSERT_TRUE(pow2_reciprocal_term(c).toIEEE().simplify().same(r.toIEEE().simplify()))
          << "bits " << std::hex << bits << ": " << pow2_reciprocal_term(c).simplify().str() << " vs " << r.simplify().str();
    }
  };
  for (FPFormat f : {FPFormat{5, 11}, FPFormat{8, 8}})
    for (uint64_t b = 0; b < 65536; b += 1) check(f, b);
  for (FPFormat f : {FPFormat{8, 24}, FPFormat{11, 53}}) {
    const unsigned m = f.sbits - 1;
    for (uint64_t sign : {uint64_t{0}, uint64_t{1}}) {
      const uint64_t s = sign << (f.ebits + m);
      for (uint64_t E = 0; E < (uint64_t{1} << f.ebits); ++E)
        for (uint64_t F : {uint64_t{0}, uint64_t{1}, uint64_t{1} << (m - 1)}) check(f, s | (E << m) | F);
      for (unsigned j = 0; j < m; ++j) check(f, s | (uint64_t{1} << j));
    }
  }
}

/// While a Pow2Divisor guard lives, x / c is built as x * pow2_reciprocal_term(c), and only for that c;
/// after it, divisions are divisions again.
TEST(SmtExpr, Pow2DivisorGuardBuildsDivisionsAsProductsWhileItLives) {
  Context ctx;
  const FPFormat f{8, 24};
  const Expr x = Expr::var("x", Sort::floating(f)), c = Expr::var("c", Sort::floating(f)), d = Expr::var("d", Sort::floating(f));
  const std::string before = (x / c).str();
  ASSERT_NE(before.find("fp.div"), std::string::npos);
  {
    Pow2Divisor g(c);
    EXPECT_TRUE((x / c).same(x * pow2_reciprocal_term(c)));
    EXPECT_NE((x / d).str().find("fp.div"), std::string::npos);
    // Equal to the division wherever the registered fact holds (Z3 proves it for f32).
    Solver s(60000);
    s.add(pow2_with_exact_reciprocal(c));
    s.add(!((x / c) == Expr::wrap(Z3_mk_fpa_div(current(), Z3_mk_fpa_rne(current()), x.raw(), c.raw()))));
    EXPECT_EQ(s.check(), Result::Unsat);
  }
  EXPECT_EQ((x / c).str(), before);
}

TEST(SmtExpr, NumeralComparisonsFold) {
  Context ctx;
  EXPECT_TRUE((Expr::bv(3, 66) == Expr::bv(4, 66)).isFalse());
  EXPECT_TRUE((Expr::bv(3, 66) == Expr::bv(3, 66)).isTrue());
  EXPECT_TRUE(Expr::bvInt(true, 1, 66).slt(Expr::bv(0, 66)).isTrue());
  EXPECT_TRUE(Expr::bv(0x80, 8).sext(58).slt(Expr::bv(0, 66)).isTrue());
  EXPECT_TRUE(Expr::bv(0x80, 8).zext(58).slt(Expr::bv(0, 66)).isFalse());
}

TEST(SmtExpr, CanonicalRenamingIdentifiesAlphaEquivalentFormulasOnly) {
  Context ctx;
  const Sort s = Sort::floating(fp_format(DType::F32));
  const Expr x0 = Expr::var("x0", s), x1 = Expr::var("x1", s), y0 = Expr::var("y0", s);
  const Expr f0 = (x0 * Expr::fpBits(0xBF800000, fp_format(DType::F32))) != -x0;
  const Expr f1 = (x1 * Expr::fpBits(0xBF800000, fp_format(DType::F32))) != -x1;
  EXPECT_TRUE(f0.canonical().same(f1.canonical()));
  EXPECT_FALSE((x0 + x0 != x0).canonical().same((x0 + y0 != x0).canonical()));
  const Expr g = (x0 * Expr::fpBits(0x40000000, fp_format(DType::F32))) != -x0;  // a different constant
  EXPECT_FALSE(f0.canonical().same(g.canonical()));
}

TEST(SmtSolver, ProvesRefutesAndTimesOut) {
  Context ctx;
  const FPFormat f = fp_format(DType::F32);
  const Expr x = Expr::fromIEEE(Expr::var("xb", Sort::bv(32)), f);
  {
    Solver s(10000);  // x + -0.0 == x for every x (including -0.0 and NaN)
    s.add(x + Expr::zero(f, true) != x);
    EXPECT_EQ(s.check(), Result::Unsat);
  }
  {
    Solver s(10000);  // x + 0.0 == x fails at x = -0.0
    s.add(x + Expr::zero(f, false) != x);
    ASSERT_EQ(s.check(), Result::Sat);
    EXPECT_EQ(*s.model()->eval(Expr::var("xb", Sort::bv(32))).numeral(), 0x80000000u);
  }
  {
    // a - (-b) == b - (-a) holds (commutativity in disguise, which normalisation does not see) but
    // takes Z3 far more than 1 ms in f64: the answer must be Unknown, never Unsat.
    const FPFormat d = fp_format(DType::F64);
    const Expr a = Expr::var("a", Sort::floating(d)), b = Expr::var("b", Sort::floating(d));
    Solver s(1);
    s.add(a - (-b) != b - (-a));
    EXPECT_EQ(s.check(), Result::Unknown);
    EXPECT_EQ(s.reason_unknown(), "timeout");
  }
}

/// Budgets are deterministic: the same query under the same budget spends the same Z3 resource units
/// and gives the same answer, whatever the load (the wall clock is only a safety net).
TEST(SmtSolver, BudgetsAreResourceUnitsNotWallTime) {
  const FPFormat f = fp_format(DType::F32);
  // One check of a hard float query (associativity of *) in a fresh context: its answer and units.
  auto run = [&] {
    Context ctx;
    const Expr x = Expr::var("x", Sort::floating(f)), y = Expr::var("y", Sort::floating(f)), z = Expr::var("z", Sort::floating(f));
    Solver s(200);
    s.add((x * y) * z != x * (y * z));
    s.add(!(x * y * z).isNaN());
    const Result r = s.check();
    return std::make_pair(r, s.units());
  };
  std::vector<std::pair<Result, uint64_t>> runs;
  runs.push_back(run());
  runs.push_back(run());
  {  // the same check with the machine loaded: the answer must not change
    std::atomic<bool> stop{false};
    std::vector<std::thread> hogs;
    for (int h = 0; h < 2; ++h)
      hogs.emplace_back([&] {
        volatile uint64_t n = 0;
        while (!stop.load()) ++n;
      });
    runs.push_back(run());
    stop = true;
    for (auto& t : hogs) t.join();
  }
  runs.push_back(run());
  // Unloaded, Z3 stops by itself (the units budget, far inside the wall-clock net) and counts units.
  ASSERT_GT(runs[0].second, 0u);
  EXPECT_LE(runs[0].second, 200 * kRlimitPerMs + kRlimitPerMs);  // never far past the budget
  for (size_t k = 1; k < runs.size(); ++k) {
    EXPECT_EQ(runs[k].first, runs[0].first) << "run " << k;
    // Units are counted only when Z3 itself stopped (a check the wall-clock net abandoned has none).
    if (runs[k].second) EXPECT_EQ(runs[k].second, runs[0].second) << "run " << k;
  }
}

/// check() returns within its wall-clock safety net (plus a small slack) and soon after Context::interrupt, even
/// when Z3 itself would take longer to stop: a - (-b) == b - (-a) in f64 takes Z3 far longer than this.
/// A check that Z3 does not stop in time takes its context with it (Context::dead); a new context
/// works as usual.
TEST(SmtSolver, ChecksReturnWithinTheirTimeoutAndOnInterrupt) {
  using clock = std::chrono::steady_clock;
  auto ms_since = [](clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); };
  const FPFormat d = fp_format(DType::F64);
  {
    Context ctx;
    const Expr a = Expr::var("a", Sort::floating(d)), b = Expr::var("b", Sort::floating(d));
    Solver s(300);
    s.add(a - (-b) != b - (-a));
    const auto t0 = clock::now();
    EXPECT_EQ(s.check(), Result::Unknown);
    const double ms = ms_since(t0);
    std::printf("[ timeout  ] 300 ms: returned after %.1f ms (%s)%s\n", ms, s.reason_unknown().c_str(),
                ctx.dead() ? ", abandoned" : "");
    EXPECT_EQ(s.reason_unknown(), "timeout");
    // The budget is Z3's resource count (deterministic); the wall-clock safety net is
    // 300 * kWallFactor + kWallSlackMs, and the promise is that plus 10% + 100 ms; the rest is room for load.
    EXPECT_LT(ms, (300.0 * kWallFactor + kWallSlackMs) * 1.1 + 100 + 200);
  }
  {
    Context ctx;
    const Expr a = Expr::var("a", Sort::floating(d)), b = Expr::var("b", Sort::floating(d));
    Solver s(60000);
    s.add(a - (-b) != b - (-a));
    const auto t0 = clock::now();
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ctx.interrupt();
    });
    EXPECT_EQ(s.check(), Result::Unknown);
    const double ms = ms_since(t0);
    stopper.join();
    std::printf("[ interrupt] at 200 ms: returned after %.1f ms (%s)\n", ms, s.reason_unknown().c_str());
    EXPECT_LT(ms, 200 + 100 + 200);
    EXPECT_TRUE(ctx.dead());  // Z3 keeps an interrupted context cancelled
    EXPECT_THROW(Expr::var("c", Sort::boolean()), ContextAbandoned);
  }
  {
    Context ctx;
    const FPFormat f = fp_format(DType::F32);
    const Expr x = Expr::fromIEEE(Expr::var("xb", Sort::bv(32)), f);
    Solver s(10000);
    s.add(x + Expr::zero(f, false) != x);
    ASSERT_EQ(s.check(), Result::Sat);
    EXPECT_EQ(*s.model()->eval(Expr::var("xb", Sort::bv(32))).numeral(), 0x80000000u);
  }
}

/// Reused contexts (ContextReuse) answer as fresh ones, count each check's units from zero, and only a
/// clean context goes back to the pool: never an interrupted one, and none without a ContextReuse.
TEST(SmtSolver, ReusedContextsAnswerAsFreshOnesAndOnlyCleanOnesArePooled) {
  const FPFormat f = fp_format(DType::F32);
  // Three checks in one context: unsat, sat with its model, and unknown at a 1 ms budget.
  auto checks = [&] {
    Context ctx;
    const Expr x = Expr::fromIEEE(Expr::var("xb", Sort::bv(32)), f);
    std::vector<std::pair<Result, uint64_t>> out;
    Solver a(10000);
    a.add(x + Expr::zero(f, true) != x);
    out.push_back({a.check(), a.units()});
    Solver b(10000);
    b.add(x + Expr::zero(f, false) != x);
    out.push_back({b.check(), b.units()});
    EXPECT_EQ(*b.model()->eval(Expr::var("xb", Sort::bv(32))).numeral(), 0x80000000u);
    const FPFormat d = fp_format(DType::F64);
    const Expr p = Expr::var("p", Sort::floating(d)), q = Expr::var("q", Sort::floating(d));
    Solver c(1);
    c.add(p - (-q) != q - (-p));
    out.push_back({c.check(), c.units()});
    EXPECT_FALSE(ctx.dead());
    return out;
  };
  const int before = pooled_contexts();
  const auto fresh = checks();
  EXPECT_EQ(pooled_contexts(), before);  // no ContextReuse: deleted
  ASSERT_EQ(fresh[0].first, Result::Unsat);
  ASSERT_EQ(fresh[1].first, Result::Sat);
  ASSERT_EQ(fresh[2].first, Result::Unknown);
  {
    ContextReuse reuse;
    for (int round = 0; round < 3; ++round) {
      const auto again = checks();
      EXPECT_EQ(pooled_contexts(), std::max(before, 1)) << "round " << round;  // back in the pool, then taken again
      for (size_t k = 0; k < fresh.size(); ++k) {
        EXPECT_EQ(again[k].first, fresh[k].first) << "round " << round << ", check " << k;
        // Units are this check's own, not the context's running total.
        EXPECT_LE(again[k].second, 2 * fresh[k].second + kQuickUnits) << "round " << round << ", check " << k;
      }
    }
    const int pooled = pooled_contexts();
    {
      Context ctx;  // taken from the pool
      EXPECT_EQ(pooled_contexts(), pooled - 1);
      ctx.interrupt();
    }
    EXPECT_EQ(pooled_contexts(), pooled - 1);  // interrupted: deleted, not pooled
  }
  const int pooled = pooled_contexts();
  { Context ctx; }  // the ContextReuse is gone: neither taken nor given
  EXPECT_EQ(pooled_contexts(), pooled);
}

}  // namespace
}  // namespace ptir::smt
