/// The facts SMT is given about exp, log, tanh and erf (verify/encode/transcendental.h) hold of the
/// interpreter - the functions ptir's semantics names - and each fact's SMT form says what its concrete
/// form says. f16 and bf16: every input. f32: every one of the 2^32 inputs (TranscendentalFacts.
/// ExhaustiveF32, minutes of CPU: its own ctest, label exhaustive). f64: the
/// Annex F facts on special values (those are the only f64 facts). rsqrt's exact encoding agrees with the
/// interpreter. The exhaustive f32 run is its own ctest (label exhaustive); every run checks a sample and
/// that the libm is the one the exhaustive run was made on.
#include <gtest/gtest.h>

#include <gnu/libc-version.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <bit>
#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "ir/dtype.h"
#include "ir/interp/scalar.h"
#include "ir/interp/numeric.h"
#include "verify/encode/scalar.h"
#include "verify/encode/transcendental.h"
#include "verify/smt/expr.h"
#include "verify/smt/solver.h"

namespace ptir::verify::transc {
namespace {

using interp::Unary;

Unary unary_of(OpCode op) {
  Unary u = Unary::Identity;
  EXPECT_TRUE(interp::unary_of(op, u)) << mnemonic(op);
  return u;
}

constexpr OpCode kOps[] = {OpCode::Exp, OpCode::Log, OpCode::Tanh, OpCode::Erf};

/// Equal values, NaN equal to NaN, zeros by sign.
bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

/// f(x) as the interpreter computes it, decoded.
double f_of(OpCode op, DType t, uint64_t bits) {
  return interp::load_f(t, interp::float_unary(unary_of(op), t, bits));
}

/// Every fact of `op` that applies to `t`, checked on inputs `xs` (bit patterns of t): unary facts on
/// each, pair facts on neighbours in value order (monotonicity: enough by transitivity) and on x, -x.
/// Returns the number of violations (and records the first few).
template <class Inputs>
int check_facts(OpCode op, DType t, const Inputs& xs) {
  int bad = 0;
  std::vector<std::pair<double, double>> pts;  // (x, f(x)) of the non-NaN inputs
  for (uint64_t b : xs) {
    const double x = interp::load_f(t, b), y = f_of(op, t, b);
    for (const UnaryFact& f : unary_facts())
      if (f.op == op && applies(f.basis, t) && !f.holds(x, y) && bad++ < 5)
        ADD_FAILURE() << dtype_name(t) << " " << f.text << ": fails at x = " << x << " (f(x) = " << y << ")";
    if (!std::isnan(x)) pts.emplace_back(x, y);
  }
  std::sort(pts.begin(), pts.end(), [](auto& a, auto& b) {
    return a.first < b.first || (a.first == b.first && std::signbit(a.first) > std::signbit(b.first));
  });
  for (const PairFact& f : pair_facts()) {
    if (f.op != op || !applies(f.basis, t)) continue;
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      const auto& [a, ya] = pts[i];
      const auto& [b, yb] = pts[i + 1];
      if (!f.holds(a, ya, b, yb) && bad++ < 5)
        ADD_FAILURE() << dtype_name(t) << " " << f.text << ": fails at " << a << ", " << b << " (" << ya << ", " << yb << ")";
    }
    for (uint64_t bits : xs) {  // x and -x
      const uint64_t nb = bits ^ sign_mask(t);
      const double a = interp::load_f(t, bits), b = interp::load_f(t, nb);
      if (!f.holds(a, f_of(op, t, bits), b, f_of(op, t, nb)) && bad++ < 5)
        ADD_FAILURE() << dtype_name(t) << " " << f.text << ": fails at " << a << ", " << b;
    }
  }
  return bad;
}

struct AllBits {
  DType t;
  struct It {
    uint64_t v;
    uint64_t operator*() const { return v; }
    It& operator++() { return ++v, *this; }
    bool operator!=(const It& o) const { return v != o.v; }
  };
  It begin() const { return {0}; }
  It end() const { return {uint64_t{1} << dtype_bits(t)}; }
};

TEST(TranscendentalFacts, HoldOnEveryF16AndBf16Input) {
  for (DType t : {DType::F16, DType::BF16})
    for (OpCode op : kOps) EXPECT_EQ(check_facts(op, t, AllBits{t}), 0) << mnemonic(op) << " " << dtype_name(t);
}

TEST(TranscendentalFacts, AnnexFFactsHoldOnF64SpecialValues) {
  const DType t = DType::F64;
  std::vector<uint64_t> xs = {0, sign_mask(t), float_inf(t, false), float_inf(t, true), canonical_nan(t),
                              interp::store_f(t, 1.0), interp::store_f(t, -1.0), interp::store_f(t, 0.5),
                              interp::store_f(t, 2.0), 1, sign_mask(t) | 1};
  std::mt19937_64 rng(7);
  for (int k = 0; k < 20000; ++k) xs.push_back(rng());
  for (OpCode op : kOps) EXPECT_EQ(check_facts(op, t, xs), 0) << mnemonic(op);
  // f64 gets no fact of the exhaustive basis: its inputs cannot all be checked.
  for (const UnaryFact& f : unary_facts()) EXPECT_EQ(applies(f.basis, t), f.basis == Basis::AnnexF) << f.text;
  for (const PairFact& f : pair_facts()) EXPECT_FALSE(applies(f.basis, t)) << f.text;
}

/// The f32 facts on the magnitudes m = 0, stride, 2*stride, ... (and m + 1 after each, so neighbours in
/// value order are pairs), +m and -m side by side: unary facts on both, oddness on the pair,
/// monotonicity on neighbours (+m after +m', -m before -m'); with stride 1 that is every f32 number and,
/// by transitivity, every ordered pair; then the NaN patterns (every one with stride 1). Two threads.
/// Returns the number of violations; `first` gets the first failing pattern.
uint64_t check_f32(OpCode op, uint64_t stride, uint64_t* first) {
  const DType t = DType::F32;
  const uint64_t sign = sign_mask(t), inf = float_inf(t, false);
  const Unary u = unary_of(op);
  std::vector<const UnaryFact*> un;
  std::vector<const PairFact*> pr;
  for (const UnaryFact& f : unary_facts())
    if (f.op == op && applies(f.basis, t)) un.push_back(&f);
  for (const PairFact& f : pair_facts())
    if (f.op == op && applies(f.basis, t)) pr.push_back(&f);
  // The interpreter's f32 function itself (float_unary of f32 calls it and stores its value exactly;
  // TranscendentalFacts.F32FunctionIsTheInterpreters checks that they agree).
  auto f_at = [&](uint64_t bits) {
    return static_cast<double>(interp::f32_transcendental(u, std::bit_cast<float>(static_cast<uint32_t>(bits))));
  };
  auto x_at = [](uint64_t bits) { return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits))); };
  std::atomic<uint64_t> bad{0};
  std::atomic<uint64_t> first_bad{~uint64_t{0}};
  auto note = [&](uint64_t bits) {
    ++bad;
    uint64_t want = ~uint64_t{0};
    first_bad.compare_exchange_strong(want, bits);
  };
  auto range = [&](uint64_t lo, uint64_t hi) {  // magnitudes lo .. hi (inclusive)
    double pp = 0, pfp = 0, pn = 0, pfn = 0;   // the previous magnitude's +m, f(+m), -m, f(-m)
    uint64_t prev = ~uint64_t{0};
    // stride 1: every magnitude; else k*stride and k*stride + 1 for every k.
    auto next = [&](uint64_t m) { return stride == 1 || m % stride == 0 ? m + 1 : (m / stride + 1) * stride; };
    for (uint64_t m = lo; m <= hi; m = next(m)) {
      const double xp = x_at(m), xn = x_at(m | sign);
      const double yp = f_at(m), yn = f_at(m | sign);
      for (const UnaryFact* f : un)
        if (!f->holds(xp, yp) || !f->holds(xn, yn)) note(m);
      for (const PairFact* f : pr) {
        if (!f->holds(xn, yn, xp, yp) || !f->holds(xp, yp, xn, yn)) note(m);  // x, -x (and -0 < +0)
        if (prev + 1 == m && (!f->holds(pp, pfp, xp, yp) || !f->holds(xn, yn, pn, pfn))) note(m);
      }
      pp = xp, pfp = yp, pn = xn, pfn = yn, prev = m;
    }
  };
  const uint64_t mid = inf / 2;
  std::thread other(range, 0, mid);
  range(mid, inf);  // overlaps the other range at `mid`: the seam's pairs are checked
  other.join();
  for (uint64_t m = inf + 1; m <= bits_mask(t) >> 1; m += stride)  // NaN patterns of both signs
    for (uint64_t bits : {m, m | sign})
      for (const UnaryFact* f : un)
        if (!f->holds(x_at(bits), f_at(bits))) note(bits);
  *first = first_bad.load();
  return bad.load();
}

