// Control flow: cond picks a region, while runs to completion or stops with Bound at the iteration limit,
// scan threads carries and stacks ys; recursive regions and UB inside regions are reported, not crashed on.
#include <optional>

#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

constexpr const char* kCountTo10 = R"(
region ^inc(%s: tensor<si32>) -> tensor<si32> {
  %n = add %s, dense<1> : tensor<si32> -> tensor<si32>
  return %n
}
region ^lt10(%s: tensor<si32>) -> tensor<i1> {
  %c = compare %s, dense<10> : tensor<si32> dir[lt] -> tensor<i1>
  return %c
}
func @main(%x: tensor<si32>) -> tensor<si32> {
  %r = while %x cond[^lt10] body[^inc] -> tensor<si32>
  return %r
}
)";

/// cond runs the chosen region only.
TEST(InterpControl, Cond) {
  const char* text = R"(
region ^t(%a: tensor<f32>) -> tensor<f32> {
  %n = neg %a -> tensor<f32>
  return %n
}
region ^e(%a: tensor<f32>) -> tensor<f32> {
  return %a
}
func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = cond %p, %x then[^t] else[^e] -> tensor<f32>
  return %r
}
)";
  Tensor x = lit("dense<2.0> : tensor<f32>");
  EXPECT_EQ(ok_bits(run_text(text, {lit("dense<true> : tensor<i1>"), x})), (Bits{0xC0000000}));
  EXPECT_EQ(ok_bits(run_text(text, {lit("dense<false> : tensor<i1>"), x})), (Bits{0x40000000}));
}

/// while counts 0 -> 10 in exactly 10 body runs.
TEST(InterpControl, WhileRunsToCompletion) {
  EXPECT_EQ(ok_bits(run_text(kCountTo10, {lit("dense<0> : tensor<si32>")})), (Bits{10}));
  EXPECT_EQ(ok_bits(run_text(kCountTo10, {lit("dense<50> : tensor<si32>")})), (Bits{50}));
}

/// The bound counts body runs: 10 runs fit in max_while_iterations = 10, not in 9.
TEST(InterpControl, WhileBound) {
  EXPECT_EQ(ok_bits(run_text(kCountTo10, {lit("dense<0> : tensor<si32>")}, {.max_while_iterations = 10})), (Bits{10}));
  RunResult r = run_text(kCountTo10, {lit("dense<0> : tensor<si32>")}, {.max_while_iterations = 9});
  EXPECT_EQ(r.status, RunStatus::Bound);
  EXPECT_NE(r.message.find("while"), std::string::npos) << r.message;
  EXPECT_EQ(ok_bits(run_text(kCountTo10, {lit("dense<10> : tensor<si32>")}, {.max_while_iterations = 0})), (Bits{10}));
}

