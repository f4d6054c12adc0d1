// The prefaulting helper thread (ir/prefault.h).
#include "ir/prefault.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <system_error>
#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ptir {

namespace {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
constexpr bool kSupported = true;
#else
constexpr bool kSupported = false;
#endif
constexpr size_t kChunk = size_t{256} << 10;  ///< faulted in per call, so that every region gets its turn
constexpr auto kPoll = std::chrono::microseconds(100);
}  // namespace

void populate_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const uintptr_t page_mask = ~(static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)) - 1);
  const uintptr_t b = reinterpret_cast<uintptr_t>(p) & page_mask;
  const uintptr_t e = reinterpret_cast<uintptr_t>(p) + bytes;
  if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);  // advice: errors ignored
#else
  (void)p;
  (void)bytes;
#endif
}

bool Prefaulter::wanted(size_t text_bytes) {
  static const bool off = [] {
    const char* e = std::getenv("PTIR_PREFAULT");
    return e && e[0] == '0';
  }();
  return kSupported && !off && text_bytes >= (size_t{2} << 20);
}

Prefaulter::Prefaulter(bool enabled) {
  if (!enabled || !kSupported) return;
  try {
    helper_ = std::thread([this] {
#if defined(__linux__)
      pthread_setname_np(pthread_self(), "ptir-prefault");  // as `top -H` and perf show it
#endif
      run();
    });
  } catch (const std::system_error&) {
    // No thread: the writer takes its own page faults, as without a Prefaulter.
  }
}

Prefaulter::~Prefaulter() {
  if (!helper_.joinable()) return;
  stop_.store(true, std::memory_order_relaxed);
  helper_.join();
}

void Prefaulter::publish(size_t slot, const void* data, size_t used, size_t capacity, size_t ahead) {
  if (!helper_.joinable() || slot >= kSlots) return;
  Slot& s = slots_[slot];
  const uint64_t q = s.seq.load(std::memory_order_relaxed);
  s.seq.store(q + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.data.store(static_cast<const char*>(data), std::memory_order_relaxed);
  s.used.store(used, std::memory_order_relaxed);
  s.capacity.store(capacity, std::memory_order_relaxed);
  s.ahead.store(ahead, std::memory_order_relaxed);
  s.seq.store(q + 2, std::memory_order_release);
}

/// A consistent copy of slot k, or false while the writer is changing it.
bool Prefaulter::read(size_t k, Region& out) const {
  const Slot& s = slots_[k];
  const uint64_t q = s.seq.load(std::memory_order_acquire);
  if (q & 1) return false;
  out.data = s.data.load(std::memory_order_relaxed);
  out.used = s.used.load(std::memory_order_relaxed);
  out.capacity = s.capacity.load(std::memory_order_relaxed);
  out.ahead = s.ahead.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return s.seq.load(std::memory_order_relaxed) == q;
}

void Prefaulter::run() {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const uintptr_t page_mask = ~(static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)) - 1);
  std::array<const char*, kSlots> seen{};  // the region's address when `done` was counted
  std::array<size_t, kSlots> done{};       // bytes from that address already faulted in (or given up)
  while (!stop_.load(std::memory_order_relaxed)) {
    bool worked = false;
    for (size_t k = 0; k < kSlots; ++k) {
      Region r;
      if (!read(k, r) || !r.data) continue;
      if (r.data != seen[k]) seen[k] = r.data, done[k] = 0;
      const size_t want = std::min(r.capacity, r.used + r.ahead);
      const size_t from = std::max(done[k], r.used);
      if (want <= from) continue;
      const size_t to = std::min(want, from + kChunk);
      const uintptr_t b = (reinterpret_cast<uintptr_t>(r.data) + from) & page_mask;
      const uintptr_t e = (reinterpret_cast<uintptr_t>(r.data) + to) & page_mask;
      done[k] = to;
      if (e <= b) continue;
      worked = true;
      // Maps the pages as a first write would, without writing: the contents are never touched, so a
      // region the writer has meanwhile moved or freed costs at most a wasted call.
      if (madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE) != 0) {
        if (errno == EINVAL) return;  // the kernel lacks MADV_POPULATE_WRITE (before 5.14): nothing to do
        done[k] = r.capacity;         // not mapped (moved and freed) or not populatable: leave this address
      }
    }
    if (!worked) std::this_thread::sleep_for(kPoll);
  }
#endif
}

}  // namespace ptir