/// The glibc the exhaustive run (below) was made on; the facts of the exhaustive basis are claimed for it.
constexpr std::string_view kCheckedLibc = "2.36";

/// Every f32 input: 2^32 evaluations of each function (about 12 minutes of CPU on this project's 2-core
/// machine), so it runs as its own ctest, `soundness/transcendental_facts_exhaustive` (label exhaustive,
/// PTIR_TEST_EXHAUSTIVE=1 scripts/test), and skips elsewhere. Run it again on a libm other than
/// kCheckedLibc.
TEST(TranscendentalFacts, ExhaustiveF32) {
  const char* on = std::getenv("PTIR_EXHAUSTIVE_F32");
  if (!on || std::string_view(on) != "1") GTEST_SKIP() << "set PTIR_EXHAUSTIVE_F32=1 (ctest -L exhaustive)";
  for (OpCode op : kOps) {
    uint64_t first = 0;
    EXPECT_EQ(check_f32(op, 1, &first), 0u) << mnemonic(op) << ": a fact fails on f32, first at bits " << first;
  }
}

/// In every run: the libm is the one the exhaustive check was made on, and the facts hold on every
/// 4093rd f32 magnitude and its neighbour (about a million inputs per function).
TEST(TranscendentalFacts, SampledF32OnTheCheckedLibc) {
  EXPECT_EQ(std::string_view(gnu_get_libc_version()), kCheckedLibc)
      << "the f32 facts of verify/encode/transcendental.cpp were checked on every input of glibc " << kCheckedLibc
      << " only: run PTIR_EXHAUSTIVE_F32=1 ptir_verify_tests --gtest_filter=TranscendentalFacts.ExhaustiveF32 "
         "here, then update kCheckedLibc";
  for (OpCode op : kOps) {
    uint64_t first = 0;
    EXPECT_EQ(check_f32(op, 4093, &first), 0u) << mnemonic(op) << ": a fact fails on f32, first at bits " << first;
  }
}

