/// The exact-widening identity of the SMT term builder (verify/encode/scalar.cpp `cast`): where x is cast
/// from A to M and rules::widens_exactly(A, M), a cast of that to T is built as the cast of x from A to T.
/// The identity is only as right as the widens_exactly table, so it is checked against both other
/// statements of the semantics: the interpreter (every value of every source dtype of at most 16 bits,
/// random and edge values of the wider ones, bit for bit, NaN payloads aside) and the SMT encoding without the identity (Z3
/// proves the two terms equal for every x, for the 32-bit sources the interpreter only samples).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "rewriter/rules/natives.h"
#include "verify/encode/scalar.h"
#include "verify/smt/expr.h"
#include "verify/smt/solver.h"

namespace ptir::verify {
namespace {

std::vector<DType> all_dtypes() {
  std::vector<DType> v;
  for (int k = 0; k < kNumDTypes; ++k) v.push_back(static_cast<DType>(k));
  return v;
}

std::string ty(DType d, int64_t n) { return "tensor<" + std::string(dtype_name(d)) + ", " + std::to_string(n) + ">"; }

Tensor run(const std::string& text, const Tensor& x) {
  ParseResult p = parse_program(text);
  if (!p.ok()) {
    ADD_FAILURE() << p.error << "\n" << text;
    return x;
  }
  std::vector<Tensor> in{x};
  RunResult r = run_program(*p.program, in);
  EXPECT_EQ(r.status, RunStatus::Ok) << r.message << "\n" << text;
  return r.results.empty() ? x : r.results[0];
}

TEST(CastWidening, TheIdentityIsTheInterpretersCastChain) {
  int triples = 0;
  for (DType a : all_dtypes())
    for (DType m : all_dtypes()) {
      if (a == m || !rules::widens_exactly(a, m)) continue;
      // Every value for sources of at most 16 bits; random and edge values beyond.
      const int bits = dtype_bits(a);
      const int64_t n = bits <= 16 ? (int64_t{1} << bits) : 4096;
      Tensor x = random_tensor(TensorType{a, {n}}, 7 + triples, 0.5);
      if (bits <= 16)
        for (int64_t i = 0; i < n; ++i) x.set_bits(i, static_cast<uint64_t>(i));
      for (DType t : all_dtypes()) {
        const std::string chain = "func @main(%x: " + ty(a, n) + ") -> " + ty(t, n) + " {\n  %m = cast %x -> " +
                                  ty(m, n) + "\n  %r = cast %m -> " + ty(t, n) + "\n  return %r\n}\n";
        const std::string direct = "func @main(%x: " + ty(a, n) + ") -> " + ty(t, n) + " {\n  %r = cast %x -> " +
                                   ty(t, n) + "\n  return %r\n}\n";
        const Tensor c = run(chain, x), d = run(direct, x);
        ASSERT_EQ(c.size(), d.size());
        for (int64_t i = 0; i < c.size(); ++i) {
          // NaN payloads aside, as everywhere in the encoding (one NaN in SMT; docs/semantics.md "Equivalence"):
          // bf16 0x7f81 cast to bf16 keeps its payload, through f32 it becomes the canonical NaN.
          if (is_float(t) && float_is_nan(t, c.bits(i)) && float_is_nan(t, d.bits(i))) continue;
          ASSERT_EQ(c.bits(i), d.bits(i)) << dtype_name(a) << " -> " << dtype_name(m) << " -> " << dtype_name(t)
                                          << " differs from " << dtype_name(a) << " -> " << dtype_name(t)
                                          << " at input bits " << x.bits(i);
        }
        ++triples;
      }
    }
  EXPECT_GT(triples, 100);
}

TEST(CastWidening, TheIdentityIsTheEncodingsCastChainForWideSources) {
  int proved = 0;
  for (DType a : all_dtypes()) {
    if (dtype_bits(a) <= 16) continue;  // every value of these is run through the interpreter above
    for (DType m : all_dtypes()) {
      if (a == m || !rules::widens_exactly(a, m)) continue;
      for (DType t : all_dtypes()) {
        smt::Context ctx;
        const smt::Expr x = smt::Expr::var("x", sem::sort_of(a));
        smt::Expr chain, direct;
        {
          sem::ExactWideningIdentityOff off;
          chain = sem::cast(sem::cast(x, a, m), m, t);
          direct = sem::cast(x, a, t);
        }
        smt::Solver s(60000);
        s.add(chain != direct);
        ASSERT_EQ(s.check(), smt::Result::Unsat)
            << dtype_name(a) << " -> " << dtype_name(m) << " -> " << dtype_name(t) << ": " << s.reason_unknown();
        // With the identity on, the chain is the direct cast's term itself.
        EXPECT_TRUE(sem::cast(sem::cast(x, a, m), m, t).same(sem::cast(x, a, t)));
        ++proved;
      }
    }
  }
  EXPECT_GT(proved, 20);
}

}  // namespace
}  // namespace ptir::verify