/// A loop whose state comes back never finishes: it stops with Bound at once (Brent's cycle search in
/// eval_while) rather than after max_while_iterations body runs, with the status the bound would give.
/// The cond is `s != 7` on a ui8 the body adds 2 to (wrapping): from an even start 7 never comes.
TEST(InterpControl, WhileWhoseStateRepeatsStopsAsAtTheBound) {
  const char* text = R"(
region ^step(%s: tensor<ui8>, %t: tensor<f32, 2>) -> (tensor<ui8>, tensor<f32, 2>) {
  %n = add %s, dense<2> : tensor<ui8> -> tensor<ui8>
  %u = neg %t -> tensor<f32, 2>
  return %n, %u
}
region ^not7(%s: tensor<ui8>, %t: tensor<f32, 2>) -> tensor<i1> {
  %c = compare %s, dense<7> : tensor<ui8> dir[ne] -> tensor<i1>
  return %c
}
func @main(%x: tensor<ui8>, %y: tensor<f32, 2>) -> (tensor<ui8>, tensor<f32, 2>) {
  %r, %q = while %x, %y cond[^not7] body[^step] -> (tensor<ui8>, tensor<f32, 2>)
  return %r, %q
}
)";
  const Tensor y = lit("dense<[1.0, -0.0]> : tensor<f32, 2>");
  // The state (s, t) has period 128 (s steps by 2 mod 256, t by negation): found long before the bound.
  RunResult r = run_text(text, {lit("dense<0> : tensor<ui8>"), y}, {.max_while_iterations = 1 << 20});
  EXPECT_EQ(r.status, RunStatus::Bound);
  EXPECT_NE(r.message.find("never finishes"), std::string::npos) << r.message;
  // The same status where the bound comes first.
  r = run_text(text, {lit("dense<0> : tensor<ui8>"), y}, {.max_while_iterations = 50});
  EXPECT_EQ(r.status, RunStatus::Bound);
  EXPECT_NE(r.message.find("did not finish within 50"), std::string::npos) << r.message;
  // An odd start reaches 7: the loop finishes (after (7 - 1) / 2 = 3 runs from 1), unaffected.
  r = run_text(text, {lit("dense<1> : tensor<ui8>"), y}, {.max_while_iterations = 1 << 20});
  EXPECT_EQ(ok_bits(r, 0), (Bits{7}));
  EXPECT_EQ(ok_bits(r, 1), lit_bits("dense<[-1.0, 0.0]> : tensor<f32, 2>"));
  // 9 reaches 7 only after wrapping (s = 9, 11, ..., 255, 1, 3, 5, 7: 127 runs), past several kept states.
  r = run_text(text, {lit("dense<9> : tensor<ui8>"), y}, {.max_while_iterations = 1 << 20});
  EXPECT_EQ(ok_bits(r, 0), (Bits{7}));
  EXPECT_EQ(ok_bits(r, 1), lit_bits("dense<[-1.0, 0.0]> : tensor<f32, 2>"));
  // A counter that never repeats within the bound still runs to it (from INT_MIN up to 10).
  RunResult c = run_text(kCountTo10, {lit("dense<-2147483648> : tensor<si32>")}, {.max_while_iterations = 5000});
  EXPECT_EQ(c.status, RunStatus::Bound);
  EXPECT_NE(c.message.find("did not finish within 5000"), std::string::npos) << c.message;
}

/// scan: a cumulative sum with a literal initial carry; ys are stacked along the leading dim.
TEST(InterpControl, ScanCumulativeSum) {
  const char* text = R"(
region ^step(%c: tensor<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = add %c, %x -> tensor<f32>
  return %s, %s
}
func @main(%xs: tensor<f32, 4>) -> (tensor<f32>, tensor<f32, 4>) {
  %c, %ys = scan dense<0.0> : tensor<f32>, %xs body[^step] carries[1] -> (tensor<f32>, tensor<f32, 4>)
  return %c, %ys
}
)";
  RunResult r = run_text(text, {lit("dense<[1.0, 2.0, 3.0, 4.0]> : tensor<f32, 4>")});
  EXPECT_EQ(ok_bits(r, 0), lit_bits("dense<10.0> : tensor<f32>"));
  EXPECT_EQ(ok_bits(r, 1), lit_bits("dense<[1.0, 3.0, 6.0, 10.0]> : tensor<f32, 4>"));
  std::string empty = text;  // the same program over an empty xs: zero steps, the initial carry
  for (size_t at; (at = empty.find("f32, 4>")) != std::string::npos;) empty.replace(at, 7, "f32, 0>");
  r = run_text(empty, {lit("dense<[]> : tensor<f32, 0>")});
  EXPECT_EQ(ok_bits(r, 0), (Bits{0}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{}));
}

/// scan over rows of a 2-D x, two carries, one y of rank 1.
TEST(InterpControl, ScanRows) {
  const char* text = R"(
region ^step(%n: tensor<si32>, %m: tensor<si32, 2>, %row: tensor<si32, 2>) -> (tensor<si32>, tensor<si32, 2>, tensor<si32, 2>) {
  %n2 = add %n, dense<1> : tensor<si32> -> tensor<si32>
  %m2 = maximum %m, %row -> tensor<si32, 2>
  %y = mul %row, %row -> tensor<si32, 2>
  return %n2, %m2, %y
}
func @main(%x: tensor<si32, 3x2>) -> (tensor<si32>, tensor<si32, 2>, tensor<si32, 3x2>) {
  %n, %m, %ys = scan dense<0> : tensor<si32>, dense<-100> : tensor<si32, 2>, %x body[^step] carries[2] -> (tensor<si32>, tensor<si32, 2>, tensor<si32, 3x2>)
  return %n, %m, %ys
}
)";
  RunResult r = run_text(text, {lit("dense<[[1, -2], [3, 0], [-5, 4]]> : tensor<si32, 3x2>")});
  EXPECT_EQ(ok_bits(r, 0), (Bits{3}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{3, 4}));
  EXPECT_EQ(ok_bits(r, 2), lit_bits("dense<[[1, 4], [9, 0], [25, 16]]> : tensor<si32, 3x2>"));
}

