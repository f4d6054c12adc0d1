// Attribute values and interned attribute sets.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ops.h"
#include "ir/tensor.h"

namespace ptir {

/// One attribute value. Which fields are meaningful depends on `kind`:
/// Ints/Int: ints; Bool: ints[0] in {0,1}; DType: ints[0] = DType; Region: text = name, ints[0] = body id;
/// Word/String: text; Literal/Scalar: lit (a Scalar is a rank-0 literal printed as its bare element).
struct AttrValue {
  AttrKind kind = AttrKind::Ints;
  std::vector<int64_t> ints;
  std::string text;
  Tensor lit;
  bool operator==(const AttrValue&) const = default;
};

struct Attr {
  std::string name;
  AttrValue value;
  bool operator==(const Attr&) const = default;
};

/// An op's attributes, in the order they were written. Interned per Program; id 0 is the empty set.
struct AttrSet {
  std::vector<Attr> attrs;

  const AttrValue* find(std::string_view name) const {
    for (const Attr& a : attrs)
      if (a.name == name) return &a.value;
    return nullptr;
  }
  /// The integer list of `name`, or `dflt` when absent.
  const std::vector<int64_t>& ints(std::string_view name, const std::vector<int64_t>& dflt = kEmpty) const {
    const AttrValue* v = find(name);
    return v ? v->ints : dflt;
  }
  int64_t int_or(std::string_view name, int64_t dflt) const {
    const AttrValue* v = find(name);
    return v && !v->ints.empty() ? v->ints[0] : dflt;
  }
  bool bool_or(std::string_view name, bool dflt) const { return int_or(name, dflt) != 0; }
  std::string_view word(std::string_view name) const {
    const AttrValue* v = find(name);
    return v ? std::string_view(v->text) : std::string_view();
  }
  bool operator==(const AttrSet&) const = default;
  static const std::vector<int64_t> kEmpty;
};

size_t hash_value(const AttrSet& s);

/// Whether `v`, written as attribute `spec` of an op whose operand 0 has rank `rank`, means what leaving
/// it out means (spec.dflt; docs/semantics.md). Zeros/Ones: every entry 0/1; Zero: a scalar whose bits
/// are all 0 (+0.0, not -0.0); False/True: the flag; Last: axis rank - 1; Absent: never (written differs
/// from absent); None and Own: always (no class of their own here).
bool attr_is_default(const AttrSpec& spec, const AttrValue& v, int rank);

}  // namespace ptir