/// The function the f32 checks call is what the interpreter computes for f32.
TEST(TranscendentalFacts, F32FunctionIsTheInterpreters) {
  for (OpCode op : kOps)
    for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 65537) {
      const double want = interp::load_f(DType::F32, interp::float_unary(unary_of(op), DType::F32, bits));
      const double got = interp::f32_transcendental(unary_of(op), std::bit_cast<float>(static_cast<uint32_t>(bits)));
      ASSERT_TRUE(same_value(got, want)) << mnemonic(op) << " " << bits;
    }
}

/// A fact's SMT form and its concrete form agree, on pairs (x, y) that are the function's value and on
/// pairs that are not (so a fact that is wrong as a predicate shows even where libm satisfies it).
TEST(TranscendentalFacts, SmtFormsSayWhatConcreteFormsSay) {
  smt::Context ctx;
  std::mt19937_64 rng(11);
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
    std::vector<uint64_t> pool = {0, sign_mask(t), float_inf(t, false), float_inf(t, true), canonical_nan(t),
                                  interp::store_f(t, 1.0), interp::store_f(t, -1.0), interp::store_f(t, 0.5),
                                  interp::store_f(t, 2.0), interp::store_f(t, -0.5), 1};
    for (int k = 0; k < 12; ++k) pool.push_back(rng() & bits_mask(t));
    auto num = [&](uint64_t b) { return sem::constant(t, b); };
    int checked = 0;
    for (OpCode op : kOps) {
      for (uint64_t xb : pool)
        for (uint64_t yb : {interp::float_unary(unary_of(op), t, xb), pool[rng() % pool.size()]}) {
          const double x = interp::load_f(t, xb), y = interp::load_f(t, yb);
          for (const UnaryFact& f : unary_facts()) {
            if (f.op != op) continue;
            const smt::Expr e = f.smt(num(xb), num(yb), t).simplify();
            ASSERT_TRUE(e.isTrue() || e.isFalse()) << f.text;
            EXPECT_EQ(e.isTrue(), f.holds(x, y)) << f.text << " at " << x << ", " << y;
            ++checked;
          }
        }
      for (int k = 0; k < 60; ++k) {
        const uint64_t a = pool[rng() % pool.size()], b = k % 3 == 0 ? a ^ sign_mask(t) : pool[rng() % pool.size()];
        const uint64_t ya = pool[rng() % pool.size()], yb = k % 2 ? ya ^ sign_mask(t) : pool[rng() % pool.size()];
        for (const PairFact& f : pair_facts()) {
          if (f.op != op) continue;
          const smt::Expr e = f.smt(num(a), num(ya), num(b), num(yb), t).simplify();
          ASSERT_TRUE(e.isTrue() || e.isFalse()) << f.text;
          EXPECT_EQ(e.isTrue(), f.holds(interp::load_f(t, a), interp::load_f(t, ya), interp::load_f(t, b),
                                        interp::load_f(t, yb)))
              << f.text;
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 400) << dtype_name(t);
  }
}

/// rsqrt is encoded exactly: on every f16 and bf16 input and on sampled f32/f64 inputs, the SMT term
/// of a numeral folds to the interpreter's bits.
TEST(TranscendentalFacts, RsqrtEncodingIsTheInterpreters) {
  smt::Context ctx;
  std::mt19937_64 rng(5);
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
    std::vector<uint64_t> xs = {0, sign_mask(t), float_inf(t, false), float_inf(t, true), canonical_nan(t), 1,
                                interp::store_f(t, 4.0), interp::store_f(t, 2.0), interp::store_f(t, -1.0)};
    const int n = dtype_bits(t) == 16 ? 1500 : 1500;
    for (int k = 0; k < n; ++k) xs.push_back(rng() & bits_mask(t));
    for (uint64_t xb : xs) {
      const uint64_t want = interp::float_unary(Unary::Rsqrt, t, xb);
      const auto got = rsqrt(sem::constant(t, xb), t).simplify().numeral();
      ASSERT_TRUE(got.has_value()) << dtype_name(t);
      if (float_is_nan(t, want)) {
        EXPECT_TRUE(float_is_nan(t, *got)) << dtype_name(t) << " " << xb;
      } else {
        EXPECT_EQ(*got, want) << dtype_name(t) << " x bits " << xb;
      }
    }
  }
}

