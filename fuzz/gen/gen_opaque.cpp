// Generator: the opaque ops (quantize, dequantize, requantize, custom_call) and the deterministic
// kernels that let the interpreter run them (fuzz_kernels()).
#include <cstring>

#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz {
namespace detail {
namespace {

bool any_type(const TensorType&) { return true; }

std::optional<TensorType> random_type(Gen& g, Cls cls, std::vector<int64_t> dims) {
  auto d = g.pick_dtype(cls);
  if (!d) return std::nullopt;
  return TensorType{*d, std::move(dims)};
}

bool quant(Gen& g, BodyCtx& b, OpCode op) {
  auto x = g.input(b, Cls::Any, any_type);
  auto st = random_type(g, Cls::Float, {});
  auto rt = random_type(g, Cls::Any, x ? x->type.dims : std::vector<int64_t>{});
  if (!x || !st || !rt) return false;
  std::string text = std::string(mnemonic(op)) + " " + x->name + ", " + g.operand(b, *st) + ", " +
                     g.operand(b, TensorType{g.index_dtype(), {}});
  if (x->type.rank() > 0 && g.c().chance(1, 2))
    text += " axis[" + std::to_string(g.c().index(x->type.dims.size())) + "]";
  g.emit(b, text, *rt);
  return true;
}

bool custom_call(Gen& g, BodyCtx& b) {
  std::string args;
  for (int i = static_cast<int>(g.c().range(0, 3)); i > 0; --i)
    if (auto v = g.input(b, Cls::Any, any_type)) args += (args.empty() ? " " : ", ") + v->name;
  std::vector<TensorType> results;
  for (int i = static_cast<int>(g.c().range(1, 2)); i > 0; --i)
    if (auto t = random_type(g, Cls::Any, g.random_dims())) results.push_back(*t);
  if (results.empty()) return false;
  std::string text =
      std::string("custom_call") + args + (g.c().chance(1, 2) ? " target[\"fuzz.a.v1\"]" : " target[\"fuzz.b.v1\"]");
  if (g.c().chance(1, 3)) text += " mode[" + std::to_string(g.c().range(0, 2)) + "]";
  g.emit_multi(b, text, results);
  return true;
}

}  // namespace

bool gen_opaque(Gen& g, BodyCtx& b, OpCode op) {
  if (op == OpCode::CustomCall) return custom_call(g, b);
  if (op == OpCode::Quantize || op == OpCode::Dequantize || op == OpCode::Requantize) return quant(g, b, op);
  return false;
}

}  // namespace detail

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

uint64_t mix_text(uint64_t h, const std::string& s) {
  h = mix(h, s.size());
  for (unsigned char ch : s) h = mix(h, ch);
  return h;
}

/// The value of one element as the SMT encoding sees it: every NaN is one value; i1 is its low bit.
uint64_t canonical_elem(const Tensor& t, int64_t i) {
  const DType d = t.dtype();
  const uint64_t v = t.bits(i);
  if (d == DType::I1) return v & 1;
  if (is_float(d) && float_is_nan(d, v)) return canonical_nan(d);
  return v & bits_mask(d);
}

/// A pure, deterministic kernel: every result element hashes the op's name, attributes, operand and
/// result types, every operand element, and its own position.
KernelRegistry::Kernel hash_kernel(std::string name) {
  return [name](std::span<const Tensor> args, const AttrSet& attrs, std::span<const TensorType> types,
                std::vector<Tensor>& results, std::string&) {
    uint64_t h = mix_text(0, name);
    h = mix(h, hash_value(attrs));
    for (const Tensor& a : args) {
      h = mix_text(h, to_string(a.type));
      for (int64_t i = 0; i < a.size(); ++i) h = mix(h, canonical_elem(a, i));
    }
    for (size_t r = 0; r < types.size(); ++r) {
      Tensor t(types[r]);
      const uint64_t hr = mix(mix_text(h, to_string(types[r])), r);
      for (int64_t i = 0; i < t.size(); ++i) {
        uint64_t v = mix(hr, static_cast<uint64_t>(i));
        // Mostly small values so downstream arithmetic stays interesting; i1 keeps one bit.
        if (t.dtype() == DType::I1)
          v &= 1;
        else if (is_float(t.dtype()))
          v = (v & 3) == 0 ? v & bits_mask(t.dtype())
                           : double_to_float(t.dtype(), static_cast<double>(static_cast<int64_t>(v % 17) - 8));
        else
          v &= bits_mask(t.dtype());
        t.set_bits(i, v);
      }
      results.push_back(std::move(t));
    }
    return true;
  };
}

KernelRegistry make_kernels() {
  KernelRegistry k;
  for (const char* name : {"fuzz.a.v1", "fuzz.b.v1", "quantize", "dequantize", "requantize"})
    k.add(name, hash_kernel(name));
  return k;
}

}  // namespace

const KernelRegistry& fuzz_kernels() {
  static const KernelRegistry k = make_kernels();  // immutable after construction
  return k;
}

}  // namespace ptir::fuzz
