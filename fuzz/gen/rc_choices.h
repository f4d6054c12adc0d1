// Decisions drawn from RapidCheck inside a property: every choice is a shrinkable value, so a failing
// program shrinks to a small one (fewer ops, smaller shapes, lower-numbered choices). Header-only, for
// tests that link rapidcheck.
#pragma once
#include <rapidcheck.h>

#include "fuzz/gen/choices.h"

namespace ptir::fuzz {

/// Choices backed by `*rc::gen::...` (only valid inside a RapidCheck property).
class RcChoices final : public Choices {
 public:
  int64_t range(int64_t lo, int64_t hi) override {
    if (lo == hi) return lo;
    // Full size: RapidCheck's size ramp would otherwise make most early programs trivial; shrinking
    // still moves every choice towards lo.
    if (hi == INT64_MAX) return lo + *rc::gen::resize(100, rc::gen::inRange<int64_t>(0, hi - lo));
    return *rc::gen::resize(100, rc::gen::inRange<int64_t>(lo, hi + 1));
  }
  uint64_t bits(int nbits) override {
    const uint64_t v = *rc::gen::arbitrary<uint64_t>();
    return nbits >= 64 ? v : v & ((uint64_t{1} << nbits) - 1);
  }
};

}  // namespace ptir::fuzz