/// A query that applies exp twice gets the facts; Z3 then proves what holds for any monotone
/// function with exp's special values, and still cannot prove what needs exp's exact values.
TEST(TranscendentalFacts, FactsDecideMonotoneQueriesAndNothingMore) {
  smt::Context ctx;
  const DType t = DType::F32;
  const smt::Sort s = sem::sort_of(t);
  const smt::Expr a = smt::Expr::var("a", s), b = smt::Expr::var("b", s);
  smt::Func exp(uf_name(OpCode::Exp, t), std::vector<smt::Sort>{s}, s);
  const smt::Expr ea = exp({&a, 1}), eb = exp({&b, 1});
  // max(exp a, exp b) != exp(max(a, b)) is unsat with the facts.
  const smt::Expr m = sem::maximum(a, b, t);
  const smt::Expr em = exp({&m, 1});
  const smt::Expr goal = sem::maximum(ea, eb, t) != em;
  {
    smt::Solver sv(20000);
    sv.add(goal);
    for (const smt::Expr& f : facts_for({&goal, 1})) sv.add(f);
    EXPECT_EQ(sv.check(), smt::Result::Unsat);
  }
  {  // without them it is sat (exp is any function)
    smt::Solver sv(20000);
    sv.add(goal);
    EXPECT_EQ(sv.check(), smt::Result::Sat);
  }
  {  // exp(a) == exp(b) for a != b needs exp's values: not decided by the facts (sat)
    const smt::Expr g2 = (ea == eb) && a.flt(b);
    smt::Solver sv(20000);
    sv.add(g2);
    for (const smt::Expr& f : facts_for({&g2, 1})) sv.add(f);
    EXPECT_EQ(sv.check(), smt::Result::Sat);
  }
  // An f64 application gets no monotonicity.
  const smt::Sort s64 = sem::sort_of(DType::F64);
  const smt::Expr c = smt::Expr::var("c", s64), d = smt::Expr::var("d", s64);
  smt::Func exp64(uf_name(OpCode::Exp, DType::F64), std::vector<smt::Sort>{s64}, s64);
  const smt::Expr g3 = exp64({&c, 1}).flt(exp64({&d, 1})) && d.flt(c);
  smt::Solver sv(20000);
  sv.add(g3);
  for (const smt::Expr& f : facts_for({&g3, 1})) sv.add(f);
  EXPECT_EQ(sv.check(), smt::Result::Sat);
}

