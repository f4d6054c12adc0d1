// A 128-bit non-cryptographic hash of byte strings: two 64-bit lanes over 8-byte little-endian words
// with MurmurHash3-style mixing, streaming. It tells texts apart (the prover's verdict cache keys, the
// fuzz targets' table of programs already checked); it is not meant to resist a chosen collision.
// Header-only, not installed: a helper of ptir's own libraries and tools.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ptir {

struct Hash128 {
  uint64_t a = 0, b = 0;
  bool operator==(const Hash128&) const = default;
};

/// The mixing steps, shared with other hashes of ptir's own (the fuzz targets' input keys).
inline uint64_t hash_rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
/// MurmurHash3's 64-bit finalizer: every input bit affects every output bit.
inline uint64_t hash_fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

/// Feed it any number of pieces with add(); digest() gives the hash of their concatenation.
class Hash128Builder {
 public:
  void add(std::string_view d) {
    len_ += d.size();
    size_t i = 0;
    if (fill_) {
      while (fill_ < 8 && i < d.size()) buf_[fill_++] = d[i++];
      if (fill_ < 8) return;
      word(load(buf_));
      fill_ = 0;
    }
    for (; i + 8 <= d.size(); i += 8) word(load(d.data() + i));
    while (i < d.size()) buf_[fill_++] = d[i++];
  }
  Hash128 digest() const {
    uint64_t tail = 0;
    for (size_t k = 0; k < fill_; ++k) tail |= static_cast<uint64_t>(static_cast<unsigned char>(buf_[k])) << (8 * k);
    uint64_t a = h1_ ^ fmix(tail ^ 0x9E3779B97F4A7C15ull), b = h2_ ^ fmix(tail + 0x632BE59BD9B4E019ull);
    a ^= len_, b ^= len_;
    a += b, b += a;
    a = fmix(a), b = fmix(b);
    a += b, b += a;
    return {a, b};
  }

 private:
  static uint64_t rotl(uint64_t x, int r) { return hash_rotl64(x, r); }
  static uint64_t fmix(uint64_t k) { return hash_fmix64(k); }
  static uint64_t load(const char* p) {
    uint64_t w = 0;
    for (int k = 0; k < 8; ++k) w |= static_cast<uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
    return w;
  }
  void word(uint64_t w) {
    h1_ ^= rotl(w * 0x87c37b91114253d5ull, 31) * 0x4cf5ad432745937full;
    h1_ = rotl(h1_, 27) * 5 + 0x52dce729;
    h2_ ^= rotl(w * 0x4cf5ad432745937full, 33) * 0x87c37b91114253d5ull;
    h2_ = rotl(h2_, 31) * 5 + 0x38495ab5;
  }
  uint64_t h1_ = 0x736f6d6570736575ull, h2_ = 0x646f72616e646f6dull;
  uint64_t len_ = 0;
  char buf_[8] = {};
  size_t fill_ = 0;
};

inline Hash128 hash128(std::string_view d) {
  Hash128Builder h;
  h.add(d);
  return h.digest();
}

}  // namespace ptir
