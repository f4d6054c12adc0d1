// InternIndex (the Program's index of interned types, literals and attribute sets): ids under equal
// hashes are all found, growth keeps every id, and the Program interns through it.
#include "ir/intern_index.h"

#include <gtest/gtest.h>

#include <vector>

#include "ir/program.h"

namespace ptir {
namespace {

TEST(InternIndex, FindsEveryIdThroughGrowthAndCollisions) {
  InternIndex ix;
  std::vector<int> value;  // id -> the value it stands for
  // 1,000 ids under 50 distinct hashes (20 ids per hash): the caller's predicate tells them apart.
  for (uint32_t id = 0; id < 1000; ++id) {
    value.push_back(static_cast<int>(id) * 7 + 3);
    const size_t h = id % 50;
    ASSERT_EQ(ix.find(h, [&](uint32_t k) { return value[k] == value[id]; }), UINT32_MAX);
    ix.insert(h, id);
  }
  EXPECT_EQ(ix.size(), 1000u);
  for (uint32_t id = 0; id < 1000; ++id) {
    const int want = static_cast<int>(id) * 7 + 3;
    EXPECT_EQ(ix.find(id % 50, [&](uint32_t k) { return value[k] == want; }), id);
    EXPECT_EQ(ix.find(id % 50 + 50, [&](uint32_t k) { return value[k] == want; }), UINT32_MAX);  // wrong hash
  }
  EXPECT_EQ(InternIndex().find(0, [](uint32_t) { return true; }), UINT32_MAX);  // empty: nothing, no table
}

TEST(InternIndex, ProgramInternsEqualTypesLiteralsAndAttrsOnce) {
  Program p;
  std::vector<TypeId> ids;
  for (int64_t d = 1; d <= 300; ++d) ids.push_back(p.intern_type(TensorType{DType::F32, {d, 2}}));
  for (int64_t d = 1; d <= 300; ++d) EXPECT_EQ(p.intern_type(TensorType{DType::F32, {d, 2}}), ids[d - 1]);
  EXPECT_NE(p.intern_type(TensorType{DType::F16, {1, 2}}), ids[0]);
  Tensor a = Tensor::filled(TensorType{DType::SI32, {3}}, 5), b = Tensor::filled(TensorType{DType::SI32, {3}}, 6);
  const LiteralId la = p.intern_literal(a), lb = p.intern_literal(b);
  EXPECT_NE(la, lb);
  EXPECT_EQ(p.intern_literal(a), la);
  EXPECT_EQ(p.intern_literal(b), lb);
  EXPECT_EQ(p.intern_attrs(AttrSet{}), 0u);  // the empty set is id 0
  const AttrSetId s1 = make_ints_attr(p, "perm", {1, 0});
  EXPECT_EQ(make_ints_attr(p, "perm", {1, 0}), s1);
  EXPECT_NE(make_ints_attr(p, "perm", {0, 1}), s1);
  // A copied program keeps its index.
  Program q = p;
  EXPECT_EQ(q.intern_type(TensorType{DType::F32, {7, 2}}), ids[6]);
  EXPECT_EQ(q.intern_literal(b), lb);
}

}  // namespace
}  // namespace ptir
