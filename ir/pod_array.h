// PodArray<T>: a growable array of trivially copyable elements that grows without copying.
//
// The Program's per-instruction arrays (instructions, values, operand slots) and the rewriter's
// per-instruction side tables grow while a pass appends instructions. std::vector grows by allocating
// a new block, copying every element and freeing the old block: for a 1M-instruction program that is
// tens of megabytes copied into fresh memory, each new page faulted in, at the first rewrite that
// appends. Here a block of 1 MB or more is its own anonymous mapping, grown with mremap: the page
// tables move, nothing is copied and no page is faulted in again (on Linux; elsewhere, for small
// blocks and under AddressSanitizer: malloc and realloc). Not left to malloc's own mmap threshold:
// glibc raises it after large frees, and then a realloc of an 8 MB block copies it. For the elements
// here (plain structs and integers, std::is_trivially_copyable) moving the bytes is moving the objects.
//
// The interface is the subset of std::vector the project uses; elements are value-initialized (T{})
// where std::vector would value-initialize them.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <cstdint>
#include <utility>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

// Under AddressSanitizer every block stays a malloc block, which ASan watches (a mapping it does not).
#if defined(__SANITIZE_ADDRESS__)
#define PTIR_POD_ARRAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTIR_POD_ARRAY_ASAN 1
#endif
#endif
#if defined(__linux__) && defined(MREMAP_MAYMOVE) && !defined(PTIR_POD_ARRAY_ASAN)
#define PTIR_POD_ARRAY_MAPS 1
#else
#define PTIR_POD_ARRAY_MAPS 0
#endif

namespace ptir {

template <typename T>
class PodArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "PodArray moves its elements with realloc");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;

  PodArray() = default;
  PodArray(size_t n, const T& v) { assign(n, v); }
  PodArray(std::initializer_list<T> l) {
    reserve(l.size());
    for (const T& v : l) data_[size_++] = v;
  }
  PodArray(const PodArray& o) {
    reserve(o.size_);
    if (o.size_) std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(T));
    size_ = o.size_;
  }
  PodArray(PodArray&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_), map_bytes_(o.map_bytes_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = o.map_bytes_ = 0;
  }
  PodArray& operator=(const PodArray& o) {
    if (this != &o) {
      size_ = 0;
      reserve(o.size_);
      if (o.size_) std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(T));
      size_ = o.size_;
    }
    return *this;
  }
  PodArray& operator=(PodArray&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
      map_bytes_ = std::exchange(o.map_bytes_, 0);
    }
    return *this;
  }
  ~PodArray() { release(); }

  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  /// Capacity for at least n elements; a larger block keeps the elements without copying them where
  /// it can (see the top).
  void reserve(size_t n) {
    if (n <= cap_) return;
    if (n > SIZE_MAX / sizeof(T) - 4096) throw std::bad_alloc();
    size_t bytes = n * sizeof(T);
#if PTIR_POD_ARRAY_MAPS
    if (bytes >= kMapBytes) {
      const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      bytes = (bytes + page - 1) / page * page;
      void* p;
      if (map_bytes_) {
        p = mremap(static_cast<void*>(data_), map_bytes_, bytes, MREMAP_MAYMOVE);
      } else {
        p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED && size_) std::memcpy(p, static_cast<const void*>(data_), size_ * sizeof(T));
        if (p != MAP_FAILED) std::free(data_);
      }
      if (p == MAP_FAILED) throw std::bad_alloc();
      data_ = static_cast<T*>(p);
      map_bytes_ = bytes;
      cap_ = bytes / sizeof(T);
      return;
    }
#endif
    void* p = std::realloc(static_cast<void*>(data_), bytes);
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    cap_ = n;
  }
  void push_back(const T& v) {
    if (size_ == cap_) grow_for(size_ + 1);
    data_[size_++] = v;
  }
  template <typename... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) grow_for(size_ + 1);
    T* p = data_ + size_++;
    *p = T{std::forward<A>(a)...};
    return *p;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void resize(size_t n) { resize(n, T{}); }
  void resize(size_t n, const T& v) {
    if (n > cap_) grow_for(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void assign(size_t n, const T& v) {
    size_ = 0;
    resize(n, v);
  }

 private:
  static constexpr size_t kMapBytes = size_t{1} << 20;  ///< blocks this large are their own mapping
  /// Growth by half (growing a large block copies nothing, so doubling buys nothing).
  void grow_for(size_t n) { reserve(std::max(n, cap_ + cap_ / 2 + 16)); }
  void release() {
#if PTIR_POD_ARRAY_MAPS
    if (map_bytes_) {
      munmap(static_cast<void*>(data_), map_bytes_);
      map_bytes_ = 0;
      return;
    }
#endif
    std::free(data_);
  }

  T* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
  size_t map_bytes_ = 0;  ///< the mapping's length when the block is an anonymous mapping, else 0
};

}  // namespace ptir
