// Row-major index helpers for the interpreter kernels: a multi-index counter, strided copies and the
// formatting of positions in messages.
#pragma once
#include <cstdint>
#include <string>
#include <span>
#include <vector>

#include "ir/tensor.h"

namespace ptir::interp {

/// Row-major multi-index over `dims`: start at all zeros, `next()` until it returns false.
/// Only use it when the element count is nonzero.
struct Counter {
  std::vector<int64_t> dims, idx;
  explicit Counter(std::vector<int64_t> d) : dims(std::move(d)), idx(dims.size(), 0) {}
  bool next() {
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
      if (++idx[k] < dims[k]) return true;
      idx[k] = 0;
    }
    return false;
  }
};

/// A Counter that also keeps `off = sum_k idx[k] * strides[k]` up to date.
struct StridedCounter {
  std::vector<int64_t> dims, idx, strides;
  int64_t off = 0;
  StridedCounter(std::vector<int64_t> d, std::vector<int64_t> s)
      : dims(std::move(d)), idx(dims.size(), 0), strides(std::move(s)) {}
  bool next() {
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
      off += strides[k];
      if (++idx[k] < dims[k]) return true;
      off -= strides[k] * dims[k];
      idx[k] = 0;
    }
    return false;
  }
};

/// out[i] = src[base + sum_k i[k] * src_strides[k]] for every row-major position i of out.
void strided_copy(const Tensor& src, int64_t base, std::span<const int64_t> src_strides, Tensor& out);

/// Raw bits of element i of a dense tensor (Tensor::bits without the splat test).
inline uint64_t get(const Tensor& t, int64_t i) {
  const int w = dtype_bytes(t.dtype());
  return load_bits(t.data.data() + i * w, w);
}
/// Stores the low bits of `v` as element i of a dense tensor (Tensor::set_bits without the splat test).
inline void put(Tensor& t, int64_t i, uint64_t v) {
  const int w = dtype_bytes(t.dtype());
  store_bits(t.data.data() + i * w, w, v);
}

/// Copies element `si` of `src` to element `di` of `dst` (same dtype).
inline void copy_elem(const Tensor& src, int64_t si, Tensor& dst, int64_t di) {
  const int w = dtype_bytes(src.dtype());
  store_bits(dst.data.data() + di * w, w, load_bits(src.data.data() + si * w, w));
}

/// "[1, 0, 2]".
std::string index_str(const std::vector<int64_t>& idx);
/// The row-major multi-index of flat position `flat` in `dims`.
std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims);
/// "[2x3]"-free dims text: "2x3" (rank 0: "scalar").
std::string dims_str(const std::vector<int64_t>& dims);
/// Product of dims[from, to).
int64_t prod(const std::vector<int64_t>& dims, size_t from, size_t to);

}  // namespace ptir::interp