/// lemmas_at: at the argument a model chose, the application takes the interpreter's value; the lemma
/// says nothing at any other argument (+0 and -0 are different arguments; a NaN argument gives NaN).
TEST(TranscendentalFacts, LemmasAtAModelsPointsAreTheInterpretersValues) {
  smt::Context ctx;
  const DType t = DType::F32;
  const smt::Sort s = sem::sort_of(t);
  const smt::Expr a = smt::Expr::var("a", s);
  smt::Func tanh(uf_name(OpCode::Tanh, t), std::vector<smt::Sort>{s}, s);
  const smt::Expr ta = tanh({&a, 1});
  auto lemmas_with = [&](uint64_t a_bits) {
    smt::Solver sv(20000);
    const smt::Expr pin = a == sem::constant(t, a_bits);
    sv.add(pin);
    sv.add(ta == ta);
    EXPECT_EQ(sv.check(), smt::Result::Sat);
    const smt::Expr f = ta.flt(ta) || pin;  // a formula that mentions tanh(a)
    return lemmas_at({&f, 1}, *sv.model());
  };
  auto decided = [&](const std::vector<smt::Expr>& lemmas, uint64_t a_bits, const smt::Expr& claim) {
    smt::Solver sv(20000);
    sv.add(a == sem::constant(t, a_bits));
    for (const smt::Expr& l : lemmas) sv.add(l);
    sv.add(!claim);
    return sv.check() == smt::Result::Unsat;  // the claim follows
  };
  const uint64_t half = std::bit_cast<uint32_t>(0.5f), neg_zero = 0x80000000u, nan = 0x7fc00000u;
  const uint64_t tanh_half = interp::float_unary(Unary::Tanh, t, half);
  const std::vector<smt::Expr> at_half = lemmas_with(half);
  ASSERT_EQ(at_half.size(), 1u);
  EXPECT_TRUE(decided(at_half, half, ta == sem::constant(t, tanh_half)));
  // Elsewhere tanh stays any function: at 0.25 the lemma does not give libm's value.
  const uint64_t quarter = std::bit_cast<uint32_t>(0.25f);
  EXPECT_FALSE(decided(at_half, quarter, ta == sem::constant(t, interp::float_unary(Unary::Tanh, t, quarter))));
  // -0: tanh(-0) = -0, and nothing about +0.
  const std::vector<smt::Expr> at_neg_zero = lemmas_with(neg_zero);
  EXPECT_TRUE(decided(at_neg_zero, neg_zero, ta == sem::constant(t, neg_zero)));
  EXPECT_FALSE(decided(at_neg_zero, 0, ta == sem::constant(t, 0)));
  // NaN: NaN (SMT's one NaN).
  const std::vector<smt::Expr> at_nan = lemmas_with(nan);
  EXPECT_TRUE(decided(at_nan, nan, ta.isNaN()));
}

}  // namespace
}  // namespace ptir::verify::transc
