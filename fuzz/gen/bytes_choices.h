// Decisions read from libFuzzer's input through FuzzedDataProvider: the bytes decide every choice, so
// the fuzzer's mutations (and its comparison tracing) steer the generated program. When the bytes run
// out every choice is its lowest value and exhausted() turns true, so the generator finishes quickly.
// Header-only: FuzzedDataProvider.h ships with clang (the CMake build copies it for gcc builds).
#pragma once
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz/gen/choices.h"

namespace ptir::fuzz {

/// Choices consumed from a byte string.
class BytesChoices final : public Choices {
 public:
  BytesChoices(const uint8_t* data, size_t size) : fdp_(data, size), size_(size) {}
  int64_t range(int64_t lo, int64_t hi) override { return fdp_.ConsumeIntegralInRange<int64_t>(lo, hi); }
  uint64_t bits(int nbits) override {
    const uint64_t v = fdp_.ConsumeIntegral<uint64_t>();
    return nbits >= 64 ? v : v & ((uint64_t{1} << nbits) - 1);
  }
  bool exhausted() const override { return fdp_.remaining_bytes() == 0; }
  /// How many bytes the choices so far have read: the input's last ones (FuzzedDataProvider reads
  /// integers from the end).
  size_t used() const { return size_ - fdp_.remaining_bytes(); }

 private:
  mutable FuzzedDataProvider fdp_;
  size_t size_;
};

}  // namespace ptir::fuzz
