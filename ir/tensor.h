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

/// PTIR's limits on a type (docs/text-format.md "Limits"): the parser, the verifier and the MLIR importer
/// refuse a type of a higher rank, with a dim above kMaxTypeElements, or with more elements in all.
inline constexpr int kMaxTypeRank = 16;
inline constexpr int64_t kMaxTypeElements = int64_t{1} << 28;
/// The type is within kMaxTypeRank and kMaxTypeElements (each dim and their product; no dim negative).
inline bool within_type_limits(const TensorType& t) {
  if (t.rank() > kMaxTypeRank) return false;
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0 || d > kMaxTypeElements) return false;
    n *= d;  // both factors <= 2^28: no overflow
    if (n > kMaxTypeElements) return false;
  }
  return true;
}

/// Prints `tensor<f32, 2x3>` (rank 0: `tensor<f32>`).
std::string to_string(const TensorType& t);
/// Appends to_string(t) to `out`.
void append_type(std::string& out, const TensorType& t);
size_t hash_value(const TensorType& t);

/// An element's raw bits, `w` (1, 2, 4 or 8) little-endian bytes zero-extended, and its store: one
/// fixed-size copy per width, which compiles to a plain load or store (a copy of a run-time size was a
/// library call per element, and under ASan an interceptor checking the range each time).
static_assert(
    [] {
      for (const DTypeInfo& d : detail::kDTypeInfo)
        if (d.bytes != 1 && d.bytes != 2 && d.bytes != 4 && d.bytes != 8) return false;
      return true;
    }(),
    "load_bits/store_bits handle elements of 1, 2, 4 and 8 bytes");
inline uint64_t load_bits(const uint8_t* p, int w) {
  switch (w) {
    case 1:
      return *p;
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}
inline void store_bits(uint8_t* p, int w, uint64_t v) {
  switch (w) {
    case 1:
      *p = static_cast<uint8_t>(v);
      return;
    case 2: {
      const uint16_t x = static_cast<uint16_t>(v);
      std::memcpy(p, &x, 2);
      return;
    }
    case 4: {
      const uint32_t x = static_cast<uint32_t>(v);
      std::memcpy(p, &x, 4);
      return;
    }
    default:
      std::memcpy(p, &v, 8);
      return;
  }
}

/// A concrete tensor: its type and its element data. Dense (the default): num_elements * dtype_bytes
/// bytes, row-major. Splat (`splat` set): one element's bytes standing for every element, so a literal
/// like `dense<0.0> : tensor<f32, 268435456>` costs what its text says. Element access (bits, as_double,
/// ==, hashing) reads both forms alike; code that reads `data` through raw pointers calls expand() first.
struct Tensor {
  TensorType type;
  std::vector<uint8_t> data;
  bool splat = false;  ///< data holds one element, the value of every element

  Tensor() = default;
  explicit Tensor(TensorType t) : type(std::move(t)), data(type.num_elements() * dtype_bytes(type.dtype), 0) {}
  /// A splat tensor: every element has raw bits `v`; allocates one element whatever the type's size.
  /// (Fewer than two elements: the dense form, which is as small.)
  static Tensor filled(TensorType t, uint64_t v) {
    Tensor r;
    r.type = std::move(t);
    if (r.size() < 2) {
      r.data.assign(r.size() * dtype_bytes(r.type.dtype), 0);
      if (r.size() == 1) r.set_bits(0, v);
      return r;
    }
    r.splat = true;
    r.data.assign(dtype_bytes(r.type.dtype), 0);
    std::memcpy(r.data.data(), &v, dtype_bytes(r.type.dtype));
    return r;
  }

  DType dtype() const { return type.dtype; }
  int64_t size() const { return type.num_elements(); }
  /// Elements actually stored: 1 for a splat, size() otherwise.
  int64_t stored_elements() const { return splat ? 1 : size(); }
  /// Bytes the element data would take fully expanded.
  uint64_t dense_bytes() const { return static_cast<uint64_t>(size()) * dtype_bytes(type.dtype); }
  /// Raw bits of element i (row-major), zero-extended.
  uint64_t bits(int64_t i) const {
    const int w = dtype_bytes(type.dtype);
    return load_bits(data.data() + (splat ? 0 : i) * w, w);
  }
  /// Sets element i; a splat is expanded first.
  void set_bits(int64_t i, uint64_t v) {
    if (splat) expand();
    const int w = dtype_bytes(type.dtype);
    store_bits(data.data() + i * w, w, v);
  }
  /// Makes a splat dense (allocates size() elements); nothing for a dense tensor.
  void expand();
  /// Makes a dense tensor of at least two equal elements a splat (frees its data).
  void compact();
  /// The data holds exactly the bytes the form (splat or dense) needs.
  bool well_formed() const {
    return data.size() == static_cast<size_t>(stored_elements()) * dtype_bytes(type.dtype);
  }
  /// Element i as a double (floats exactly; integers converted).
  double as_double(int64_t i) const;
  /// Element i as a sign/zero-extended integer (integer and i1 dtypes).
  int64_t as_int(int64_t i) const { return int_value(type.dtype, bits(i)); }
  /// Every element is equal (a splat, or dense data of equal elements; true for 0 or 1 elements).
  bool is_splat() const;
  /// Same type and bit-identical elements, whatever the forms.
  bool operator==(const Tensor& o) const;
};

size_t hash_value(const Tensor& t);
/// Bit-exact equality up to the spec's result equality: all NaNs equal, +0 and -0 different.
bool results_equal(const Tensor& a, const Tensor& b);
/// Index of the first element where results_equal fails, or -1.
int64_t first_difference(const Tensor& a, const Tensor& b);
/// Row-major strides of `dims`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims);

}  // namespace ptir
