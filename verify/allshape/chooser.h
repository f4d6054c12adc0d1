// The odometer of an all-shape proof's discrete choices (verify/allshape/, docs/verification.md "The
// encoding"): a configuration is one run of choices (a dtype per free slot, a permutation per
// transpose, an operand rank, a reduction's axes, ...), and later choices may depend on earlier ones.
#pragma once
#include <cstddef>
#include <vector>

namespace ptir::allshape::detail {

/// Discrete choices as an odometer: a run takes digits in order; next() moves to the next run
/// (depth first), so choices that depend on earlier ones are enumerated exactly: every combination
/// once, each digit over 0..n-1 of the n its run asked for. A choice among n <= 1 takes no digit.
///
///   Chooser ch;
///   do { ch.start(); int a = ch.choose(3); int b = ch.choose(a + 1); ... } while (ch.next());
class Chooser {
 public:
  /// The next digit of this run: a new one starts at 0 (the run is deeper than the last).
  int choose(int n) {
    if (n <= 1) return 0;
    if (pos_ < digits_.size()) return digits_[pos_++].v;
    digits_.push_back({0, n});
    ++pos_;
    return 0;
  }
  /// Starts a run: the digits are read again from the first.
  void start() { pos_ = 0; }
  /// Moves to the next run: the last digit this run used that has a next value is advanced, every
  /// digit after it dropped (a run may ask for other choices after it). False after the last run.
  bool next() {
    digits_.resize(pos_);
    while (!digits_.empty()) {
      if (digits_.back().v + 1 < digits_.back().n) {
        ++digits_.back().v;
        pos_ = 0;
        return true;
      }
      digits_.pop_back();
    }
    return false;
  }

 private:
  struct D {
    int v, n;
  };
  std::vector<D> digits_;
  size_t pos_ = 0;
};

}  // namespace ptir::allshape::detail