/// A region that (indirectly) runs itself is an error, not a stack overflow.
TEST(InterpControl, RecursiveRegionIsAnError) {
  const char* text = R"(
region ^r(%a: tensor<i1>) -> tensor<i1> {
  %b = cond %a, %a then[^r] else[^r] -> tensor<i1>
  return %b
}
func @main(%a: tensor<i1>) -> tensor<i1> {
  %b = cond %a, %a then[^r] else[^r] -> tensor<i1>
  return %b
}
)";
  RunResult r = run_text(text, {lit("dense<true> : tensor<i1>")});
  EXPECT_EQ(r.status, RunStatus::Error);
  EXPECT_NE(r.message.find("recursively"), std::string::npos) << r.message;
}

/// UB inside a loop body is reported at the instruction inside the region.
TEST(InterpControl, UBInsideRegion) {
  const char* text = R"(
region ^body(%s: tensor<si32>) -> tensor<si32> {
  %z = sub %s, %s -> tensor<si32>
  %q = div %s, %z -> tensor<si32>
  return %q
}
region ^go(%s: tensor<si32>) -> tensor<i1> {
  %c = compare %s, dense<0> : tensor<si32> dir[ne] -> tensor<i1>
  return %c
}
func @main(%x: tensor<si32>) -> tensor<si32> {
  %r = while %x cond[^go] body[^body] -> tensor<si32>
  return %r
}
)";
  ParseResult pr = parse_program(text);
  ASSERT_TRUE(pr.ok()) << pr.error;
  Tensor x = lit("dense<5> : tensor<si32>");
  RunResult r = run_program(*pr.program, std::span<const Tensor>(&x, 1));
  EXPECT_EQ(r.status, RunStatus::UB);
  ASSERT_NE(r.at, kNone);
  EXPECT_EQ(pr.program->op(r.at), OpCode::Div);
}

/// A PlanCache keeps each body's plan (the function's and its regions') across runs of one program, with
/// the same results as runs without it; a run of another program through the same cache starts over
/// (here one whose region `^inc` adds 2 instead of 1: a plan kept from the first would count by ones).
TEST(InterpControl, PlanCacheAcrossRunsAndPrograms) {
  ParseResult a = parse_program(kCountTo10, "a.ptir");
  ASSERT_TRUE(a.ok()) << a.error;
  std::string text_b = kCountTo10;
  text_b.replace(text_b.find("dense<1> : tensor<si32>"), 23, "dense<2> : tensor<si32>");
  ParseResult b = parse_program(text_b, "b.ptir");
  ASSERT_TRUE(b.ok()) << b.error;
  PlanCache cache;
  InterpOptions cached{.plans = &cache};
  for (int start : {0, 3, 9, 12}) {
    const std::vector<Tensor> x{lit("dense<" + std::to_string(start) + "> : tensor<si32>")};
    const RunResult plain = run_program(*a.program, x);
    const RunResult first = run_program(*a.program, x, cached), again = run_program(*a.program, x, cached);
    EXPECT_EQ(ok_bits(first), ok_bits(plain));
    EXPECT_EQ(ok_bits(again), ok_bits(plain));
    EXPECT_EQ(ok_bits(run_program(*b.program, x, cached)), ok_bits(run_program(*b.program, x)));
  }
  const std::vector<Tensor> one{lit("dense<1> : tensor<si32>")};
  EXPECT_EQ(ok_bits(run_program(*b.program, one, cached)), (Bits{11}));
  EXPECT_EQ(ok_bits(run_program(*a.program, one, cached)), (Bits{10}));
}

