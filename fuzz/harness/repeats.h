// The programs a libFuzzer process has already checked, so that a repeat is not checked again.
//
// Many fuzz inputs decide the same program: the generator reads only the bytes it needs (a mutation of
// the rest changes nothing), and many byte values map to the same choice. Measured on fuzz_pipeline and
// fuzz_equiv from their seeds, 60 s each: two inputs in three gave a program (a pair) checked before in
// the same process (docs/fuzzing.md, "Throughput, fifth round"). Every check after generation is a
// function of the generated text (fuzz_pipeline: parse, verify, pipeline, interpreter; fuzz_equiv: the
// mutant too, then the checker, up to its time budget), so checking a repeat again finds nothing the
// first check did not: a finding of the first check ends the process.
//
// A fixed table of 128-bit hashes of the texts (ir/hash128.h), allocated once and never
// grown: an insertion allocates nothing, so libFuzzer's leak heuristic (more mallocs than frees in an
// input) is not set off by the table, and the input's re-run that heuristic makes is never counted as
// a new check. When half full it is emptied and starts over: a program seen before that is checked
// again costs time, never a finding. The chance that two distinct texts share a hash is about
// n^2 / 2^129 for n texts in the table (n <= 2^20 here).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/hash128.h"

namespace ptir::fuzz {

class RepeatFilter {
 public:
  /// `log2_slots`: the table has 2^log2_slots slots of 16 bytes (default 2^21: 32 MB) and holds up to
  /// half as many texts before it starts over.
  explicit RepeatFilter(unsigned log2_slots = 21);

  /// True when `key` was seen before (since the last start-over): the caller skips its check. Else
  /// remembers it and returns false.
  bool seen_before(std::string_view key);

  uint64_t checked() const { return checked_; }    ///< keys not seen before (their checks ran)
  uint64_t repeats() const { return repeats_; }    ///< keys seen before (their checks skipped)
  uint64_t restarts() const { return restarts_; }  ///< times the table was emptied

 private:
  std::vector<Hash128> slots_;  // {0, 0} is an empty slot (a hash of {0, 0} is stored as {0, 1})
  size_t mask_;
  size_t size_ = 0;
  uint64_t checked_ = 0, repeats_ = 0, restarts_ = 0;
};

}  // namespace ptir::fuzz
