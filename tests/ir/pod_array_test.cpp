// PodArray (ir/pod_array.h): the realloc-grown array behind the Program's per-instruction arrays keeps
// every element through growth, copies and moves, and value-initializes what it adds as std::vector does.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ir/pod_array.h"
#include "ir/program.h"

namespace ptir {
namespace {

struct Entry {
  uint32_t key = 7;  // default member initializers must be honoured by resize()
  uint32_t failed = 0;
};

TEST(PodArray, GrowsLikeAVectorAndKeepsEveryElement) {
  PodArray<uint64_t> a;
  std::vector<uint64_t> ref;
  EXPECT_TRUE(a.empty());
  // Past 1 MB, so the block becomes a mapping and is grown with mremap several times.
  for (uint64_t k = 0; k < 3'000'000; ++k) {
    const uint64_t v = k * 0x9e3779b97f4a7c15ULL;
    a.push_back(v);
    ref.push_back(v);
  }
  ASSERT_EQ(a.size(), ref.size());
  EXPECT_GE(a.capacity(), a.size());
  for (size_t k = 0; k < ref.size(); k += 997) ASSERT_EQ(a[k], ref[k]) << k;
  EXPECT_EQ(a.back(), ref.back());
  EXPECT_EQ(a.front(), ref.front());
  a.reserve(a.size() * 2);  // an explicit reserve also keeps the contents
  for (size_t k = 0; k < ref.size(); k += 991) ASSERT_EQ(a[k], ref[k]) << k;
  a.pop_back();
  EXPECT_EQ(a.size(), ref.size() - 1);
  a.clear();
  EXPECT_TRUE(a.empty());
}

TEST(PodArray, AnElementSizeThatDoesNotDivideAPageCrossesIntoAMapping) {
  // 20-byte elements (as ValueInfo): the block crosses the 1 MB mark where it becomes its own mapping,
  // grows as one, and is released as one (a mismatch would crash here or under ASan).
  struct Twenty {
    uint32_t a, b, c, d, e;
  };
  static_assert(sizeof(Twenty) == 20);
  PodArray<Twenty> a;
  for (uint32_t k = 0; k < 200'000; ++k) a.push_back(Twenty{k, k + 1, k + 2, k + 3, k + 4});
  for (uint32_t k = 0; k < 200'000; k += 331) ASSERT_EQ(a[k].e, k + 4) << k;
  PodArray<Twenty> b = a;  // a copy of a mapped block
  PodArray<Twenty> c = std::move(a);
  EXPECT_EQ(b[199'999].a, 199'999u);
  EXPECT_EQ(c[12'345].c, 12'347u);
}

TEST(PodArray, ResizeAndAssignValueInitialize) {
  PodArray<Entry> e;
  e.resize(5);
  ASSERT_EQ(e.size(), 5u);
  for (const Entry& x : e) EXPECT_EQ(x.key, 7u);
  e[2].key = 1;
  e.resize(3);
  e.resize(6, Entry{9, 1});
  EXPECT_EQ(e[2].key, 1u);
  EXPECT_EQ(e[3].key, 9u);
  EXPECT_EQ(e[5].failed, 1u);
  e.assign(2, Entry{});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].key, 7u);
  Entry& b = e.emplace_back(3u, 4u);
  EXPECT_EQ(b.key, 3u);
  EXPECT_EQ(e.size(), 3u);
}

TEST(PodArray, CopiesAreIndependentAndMovesLeaveTheSourceEmpty) {
  PodArray<uint32_t> a{1, 2, 3};
  PodArray<uint32_t> b = a;
  b[0] = 10;
  EXPECT_EQ(a[0], 1u);
  EXPECT_EQ(b[0], 10u);
  PodArray<uint32_t> c = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], 10u);
  a = c;
  EXPECT_EQ(a[0], 10u);
  a = a;  // self-assignment keeps the contents
  EXPECT_EQ(a.size(), 3u);
  PodArray<uint32_t> d;
  d = std::move(a);
  EXPECT_EQ(d.size(), 3u);
  EXPECT_TRUE(a.empty());
}

TEST(PodArray, AProgramCopiedAfterGrowingIsTheSameProgram) {
  // The Program's instruction, value and operand arrays are PodArrays: a copy made after many
  // appends must be an exact, independent copy.
  Program p;
  TypeId t = p.intern_type(TensorType{DType::F32, {4}});
  BodyId b = p.add_body("main", false);
  ValueId x = p.add_param(b, t, "x");
  ValueId v = x;
  for (int k = 0; k < 50000; ++k)
    v = p.result(p.create_inst(b, OpCode::Neg, std::span<const ValueId>(&v, 1), 0, std::span<const TypeId>(&t, 1)));
  p.set_return(b, std::span<const ValueId>(&v, 1));
  Program q = p;
  ASSERT_EQ(q.num_inst_slots(), p.num_inst_slots());
  ASSERT_EQ(q.num_values(), p.num_values());
  for (InstId i = 0; i < p.num_inst_slots(); i += 97) {
    EXPECT_EQ(q.op(i), p.op(i));
    EXPECT_EQ(q.num_operands(i), p.num_operands(i));
    if (p.num_operands(i)) EXPECT_EQ(q.operand(i, 0), p.operand(i, 0));
  }
  EXPECT_EQ(q.name(x), "x");
}

}  // namespace
}  // namespace ptir
