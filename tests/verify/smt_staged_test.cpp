// Staged queries (verify/smt/staged.h), shared by the refinement checker and the all-shape prover:
// budgets in Z3 units with the wall clock as a net, answers by canonical form, cheap stages first up to
// the first unsat, produced only when reached.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <vector>

#include "verify/smt/staged.h"

namespace ptir::smt {
namespace {

using clock = std::chrono::steady_clock;

TEST(SmtStaged, UnitBudgetCountsUnitsAndHasAWallNet) {
  UnitBudget b(10, clock::now());
  EXPECT_EQ(b.left(), 10 * kRlimitPerMs);
  EXPECT_EQ(b.left_ms(), 10u);
  b.charge(3 * kRlimitPerMs + 1);
  EXPECT_EQ(b.spent(), 3 * kRlimitPerMs + 1);
  EXPECT_EQ(b.left_ms(), 6u);  // 7 ms minus one unit, in whole ms
  EXPECT_FALSE(b.exhausted());
  b.charge(7 * kRlimitPerMs - 1);
  EXPECT_EQ(b.left(), 0u);
  EXPECT_FALSE(b.exhausted());  // exactly spent: not over
  b.charge(1);
  EXPECT_TRUE(b.exhausted());
  EXPECT_EQ(b.left(), 0u);
  // The safety net: B * kWallFactor + kWallSlackMs after the start.
  const auto long_ago = clock::now() - std::chrono::milliseconds(10 * kWallFactor + kWallSlackMs + 1000);
  UnitBudget late(10, long_ago);
  EXPECT_TRUE(late.exhausted());
  EXPECT_EQ(late.wall_net(), long_ago + std::chrono::milliseconds(10 * kWallFactor + kWallSlackMs));
}

TEST(SmtStaged, CanonicalMapSharesAnEntryUpToRenaming) {
  Context ctx;
  const Expr x = Expr::var("x", Sort::bv(8)), y = Expr::var("y", Sort::bv(8));
  CanonicalMap<int> m;
  EXPECT_TRUE(m.emplace((x + x == x).canonical(), 1).second);
  auto [v, fresh] = m.emplace((y + y == y).canonical(), 2);  // the same formula up to renaming
  EXPECT_FALSE(fresh);
  EXPECT_EQ(*v, 1);
  EXPECT_EQ(m.find((x + y == x).canonical()), nullptr);
  m.clear();
  EXPECT_EQ(m.find((x + x == x).canonical()), nullptr);
}

TEST(SmtStaged, StageCacheAsksEachCanonicalFormOnce) {
  Context ctx;
  const Expr x = Expr::var("x", Sort::bv(8)), y = Expr::var("y", Sort::bv(8));
  StageCache cache;
  UnitBudget b(1000, clock::now());
  int asked = 0;
  EXPECT_TRUE(cache.unsat(x != x, 1000, b, &asked));
  EXPECT_TRUE(cache.unsat(y != y, 1000, b, &asked));  // cached
  EXPECT_FALSE(cache.unsat(x == y, 1000, b, &asked));  // sat: not unsat
  EXPECT_EQ(asked, 2);
  cache.clear();
  EXPECT_TRUE(cache.unsat(y != y, 1000, b, &asked));
  EXPECT_EQ(asked, 3);
}

TEST(SmtStaged, CheapStagesRunInOrderUpToTheFirstUnsatAndAreMadeOnlyWhenReached) {
  Context ctx;
  const Expr t = Expr::boolean(true), u = Expr::var("u", Sort::boolean());
  std::vector<int> made, asked;
  auto stage = [&](int k, Expr f) -> std::function<Expr()> {
    return [&made, k, f] {
      made.push_back(k);
      return f;
    };
  };
  const std::function<Expr()> stages[] = {stage(0, t), stage(1, t), stage(2, u), stage(3, t)};
  // Stage 1 is the same term as stage 0: not asked again. Stage 2 answers unsat: stage 3 is never made.
  StagesRun run = run_cheap_stages(stages, 0, [&](const Expr& f, size_t k) {
    asked.push_back(static_cast<int>(k));
    return f.same(u) ? StageStep::Unsat : StageStep::Open;
  });
  ASSERT_TRUE(run.unsat_at.has_value());
  EXPECT_EQ(*run.unsat_at, 2u);
  EXPECT_FALSE(run.stopped);
  EXPECT_EQ(made, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(asked, (std::vector<int>{0, 2}));
  // From a later stage; Stop ends the run without an unsat.
  made.clear();
  asked.clear();
  run = run_cheap_stages(stages, 3, [&](const Expr&, size_t k) {
    asked.push_back(static_cast<int>(k));
    return StageStep::Stop;
  });
  EXPECT_TRUE(run.stopped);
  EXPECT_FALSE(run.unsat_at.has_value());
  EXPECT_EQ(asked, (std::vector<int>{3}));
  // No stage unsat: the exact query is the caller's.
  run = run_cheap_stages(stages, 0, [&](const Expr&, size_t) { return StageStep::Open; });
  EXPECT_FALSE(run.stopped || run.unsat_at.has_value());
}

}  // namespace
}  // namespace ptir::smt
