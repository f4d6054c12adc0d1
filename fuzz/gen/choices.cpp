// The seeded PRNG source of decisions and the shared helpers of Choices.
#include "fuzz/gen/choices.h"

namespace ptir::fuzz {

size_t Choices::weighted(std::span<const int> weights) {
  int64_t total = 0;
  for (int w : weights) total += w;
  int64_t r = range(0, total - 1);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  return weights.size() - 1;
}

uint64_t PrngChoices::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int64_t PrngChoices::range(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(next());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + next() % (span + 1));
}

uint64_t PrngChoices::bits(int nbits) {
  const uint64_t v = next();
  return nbits >= 64 ? v : v & ((uint64_t{1} << nbits) - 1);
}

}  // namespace ptir::fuzz
