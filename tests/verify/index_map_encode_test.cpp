/// The bounded encoder runs every data-movement op as the interpreter does (both from the op's index map,
/// ir/index_map.h): for random small shapes and attributes of each op (tests/ir/op_gen.h) and random
/// inputs,
///  - on numerals (every input a constant) the encoding simplifies to the interpreter's bits and has UB
///    exactly where the interpreter reports it;
///  - with the index operands (every operand a map Reads: indices, starts, segment ids) symbolic and the
///    data numerals, Z3 finds UB possible under the inputs' values exactly when the interpreter reports
///    UB, and otherwise proves that no result element differs from the interpreter's (a Z3 unknown fails
///    the test). This exercises the if-then-else selection over candidate positions and the index-term
///    builder's decisions by bounds (verify/smt/index_terms.h).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <set>

#include "ir/index_map.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "tests/ir/op_gen.h"
#include "verify/encode/encode.h"
#include "verify/smt/expr.h"
#include "verify/smt/index_terms.h"
#include "verify/smt/solver.h"

namespace ptir::verify {
namespace {

/// The operands a map reads as indices.
std::set<int> read_operands(const imap::IndexMap& m) {
  std::set<int> r;
  for (const imap::Node& n : m.nodes)
    if (n.op == imap::Op::Read) r.insert(n.a);
  return r;
}

void check_op(OpCode op) {
  int symbolic = 0, ub = 0, cases = 0;
  const bool passed = rc::check(std::string(mnemonic(op)), [&] {
    const testgen::Gen g{.max_dim = 3, .max_rank = 3};
    const std::string text = g.instance(op);
    auto parsed = parse_program(text, "gen");
    RC_ASSERT(parsed.ok());
    const Program& p = *parsed.program;
    RC_LOG() << text;
    RC_ASSERT(verify_program(p).empty());
    const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
    const std::vector<Tensor> in =
        *rc::gen::arbitrary<bool>() ? random_inputs_avoiding_ub(p, p.entry(), seed) : random_inputs(p, p.entry(), seed);
    for (const Tensor& t : in) RC_LOG() << print_literal(t) << "\n";
    const RunResult run = run_body(p, p.entry(), in);
    RC_ASSERT(run.status == RunStatus::Ok || run.status == RunStatus::UB);
    ++cases;
    if (run.status == RunStatus::UB) ++ub;

    // Numerals.
    std::vector<SymTensor> sym;
    for (const Tensor& t : in) sym.push_back(constant_tensor(t));
    const BodyEncoding enc = encode_body(p, p.entry(), sym, EncodeOptions{.fold_concrete = false});
    const smt::Expr eub = enc.ub.simplify();
    RC_LOG() << "interpreter: " << run.message << "\nsmt ub: " << eub.str();
    RC_ASSERT(eub.isTrue() == (run.status == RunStatus::UB));
    RC_ASSERT(eub.isFalse() == (run.status == RunStatus::Ok));
    if (run.status == RunStatus::Ok)
      for (size_t k = 0; k < run.results.size(); ++k) {
        auto got = read_numerals(enc.results[k]);
        RC_ASSERT(got.has_value());
        RC_LOG() << "smt " << print_literal(*got) << "\ninterpreter " << print_literal(run.results[k]);
        RC_ASSERT(results_equal(*got, run.results[k]));
      }

    // Symbolic index operands, solved by Z3 under their values.
    InstId inst = kNone;
    p.for_each_inst(p.entry(), [&](InstId i) {
      if (p.op(i) != OpCode::Return) inst = i;
    });
    std::vector<TensorType> ots, rts;
    for (const Tensor& t : in) ots.push_back(t.type);
    for (uint32_t r = 0; r < p.num_results(inst); ++r) rts.push_back(p.type_of(p.result(inst, r)));
    auto m = imap::index_map(op, p.attrs_of(inst), ots, rts, imap::Sizes::Concrete, nullptr);
    RC_ASSERT(m.has_value());
    const std::set<int> reads = read_operands(*m);
    if (reads.empty()) return;
    ++symbolic;
    const SymInputs vars = symbolic_inputs(p, p.entry());
    std::vector<smt::Expr> fix;
    for (int k : reads) {
      sym[static_cast<size_t>(k)] = vars.tensors[static_cast<size_t>(k)];
      const SymTensor val = constant_tensor(in[static_cast<size_t>(k)]);
      for (size_t i = 0; i < val.elems.size(); ++i) fix.push_back(vars.bits[static_cast<size_t>(k)][i] == val.elems[i]);
    }
    const BodyEncoding senc = encode_body(p, p.entry(), sym, EncodeOptions{.fold_concrete = false});
    {
      smt::Solver s(5000);
      for (const smt::Expr& f : fix) s.add(f);
      s.add(senc.ub);
      const smt::Result r = s.check();
      RC_ASSERT(r != smt::Result::Unknown);
      RC_ASSERT((r == smt::Result::Sat) == (run.status == RunStatus::UB));
    }
    if (run.status != RunStatus::Ok) return;
    smt::Solver s(5000);
    for (const smt::Expr& f : fix) s.add(f);
    std::vector<smt::Expr> differs;
    for (size_t k = 0; k < run.results.size(); ++k) {
      const SymTensor want = constant_tensor(run.results[k]);
      for (size_t i = 0; i < want.elems.size(); ++i) differs.push_back(senc.results[k].elems[i] != want.elems[i]);
    }
    s.add(smt::Expr::any(differs));
    const smt::Result r = s.check();
    RC_ASSERT(r == smt::Result::Unsat);
  });
  EXPECT_TRUE(passed) << mnemonic(op);
  std::printf("[ encode map ] %-22s %4d cases, %3d with UB, %3d with symbolic indices\n",
              std::string(mnemonic(op)).c_str(), cases, ub, symbolic);
}

TEST(IndexMapEncode, EncoderEqualsInterpreterOnRandomShapes) {
  smt::Context ctx;
  for (OpCode op : testgen::data_movement_ops()) check_op(op);
}

/// The term builder's identities, each checked against Z3 on the terms it would otherwise build.
TEST(IndexTerms, IdentitiesAndBoundsDecide) {
  smt::Context ctx;
  smt::IndexTerms T;
  const smt::Expr x8 = smt::Expr::var("x", smt::Sort::bv(8));
  const smt::ITerm x = T.element(x8, 8, true);  // [-128, 127]
  EXPECT_EQ(x.lo, -128);
  EXPECT_EQ(x.hi, 127);
  // Offsets cancel: (x + 3) - (x + 1) = 2, and (x + 3) == 5 is x == 2.
  EXPECT_EQ(T.sub(T.add(x, T.num(3)), T.add(x, T.num(1))).known, 2);
  EXPECT_TRUE(T.expr(T.eq(T.add(x, T.num(3)), T.num(5))).same(x.base == T.numeral(2)));
  // 3 - x == 5 is x == -2.
  EXPECT_TRUE(T.expr(T.eq(T.sub(T.num(3), x), T.num(5))).same(x.base == T.numeral(-2)));
  // Bounds decide: x < 200 and x >= -128 hold, x == 300 does not.
  EXPECT_TRUE(T.lt(x, T.num(200)).is_true());
  EXPECT_TRUE(T.le(T.num(-128), x).is_true());
  EXPECT_TRUE(T.eq(x, T.num(300)).is_false());
  // A clamp the bounds make moot is x itself; a clamp of [0, 3] has bounds [0, 3].
  EXPECT_TRUE(T.clamp(x, T.num(-200), T.num(200)).base.same(x.base));
  const smt::ITerm c = T.clamp(x, T.num(0), T.num(3));
  EXPECT_EQ(c.lo, 0);
  EXPECT_EQ(c.hi, 3);
  EXPECT_TRUE(T.lt(c, T.num(4)).is_true());
  // mod / floordiv with one quotient over the bounds: linear.
  EXPECT_TRUE(T.mod(c, T.num(4)).base.same(c.base));
  EXPECT_EQ(T.floordiv(c, T.num(4)).known, 0);
  // Multiplying by 0, 1, -1.
  EXPECT_EQ(T.mul(x, T.num(0)).known, 0);
  EXPECT_TRUE(T.mul(x, T.num(1)).base.same(x.base));
  EXPECT_EQ(T.mul(x, T.num(-1)).sign, -1);
  // Every simplified term equals the plain term for every x (Z3: the difference is unsat).
  auto same_value = [&](const smt::Expr& a, const smt::Expr& b) {
    smt::Solver s(2000);
    s.add(a != b);
    return s.check() == smt::Result::Unsat;
  };
  const smt::Expr xe = x.base;
  auto nm = [&](int64_t k) { return T.numeral(k); };
  EXPECT_TRUE(same_value(T.expr(T.lt(T.sub(T.num(3), x), T.num(1))), (nm(3) - xe).slt(nm(1))));
  EXPECT_TRUE(same_value(T.expr(T.le(T.num(1), T.sub(T.num(3), x))), nm(1).sle(nm(3) - xe)));
  EXPECT_TRUE(same_value(T.expr(T.lt(T.num(1), T.add(x, T.num(7)))), nm(1).slt(xe + nm(7))));
  EXPECT_TRUE(same_value(T.expr(T.floordiv(x, T.num(3))), smt::Expr::ite(xe.slt(nm(0)), (xe - nm(2)).sdiv(nm(3)), xe.sdiv(nm(3)))));
  for (int64_t k : {-7, -6, -1, 0, 5})  // floor semantics on numerals
    EXPECT_EQ(T.floordiv(T.num(k), T.num(3)).known, k >= 0 ? k / 3 : -((-k + 2) / 3));
  // A BV66 term that might not fit 66 bits is refused, never wrapped: two ui64 sums fit, three do not.
  const smt::ITerm u = T.element(smt::Expr::var("u", smt::Sort::bv(64)), 64, false);
  const smt::ITerm v = T.element(smt::Expr::var("v", smt::Sort::bv(64)), 64, false);
  const smt::ITerm uv = T.add(u, v);
  EXPECT_EQ(uv.mag, 65);
  EXPECT_THROW(T.add(uv, u), std::overflow_error);
  EXPECT_THROW(T.mul(u, T.num(3)), std::overflow_error);
  // Int mode: the same identities over mathematical integers.
  smt::IndexTerms I(smt::IndexTerms::Mode::Int);
  const smt::ITerm n = I.term(smt::Expr::var("n", smt::Sort::integer()), 0, 10);
  EXPECT_TRUE(I.expr(I.eq(I.add(n, I.num(3)), I.num(5))).same(n.base == smt::Expr::intVal(2)));
  EXPECT_TRUE(I.lt(n, I.num(11)).is_true());
  EXPECT_EQ(I.sub(I.add(n, I.num(4)), n).known, 4);
  const smt::Expr fm = T.expr(T.mod(x, T.num(3)));
  smt::Solver s(2000);  // 0 <= x mod 3 < 3 and x - x mod 3 is a multiple of 3
  s.add(!(nm(0).sle(fm) && fm.slt(nm(3))));
  EXPECT_EQ(s.check(), smt::Result::Unsat);
}

}  // namespace
}  // namespace ptir::verify
