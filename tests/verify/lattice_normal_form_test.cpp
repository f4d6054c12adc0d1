/// The lattice normal form of the SMT term builder (verify/encode/scalar.cpp): a maximum (minimum) of
/// terms that are themselves maxima (minima) in the same dtype is built from the union of their leaves,
/// distinct and in term-id order; a reduce_max/reduce_min whose accumulation dtype widens the elements
/// exactly folds in the element dtype. Both rest on maximum and minimum being associative, commutative
/// and idempotent on every input, so they are checked against the other statements of the semantics:
/// Z3 proves random max/min trees equal to the same trees built without the normal form (every input,
/// bit for bit), and the interpreter agrees with chains of them (tests/verify/encode_agreement_test.cpp,
/// the `*_chain` cases). The last test pins what the normal form is for: the source and the target of a
/// merged reduction chain are the same term.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/text.h"
#include "verify/encode/encode.h"
#include "verify/encode/scalar.h"
#include "verify/smt/expr.h"
#include "verify/smt/solver.h"

namespace ptir::verify {
namespace {

/// A random tree of maximum/minimum over `leaves`, built by `build` (which reads the thread's switch).
struct Tree {
  bool is_leaf = true;
  int leaf = 0;
  bool max = true;
  std::vector<Tree> kids;
};

rc::Gen<Tree> gen_tree(int leaves, int depth) {
  if (depth == 0) return rc::gen::map(rc::gen::inRange(0, leaves), [](int l) { return Tree{true, l, true, {}}; });
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(0, leaves), [](int l) { return Tree{true, l, true, {}}; }),
      rc::gen::map(rc::gen::tuple(rc::gen::arbitrary<bool>(), gen_tree(leaves, depth - 1), gen_tree(leaves, depth - 1)),
                   [](const std::tuple<bool, Tree, Tree>& t) {
                     return Tree{false, 0, std::get<0>(t), {std::get<1>(t), std::get<2>(t)}};
                   }));
}

smt::Expr build(const Tree& t, const std::vector<smt::Expr>& xs, DType d) {
  if (t.is_leaf) return xs[static_cast<size_t>(t.leaf)];
  const smt::Expr a = build(t.kids[0], xs, d), b = build(t.kids[1], xs, d);
  return t.max ? sem::maximum(a, b, d) : sem::minimum(a, b, d);
}

TEST(LatticeNormalForm, TreesEqualTheirPlainEncodingForEveryInput) {
  const std::vector<DType> dtypes = {DType::BF16, DType::F16, DType::F32, DType::SI8, DType::UI8, DType::SI32, DType::I1};
  int flattened = 0;  // trees whose normal form is another term than the plain one
  const bool ok = rc::check("max/min trees: normal form == plain encoding", [&] {
    const DType d = *rc::gen::elementOf(dtypes);
    const int n = *rc::gen::inRange(1, 5);
    const Tree t = *gen_tree(n, 4);
    smt::Context ctx;
    std::vector<smt::Expr> xs;
    for (int i = 0; i < n; ++i) {
      const smt::Expr bits = smt::Expr::var("x" + std::to_string(i), sem::sort_of(d).kind == smt::Sort::Bool
                                                                          ? smt::Sort::boolean()
                                                                          : smt::Sort::bv(static_cast<unsigned>(dtype_bits(d))));
      xs.push_back(is_float(d) ? smt::Expr::fromIEEE(bits, sem::fp_format(d)) : bits);
    }
    const smt::Expr normal = build(t, xs, d);
    smt::Expr plain;
    {
      sem::LatticeNormalFormOff off;
      plain = build(t, xs, d);
    }
    if (!normal.same(plain)) ++flattened;
    smt::Solver s(20000);
    s.add(normal != plain);
    const smt::Result r = s.check();
    RC_LOG() << "dtype " << dtype_name(d) << "\nnormal: " << normal.str() << "\nplain:  " << plain.str();
    RC_ASSERT(r == smt::Result::Unsat);
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(flattened, 0) << "no tree was regrouped: the property checked nothing of the normal form";
}

std::vector<smt::Expr> encode_results(const std::string& text) {
  auto parsed = parse_program(text, "<lattice>");
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  const Program& p = *parsed.program;
  const SymInputs in = symbolic_inputs(p, p.entry());
  const BodyEncoding e = encode_body(p, p.entry(), in.tensors);
  std::vector<smt::Expr> out;
  for (const SymTensor& r : e.results)
    for (const smt::Expr& x : r.elems) out.push_back(x);
  return out;
}

TEST(LatticeNormalForm, AMergedReductionChainIsTheSameTerm) {
  for (const std::string d : {"f32", "f16", "bf16", "ui32", "si8"})
    for (const std::string op : {"reduce_max", "reduce_min"}) {
      smt::Context ctx;
      const std::string t = "tensor<" + d;
      const auto chain = encode_results("func @main(%x: " + t + ", 3x2x3>) -> " + t + ", 2> {\n  %i = " + op +
                                        " %x axes[0] -> " + t + ", 2x3>\n  %o = " + op + " %i axes[1] -> " + t +
                                        ", 2>\n  return %o\n}\n");
      const auto merged = encode_results("func @main(%x: " + t + ", 3x2x3>) -> " + t + ", 2> {\n  %o = " + op +
                                         " %x axes[0, 2] -> " + t + ", 2>\n  return %o\n}\n");
      ASSERT_EQ(chain.size(), merged.size());
      for (size_t i = 0; i < chain.size(); ++i)
        EXPECT_TRUE(chain[i].same(merged[i])) << op << " " << d << " element " << i;
      // Without the normal form they are different terms (what Z3 then has to reorder).
      sem::LatticeNormalFormOff off;
      const auto plain = encode_results("func @main(%x: " + t + ", 3x2x3>) -> " + t + ", 2> {\n  %i = " + op +
                                        " %x axes[0] -> " + t + ", 2x3>\n  %o = " + op + " %i axes[1] -> " + t +
                                        ", 2>\n  return %o\n}\n");
      ASSERT_EQ(plain.size(), merged.size());
      EXPECT_FALSE(plain[0].same(merged[0])) << op << " " << d;
    }
}

}  // namespace
}  // namespace ptir::verify
