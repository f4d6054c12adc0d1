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

bool attr_is_default(const AttrSpec& spec, const AttrValue& v, int rank) {
  const auto all = [&](int64_t x) {
    for (int64_t i : v.ints)
      if (i != x) return false;
    return true;
  };
  switch (spec.dflt) {
    case AttrDefault::None:
    case AttrDefault::Own: return true;
    case AttrDefault::Zeros: return all(0);
    case AttrDefault::Ones: return all(1);
    case AttrDefault::Zero:
      for (int64_t k = 0, n = v.lit.stored_elements(); k < n; ++k)
        if (v.lit.bits(k) != 0) return false;
      return true;
    case AttrDefault::False: return v.ints.empty() || v.ints[0] == 0;
    case AttrDefault::True: return v.ints.empty() || v.ints[0] != 0;
    case AttrDefault::Last: return !v.ints.empty() && v.ints[0] == rank - 1;
    case AttrDefault::Absent: return false;
  }
  return true;
}

}  // namespace ptir
