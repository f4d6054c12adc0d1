// Attribute hashing.
#include "ir/attrs.h"

#include <functional>

namespace ptir {

const std::vector<int64_t> AttrSet::kEmpty;

size_t hash_value(const AttrSet& s) {
  size_t h = 0x51ed;
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const Attr& a : s.attrs) {
    mix(std::hash<std::string>()(a.name));
    mix(static_cast<size_t>(a.value.kind));
    if (a.value.kind != AttrKind::Region)
      for (int64_t i : a.value.ints) mix(static_cast<size_t>(i));
    mix(std::hash<std::string>()(a.value.text));
    if (a.value.kind == AttrKind::Literal || a.value.kind == AttrKind::Scalar) mix(hash_value(a.value.lit));
  }
  return h;
}

}  // namespace ptir
