// Prefaulting: a helper thread takes the page faults of arrays that one thread is filling.
//
// Parsing a large file writes ~100 bytes per instruction into freshly reserved arrays (the Program's
// instructions, values, operand slots and names, the source map, the name table). Every first write
// to a 4 KB page is a page fault, and the kernel's work for it (mostly zeroing the page) was a quarter
// of a 1M-instruction parse. A Prefaulter runs beside the writer on another core and faults in, with
// madvise(MADV_POPULATE_WRITE), the pages just ahead of what the writer has published as written, so
// the writer's first writes find their pages present. It never reads or writes the arrays' contents
// (MADV_POPULATE_WRITE only maps pages, as a first write would, without writing), so nothing the
// writer does can race with it; a region that moves (its vector grew) is followed from its new address.
// It stays at most `ahead` bytes beyond each region's written part, so memory the writer reserved but
// never uses is mostly not faulted in.
//
// Internal to ptir_ir (not an installed header). docs/rewriter.md "Parse speed" has the measurements.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace ptir {

/// Faults in the pages of [p, p + bytes) on the calling thread, as a first write to each would
/// (madvise MADV_POPULATE_WRITE; contents unchanged; Linux 5.14 or later, else nothing). For a table
/// that is read and written anywhere from the start; errors are ignored.
void populate_pages(void* p, size_t bytes);

class Prefaulter {
 public:
  static constexpr size_t kSlots = 8;
  static constexpr size_t kDefaultAhead = size_t{2} << 20;  ///< 2 MB beyond what is written

  /// Starts the helper thread when `enabled` (Linux with MADV_POPULATE_WRITE); otherwise, or if the
  /// thread cannot be started, every call is a no-op.
  explicit Prefaulter(bool enabled);
  ~Prefaulter();  ///< stops the helper and joins it
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;

  bool active() const { return helper_.joinable(); }

  /// Region `slot` (< kSlots) is [data, data + capacity) bytes, of which the first `used` are written:
  /// the helper faults in the pages of [used, min(capacity, used + ahead)). Called by the writer
  /// whenever it likes (the parser: every few hundred statements); a new `data` restarts the slot.
  void publish(size_t slot, const void* data, size_t used, size_t capacity, size_t ahead = kDefaultAhead);

  /// Whether a parse of `text_bytes` should use one: the text is at least 2 MB and the environment
  /// does not say PTIR_PREFAULT=0 (read once).
  static bool wanted(size_t text_bytes);

 private:
  struct Region {
    const char* data = nullptr;
    size_t used = 0, capacity = 0, ahead = 0;
  };
  /// One slot, written by the writer and read by the helper without a lock (a sequence lock: the
  /// writer never waits for the helper).
  struct Slot {
    std::atomic<uint64_t> seq{0};  ///< odd while the writer is changing the fields
    std::atomic<const char*> data{nullptr};
    std::atomic<size_t> used{0}, capacity{0}, ahead{0};
  };
  bool read(size_t k, Region& out) const;
  void run();

  std::array<Slot, kSlots> slots_;
  std::atomic<bool> stop_{false};
  std::thread helper_;
};

}  // namespace ptir