/// A PlanCache's tensor pool hands a later result the storage of a dead one (ir/interp.cpp TensorPool):
/// results of many shapes and dtypes, reductions, a splat literal expanded for a kernel and a loop whose
/// state dies one level up must all come out as in a run without a cache, run after run on changing
/// inputs. (A pooled tensor left with its old type fails here; the kernels write every element of a
/// result, so the zeroing the pool does, as Tensor(type) does, is not what this test sees.)
TEST(InterpControl, PooledStorageGivesTheSameResultsRunAfterRun) {
  const char* text = R"(
region ^body(%s: tensor<f32, 3>, %i: tensor<si32>) -> (tensor<f32, 3>, tensor<si32>) {
  %d = add %s, %s -> tensor<f32, 3>
  %n = add %i, dense<1> : tensor<si32> -> tensor<si32>
  return %d, %n
}
region ^more(%s: tensor<f32, 3>, %i: tensor<si32>) -> tensor<i1> {
  %c = compare %i, dense<3> : tensor<si32> dir[lt] -> tensor<i1>
  return %c
}
func @main(%x: tensor<f32, 2x3>, %k: tensor<si32, 4>) -> (tensor<f32, 3>, tensor<f32, 6x3>, tensor<si32>, tensor<f32, 3>, tensor<si32, 4>) {
  %r = reduce_sum %x axes[0] -> tensor<f32, 3>
  %e = mul %x, dense<2.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %c = concat %x, %e, %x axis[0] -> tensor<f32, 6x3>
  %t = reduce_sum %k axes[0] -> tensor<si32>
  %w, %j = while %r, dense<0> : tensor<si32> cond[^more] body[^body] -> (tensor<f32, 3>, tensor<si32>)
  %m = mul %k, %k -> tensor<si32, 4>
  return %r, %c, %t, %w, %m
}
)";
  ParseResult p = parse_program(text, "pool.ptir");
  ASSERT_TRUE(p.ok()) << p.error;
  PlanCache cache;
  const InterpOptions cached{.plans = &cache};
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const std::vector<Tensor> in = random_inputs(*p.program, p.program->entry(), seed);
    const RunResult plain = run_program(*p.program, in);
    ASSERT_EQ(plain.status, RunStatus::Ok) << plain.message;
    const RunResult pooled = run_program(*p.program, in, cached);
    ASSERT_EQ(pooled.status, RunStatus::Ok) << pooled.message;
    ASSERT_EQ(pooled.results.size(), plain.results.size());
    for (size_t k = 0; k < plain.results.size(); ++k)
      EXPECT_TRUE(pooled.results[k] == plain.results[k]) << "seed " << seed << ", result " << k;
  }
}

/// A MapMemo is used only for a call whose attributes equal its own, by value: a program built in the
/// storage of the one it replaces (same address, same counts, so the PlanCache keeps its memos) and
/// differing only in a transpose's permutation gets its own map.
TEST(InterpControl, MapMemoComparesAttributesByValue) {
  const auto text = [](const char* perm) {
    return std::string("func @main(%x: tensor<si32, 2x2>) -> (tensor<si32, 2x2>) {\n") +
           "  %y = transpose %x perm[" + perm + "] -> tensor<si32, 2x2>\n  return %y\n}\n";
  };
  const std::vector<Tensor> x{lit("dense<[[1, 2], [3, 4]]> : tensor<si32, 2x2>")};
  PlanCache cache;
  InterpOptions cached{.plans = &cache};
  std::optional<Program> slot;
  for (const char* perm : {"1, 0", "0, 1", "1, 0"}) {
    ParseResult r = parse_program(text(perm), "t.ptir");
    ASSERT_TRUE(r.ok()) << r.error;
    slot.reset();
    slot.emplace(std::move(*r.program));
    EXPECT_EQ(ok_bits(run_program(*slot, x, cached)), ok_bits(run_program(*slot, x))) << "perm " << perm;
  }
}

}  // namespace
}  // namespace ptir::test
