// alpha_equivalent (verify/alpha.h): a walk over two bodies in step, with the map from a's values to b's.
#include "verify/alpha.h"

#include <unordered_map>
#include <vector>

namespace ptir::verify {
namespace {

bool differ(std::string* why, std::string what) {
  if (why) *why = std::move(what);
  return false;
}

std::vector<InstId> insts_of(const Program& p, BodyId b) {
  std::vector<InstId> v;
  p.for_each_inst(b, [&](InstId i) { v.push_back(i); });
  return v;
}

}  // namespace

bool alpha_equivalent(const Program& a, BodyId ab, const Program& b, BodyId bb, std::string* why) {
  const Body& x = a.body(ab);
  const Body& y = b.body(bb);
  if (!(x.fastmath == y.fastmath)) return differ(why, "fast-math flags differ");
  if (x.params.size() != y.params.size()) return differ(why, "parameter counts differ");
  if (x.result_types.size() != y.result_types.size()) return differ(why, "result counts differ");
  for (size_t k = 0; k < x.result_types.size(); ++k)
    if (!(a.type(x.result_types[k]) == b.type(y.result_types[k]))) return differ(why, "result types differ");
  std::unordered_map<ValueId, ValueId> map;  // a's params and results -> b's
  for (size_t k = 0; k < x.params.size(); ++k) {
    if (!(a.type_of(x.params[k]) == b.type_of(y.params[k]))) return differ(why, "parameter types differ");
    map[x.params[k]] = y.params[k];
  }
  const std::vector<InstId> xi = insts_of(a, ab), yi = insts_of(b, bb);
  if (xi.size() != yi.size()) return differ(why, "instruction counts differ");
  for (size_t n = 0; n < xi.size(); ++n) {
    const InstId i = xi[n], j = yi[n];
    const std::string at = "instruction " + std::to_string(n) + " (" + std::string(mnemonic(a.op(i))) + "): ";
    if (a.op(i) != b.op(j)) return differ(why, at + "ops differ");
    if (!(a.attrs_of(i) == b.attrs_of(j))) return differ(why, at + "attributes differ");
    for (const Attr& attr : a.attrs_of(i).attrs)
      if (attr.value.kind == AttrKind::Region) return differ(why, at + "has a region (not compared)");
    if (a.num_operands(i) != b.num_operands(j) || a.num_results(i) != b.num_results(j))
      return differ(why, at + "operand or result counts differ");
    for (uint32_t k = 0; k < a.num_operands(i); ++k) {
      const ValueId u = a.operand(i, k), v = b.operand(j, k);
      const ValueInfo& ui = a.value(u);
      const ValueInfo& vi = b.value(v);
      if (ui.kind != vi.kind) return differ(why, at + "operand " + std::to_string(k) + " differs in kind");
      if (ui.kind == ValueKind::Literal) {
        if (!(a.literal(ui.def) == b.literal(vi.def)))  // same type, bit-identical elements
          return differ(why, at + "literal operand " + std::to_string(k) + " differs");
        continue;
      }
      auto it = map.find(u);
      if (it == map.end() || it->second != v) return differ(why, at + "operand " + std::to_string(k) + " differs");
    }
    for (uint32_t k = 0; k < a.num_results(i); ++k) {
      if (!(a.type_of(a.result(i, k)) == b.type_of(b.result(j, k))))
        return differ(why, at + "result types differ");
      map[a.result(i, k)] = b.result(j, k);
    }
  }
  return true;
}

}  // namespace ptir::verify
