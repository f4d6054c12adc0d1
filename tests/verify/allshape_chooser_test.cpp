// The all-shape prover's odometer (verify/allshape/chooser.h): every combination of discrete choices is
// enumerated exactly once, also when later choices depend on earlier ones (a reduction's axes on its
// operand's rank, a permutation on the rank), and a choice among one or none takes no digit.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "verify/allshape/chooser.h"

namespace ptir::allshape::detail {
namespace {

TEST(AllShapeChooser, EnumeratesEveryCombinationOfIndependentChoicesOnce) {
  Chooser ch;
  std::multiset<std::vector<int>> seen;
  do {
    ch.start();
    seen.insert({ch.choose(2), ch.choose(3), ch.choose(4)});
  } while (ch.next());
  EXPECT_EQ(seen.size(), 2u * 3u * 4u);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) EXPECT_EQ(seen.count({a, b, c}), 1u) << a << b << c;
}

TEST(AllShapeChooser, EnumeratesDependentChoicesExactly) {
  // The second choice has a+1 options and a third is asked only when b is odd: every run a path of a
  // tree whose leaves must each come exactly once.
  Chooser ch;
  std::multiset<std::vector<int>> seen;
  do {
    ch.start();
    std::vector<int> run;
    const int a = ch.choose(4);
    run.push_back(a);
    const int b = ch.choose(a + 1);
    run.push_back(b);
    if (b % 2 == 1) run.push_back(ch.choose(3));
    seen.insert(run);
  } while (ch.next());
  std::multiset<std::vector<int>> want;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b <= a; ++b) {
      if (b % 2 == 1)
        for (int c = 0; c < 3; ++c) want.insert({a, b, c});
      else
        want.insert({a, b});
    }
  EXPECT_EQ(seen, want);
}

TEST(AllShapeChooser, ChoicesAmongOneOrNoneTakeNoDigit) {
  Chooser ch;
  int runs = 0;
  do {
    ch.start();
    EXPECT_EQ(ch.choose(1), 0);
    EXPECT_EQ(ch.choose(0), 0);
    ++runs;
  } while (ch.next());
  EXPECT_EQ(runs, 1);
  // A run without choices is one run, too.
  Chooser none;
  runs = 0;
  do {
    none.start();
    ++runs;
  } while (none.next());
  EXPECT_EQ(runs, 1);
}

TEST(AllShapeChooser, EarlyDigitsChangeLast) {
  // Depth first: the last digit moves fastest, as an odometer.
  Chooser ch;
  std::vector<std::vector<int>> order;
  do {
    ch.start();
    order.push_back({ch.choose(2), ch.choose(2)});
  } while (ch.next());
  EXPECT_EQ(order, (std::vector<std::vector<int>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
}

}  // namespace
}  // namespace ptir::allshape::detail
