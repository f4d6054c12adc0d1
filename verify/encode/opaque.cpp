// Opaque ops (docs/semantics.md "Effects and opaque ops"): custom_call, quantize, dequantize, requantize
// are pure and unknown, so each result element is an uninterpreted function of every operand element,
// one function per (op, target, attributes, result types, result, element). Same op and operands on
// both sides give the same term.
#include <algorithm>

#include "ir/text.h"
#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

/// A canonical text of an attribute set (sorted by name), for the function's name.
/// Appends `text` length-prefixed, so that no two different sequences of strings give one key.
void put(std::string& key, std::string_view text) {
  key += std::to_string(text.size());
  key += ':';
  key += text;
}

/// An injective spelling of an attribute set (sorted by name): every variable-length part is
/// length-prefixed, so attributes whose strings contain brackets or separators cannot collide.
std::string attrs_key(const AttrSet& attrs) {
  std::vector<const Attr*> sorted;
  for (const Attr& a : attrs.attrs) sorted.push_back(&a);
  std::sort(sorted.begin(), sorted.end(), [](const Attr* a, const Attr* b) { return a->name < b->name; });
  std::string s = std::to_string(sorted.size()) + "#";
  for (const Attr* a : sorted) {
    put(s, a->name);
    s += "k" + std::to_string(static_cast<int>(a->value.kind)) + "n" + std::to_string(a->value.ints.size()) + ":";
    for (int64_t v : a->value.ints) s += std::to_string(v) + ",";
    put(s, a->value.text);
    put(s, a->value.kind == AttrKind::Literal || a->value.kind == AttrKind::Scalar ? print_literal(a->value.lit) : "");
  }
  return s;
}

Results opaque(OpEnv& env) {
  for (const Attr& a : env.attrs.attrs)
    if (a.value.kind == AttrKind::Region) env.fail("an opaque op cannot take regions");
  std::string key = std::string(mnemonic(env.op())) + "{" + attrs_key(env.attrs) + "}->(";
  for (const TensorType& t : env.result_types) key += to_string(t) + ";";
  key += ")";
  std::vector<Expr> args;
  for (const SymTensor& a : env.args) {
    key += "|" + to_string(a.type);  // operand types are part of the signature
    args.insert(args.end(), a.elems.begin(), a.elems.end());
  }
  Results out;
  for (size_t r = 0; r < env.result_types.size(); ++r) {
    SymTensor t = env.make(r);
    for (int64_t i = 0, n = env.out(r).num_elements(); i < n; ++i)
      t.elems.push_back(apply_uf(key + "#" + std::to_string(r) + "[" + std::to_string(i) + "]", args,
                                 sem::sort_of(env.dtype(r))));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Results encode_Quantize(OpEnv& env) { return opaque(env); }
Results encode_Dequantize(OpEnv& env) { return opaque(env); }
Results encode_Requantize(OpEnv& env) { return opaque(env); }
Results encode_CustomCall(OpEnv& env) { return opaque(env); }

Results encode_Return(OpEnv& env) { env.fail("return is handled by the body encoder"); }

}  // namespace ptir::verify::enc
