// Where the program generator's decisions come from. Every choice the generator makes is one call on a
// Choices object, so the same generator is driven by a seeded PRNG (`ptir synth`, benchmarks), by
// RapidCheck (rc_choices.h: each choice is a shrinkable value, so failing programs shrink) and by
// libFuzzer bytes (bytes_choices.h: FuzzedDataProvider, so a mutation of the input changes a decision).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace ptir::fuzz {

/// A source of decisions. Implementations must return values in range for any input and never throw
/// except through their own test framework (RapidCheck's discard).
class Choices {
 public:
  virtual ~Choices() = default;
  /// A value in [lo, hi] (inclusive, lo <= hi). Shrinking sources shrink towards lo.
  virtual int64_t range(int64_t lo, int64_t hi) = 0;
  /// Raw bits: a value in [0, 2^nbits) for 1 <= nbits <= 64.
  virtual uint64_t bits(int nbits) = 0;
  /// True when the source has run dry (libFuzzer bytes used up): the generator then wraps up quickly.
  virtual bool exhausted() const { return false; }

  /// True with probability about num/den (shrinks towards false).
  bool chance(int num, int den) { return range(0, den - 1) < num; }
  /// An index into a container of n > 0 elements.
  size_t index(size_t n) { return static_cast<size_t>(range(0, static_cast<int64_t>(n) - 1)); }
  /// An element of a non-empty list.
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[index(v.size())];
  }
  /// An index drawn with the given (non-negative, not all zero) weights.
  size_t weighted(std::span<const int> weights);
  size_t weighted(std::initializer_list<int> weights) { return weighted(std::span<const int>(weights.begin(), weights.size())); }
};

/// Seeded splitmix64 decisions: deterministic for a seed, on every platform.
class PrngChoices final : public Choices {
 public:
  explicit PrngChoices(uint64_t seed) : state_(seed) {}
  int64_t range(int64_t lo, int64_t hi) override;
  uint64_t bits(int nbits) override;

 private:
  uint64_t next();
  uint64_t state_;
};

}  // namespace ptir::fuzz
