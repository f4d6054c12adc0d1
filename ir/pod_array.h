// PodArray<T>: a growable array of trivially copyable elements that grows with realloc.
//
// The Program's per-instruction arrays (instructions, values, operand slots) and the rewriter's
// per-instruction side tables grow while a pass appends instructions. std::vector grows by allocating
// a new block, copying every element and freeing the old block: for a 1M-instruction program that is
// tens of megabytes copied into fresh memory, each new page faulted in, at the first rewrite that
// appends. A large block from glibc's malloc is its own mapping, and realloc moves it with mremap:
// the page tables move, nothing is copied and no page is faulted in again. For the elements here
// (plain structs and integers, std::is_trivially_copyable) moving the bytes is moving the objects.
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
  PodArray(PodArray&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
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
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  ~PodArray() { std::free(data_); }

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

  /// Capacity for at least n elements; a larger block is obtained with realloc (see the top).
  void reserve(size_t n) {
    if (n <= cap_) return;
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    void* p = std::realloc(static_cast<void*>(data_), n * sizeof(T));
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
  /// Growth by half (realloc of a large block costs no copy, so doubling buys nothing).
  void grow_for(size_t n) { reserve(std::max(n, cap_ + cap_ / 2 + 16)); }

  T* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

}  // namespace ptir
