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
//
// Before generation, a second table catches the commonest repeat for less: FuzzedDataProvider reads
// integers from the end of the input, so the generator reads some last `used` bytes and nothing else,
// and a mutation of the bytes before them changes nothing. remember_input() keeps a hash of the bytes an
// input's generation read; input_seen_before() asks, for every length some earlier generation read, whether
// the new input ends with such bytes. If it does, its generation would make the same choices in the same
// order (every choice is a function of the bytes read so far), read those bytes and stop: the same
// program, already checked, so the case returns before generating it. One condition keeps this exact:
// an earlier input that still had bytes left after generation matches only a longer input (the
// generator's `exhausted()` was false throughout, and stays so); one whose generation read all of it
// (and may have asked for more, getting each choice's lowest value) matches only an input of the same
// length, i.e. the same input.
#pragma once
#include <array>
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

  /// Before generation: true when `data` ends with the bytes an earlier input's generation read (see
  /// above), so this input would generate that input's program; counted as a repeat. Inputs may be of
  /// any size; reads of more than kMaxInputKey bytes are not remembered.
  bool input_seen_before(const uint8_t* data, size_t size);
  /// After generation: the generator read the last `used` bytes of `data` (FuzzedDataProvider:
  /// size - remaining_bytes()).
  void remember_input(const uint8_t* data, size_t size, size_t used);
  uint64_t input_repeats() const { return input_repeats_; }  ///< repeats found by input_seen_before
  size_t input_key_lengths() const { return num_lengths_; }  ///< how many lengths input keys have

  static constexpr size_t kMaxInputKey = 4096;

 private:
  static bool probe(std::vector<Hash128>& slots, size_t mask, Hash128 h);  // true when h is in slots
  bool may_have_input(uint64_t cheap) const;  // false: no key of this cheap hash is in the input table
  static void insert(std::vector<Hash128>& slots, size_t mask, size_t& size, uint64_t& restarts, Hash128 h);
  std::vector<Hash128> slots_;  // {0, 0} is an empty slot (a hash of {0, 0} is stored as {0, 1})
  size_t mask_;
  size_t size_ = 0;
  uint64_t checked_ = 0, repeats_ = 0, restarts_ = 0;
  // The input keys: hashes of (bytes read, whether they were the whole input), and which lengths occur.
  std::vector<Hash128> input_slots_;
  size_t input_mask_;
  // The input table is small (at most 2^16 slots, 1 MB: it starts over after 32,768 keys, which costs a
  // generation now and then, never a wrong skip), and a bit set of 8 bits per slot (64 KB, cleared with
  // the table; a key sets the bit of a cheap 64-bit hash of the same bytes) stays in the cache: a lookup
  // tries every length some key has (hundreds), and most cost neither the 128-bit hash nor a probe.
  std::vector<uint64_t> input_bits_;
  size_t input_size_ = 0;
  uint64_t input_restarts_ = 0, input_repeats_ = 0;
  std::array<uint8_t, kMaxInputKey + 1> length_kinds_{};  // bit 0: some key read part of its input; bit 1: all
  std::array<uint16_t, kMaxInputKey + 1> lengths_{};      // the lengths with a kind, ascending
  size_t num_lengths_ = 0;
};

}  // namespace ptir::fuzz
