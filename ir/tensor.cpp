// TensorType/Tensor helpers.
#include "ir/tensor.h"

#include <charconv>
#include <functional>

namespace ptir {

void append_type(std::string& out, const TensorType& t) {
  out += "tensor<";
  out += dtype_name(t.dtype);
  for (size_t i = 0; i < t.dims.size(); ++i) {
    out += i == 0 ? ", " : "x";
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, t.dims[i]);
    out.append(buf, end);
  }
  out += '>';
}

std::string to_string(const TensorType& t) {
  std::string s;
  append_type(s, t);
  return s;
}

static size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

size_t hash_value(const TensorType& t) {
  size_t h = static_cast<size_t>(t.dtype);
  for (int64_t d : t.dims) h = mix(h, static_cast<size_t>(d));
  return h;
}

size_t hash_value(const Tensor& t) {
  // Equal tensors hash alike in either form: a tensor of equal elements hashes as its splat.
  size_t h = hash_value(t.type);
  const size_t w = dtype_bytes(t.type.dtype);
  const size_t n = t.size() == 0 ? 0 : t.is_splat() ? w : t.data.size();
  h = mix(h, std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(t.data.data()), n)));
  return h;
}

void Tensor::expand() {
  if (!splat) return;
  const int w = dtype_bytes(type.dtype);
  const uint64_t v = load_bits(data.data(), w);
  data.resize(static_cast<size_t>(size()) * w);  // in place when the capacity allows (a pooled tensor's)
  for (size_t off = 0; off < data.size(); off += static_cast<size_t>(w)) store_bits(data.data() + off, w, v);
  splat = false;
}

void Tensor::compact() {
  if (splat || size() < 2 || !is_splat()) return;
  data.resize(dtype_bytes(type.dtype));
  data.shrink_to_fit();
  splat = true;
}

bool Tensor::operator==(const Tensor& o) const {
  if (type != o.type) return false;
  if (splat == o.splat) return data == o.data;
  const int64_t n = size();
  for (int64_t i = 0; i < n; ++i)
    if (bits(i) != o.bits(i)) return false;
  return true;
}

double Tensor::as_double(int64_t i) const {
  DType d = type.dtype;
  uint64_t b = bits(i);
  if (is_float(d)) return float_to_double(d, b);
  if (is_signed_int(d)) return static_cast<double>(int_value(d, b));
  return static_cast<double>(b);
}

bool Tensor::is_splat() const {
  if (splat) return true;
  int64_t n = size();
  size_t w = dtype_bytes(type.dtype);
  for (int64_t i = 1; i < n; ++i)
    if (std::memcmp(data.data(), data.data() + i * w, w) != 0) return false;
  return true;
}

int64_t first_difference(const Tensor& a, const Tensor& b) {
  if (a.type != b.type) return 0;
  DType d = a.type.dtype;
  for (int64_t i = 0, n = a.size(); i < n; ++i) {
    uint64_t x = a.bits(i), y = b.bits(i);
    if (x == y) continue;
    if (is_float(d) && float_is_nan(d, x) && float_is_nan(d, y)) continue;
    return i;
  }
  return -1;
}

bool results_equal(const Tensor& a, const Tensor& b) { return first_difference(a, b) < 0; }

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

}  // namespace ptir
