// Tensor types and concrete tensors (row-major, raw little-endian element bytes).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace ptir {

/// A static tensor type: dtype plus dims (rank 0 = scalar; a 0 dim is legal).
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> dims;

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  bool operator==(const TensorType&) const = default;
};

/// Prints `tensor<f32, 2x3>` (rank 0: `tensor<f32>`).
std::string to_string(const TensorType& t);
size_t hash_value(const TensorType& t);

/// A concrete tensor: its type and num_elements * dtype_bytes bytes of element data.
struct Tensor {
  TensorType type;
  std::vector<uint8_t> data;

  Tensor() = default;
  explicit Tensor(TensorType t) : type(std::move(t)), data(type.num_elements() * dtype_bytes(type.dtype), 0) {}

  DType dtype() const { return type.dtype; }
  int64_t size() const { return type.num_elements(); }
  /// Raw bits of element i (row-major), zero-extended.
  uint64_t bits(int64_t i) const {
    uint64_t v = 0;
    std::memcpy(&v, data.data() + i * dtype_bytes(type.dtype), dtype_bytes(type.dtype));
    return v;
  }
  void set_bits(int64_t i, uint64_t v) {
    std::memcpy(data.data() + i * dtype_bytes(type.dtype), &v, dtype_bytes(type.dtype));
  }
  /// Element i as a double (floats exactly; integers converted).
  double as_double(int64_t i) const;
  /// Element i as a sign/zero-extended integer (integer and i1 dtypes).
  int64_t as_int(int64_t i) const { return int_value(type.dtype, bits(i)); }
  bool is_splat() const;
  bool operator==(const Tensor&) const = default;
};

size_t hash_value(const Tensor& t);
/// Bit-exact equality up to the spec's result equality: all NaNs equal, +0 and -0 different.
bool results_equal(const Tensor& a, const Tensor& b);
/// Index of the first element where results_equal fails, or -1.
int64_t first_difference(const Tensor& a, const Tensor& b);
/// Row-major strides of `dims`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims);

}  // namespace ptir
