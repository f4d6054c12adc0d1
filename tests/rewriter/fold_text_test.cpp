// The fold hook's size rule decides with bounds of a literal's printed length before printing it
// (rewriter/fold.h literal_text_bounds). A bound that is off would change which folds happen, so each
// is checked against the printer: every 16-bit float, edge and random values of the other dtypes, splats,
// lists of every rank up to 4 with zero dims.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

#include "ir/text.h"
#include "rewriter/fold.h"

namespace ptir {
namespace {

Tensor make(DType t, std::vector<int64_t> dims, const std::vector<uint64_t>& bits) {
  Tensor x(TensorType{t, std::move(dims)});
  for (int64_t k = 0; k < x.size(); ++k) x.set_bits(k, bits[static_cast<size_t>(k) % bits.size()]);
  return x;
}

void expect_within(const Tensor& t) {
  const size_t n = print_literal(t).size();
  const TextBounds b = literal_text_bounds(t);
  EXPECT_LE(b.lo, n) << print_literal(t);
  EXPECT_GE(b.hi, n) << print_literal(t);
  if (t.type.rank() == 0 || (t.size() >= 2 && t.is_splat())) EXPECT_EQ(b.lo, b.hi) << print_literal(t);
}

const DType kAll[] = {DType::I1,  DType::SI8,  DType::UI8,  DType::SI16, DType::UI16, DType::SI32, DType::UI32,
                      DType::SI64, DType::UI64, DType::BF16, DType::F16,  DType::F32,  DType::F64};

TEST(FoldText, EverySixteenBitFloatIsWithinTheElementBounds) {
  for (DType t : {DType::F16, DType::BF16})
    for (uint64_t b = 0; b < 65536; ++b) expect_within(make(t, {1}, {b}));  // one element: printed as a list
}

TEST(FoldText, EdgeAndRandomValuesOfEveryDtypeAreWithinTheBounds) {
  std::mt19937_64 rng(7);
  for (DType t : kAll) {
    const uint64_t mask = bits_mask(t);
    std::vector<uint64_t> edges = {0, 1, mask, mask >> 1, (mask >> 1) + 1, sign_mask(t) & mask};
    if (is_float(t))
      for (uint64_t b : {canonical_nan(t), canonical_nan(t) | 1, float_inf(t, false), float_inf(t, true)})
        edges.push_back(b);
    for (int k = 0; k < 64; ++k) edges.push_back(rng() & mask);
    if (t == DType::F32) {  // the longest shortest forms: 9 significant digits with a 2-digit exponent
      for (float f : {-1.00000005e-38f, -3.40282347e+38f, -1.17549435e-38f, -1.4e-45f, 0.1f, 1e7f, 16777216.0f}) {
        uint32_t u; std::memcpy(&u, &f, 4); edges.push_back(u);
      }
    }
    if (t == DType::F64) {
      for (double d : {-2.2250738585072014e-308, -1.7976931348623157e308, -4.9e-324, 0.1, 1e15, 1e16, 123456789012345680.0}) {
        uint64_t u; std::memcpy(&u, &d, 8); edges.push_back(u);
      }
    }
    for (uint64_t b : edges) expect_within(make(t, {}, {b})), expect_within(make(t, {1}, {b}));
    expect_within(make(t, {static_cast<int64_t>(edges.size())}, edges));
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
             {0}, {1}, {2, 0}, {0, 3}, {2, 3}, {3, 1, 2}, {2, 2, 2, 2}, {1, 1, 1}, {4, 0, 2}})
      expect_within(make(t, dims, edges));
    expect_within(make(t, {3, 2}, {edges[2]}));  // a splat
  }
}

TEST(FoldText, ListBoundsOfATypeContainEveryLiteralOfThatType) {
  std::mt19937_64 rng(11);
  for (DType t : kAll)
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{2}, {3, 4}, {2, 1, 3}, {1, 5}}) {
      std::vector<uint64_t> bits;
      for (int k = 0; k < 24; ++k) bits.push_back(rng() & bits_mask(t));
      bits[1] = bits[0] ^ 1;  // not a splat
      const Tensor x = make(t, dims, bits);
      const TextBounds b = literal_list_text_bounds(x.type);
      const size_t n = print_literal(x).size();
      EXPECT_LE(b.lo, n);
      EXPECT_GE(b.hi, n);
    }
}

}  // namespace
}  // namespace ptir
