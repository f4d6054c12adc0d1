// The seeded mode: the template table and its instantiation into a body.
#include "fuzz/gen/seeded.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "fuzz/gen/gen_impl.h"
#include "ir/text.h"

namespace ptir::fuzz {
namespace {

using D = SeedDType;
constexpr std::array<SeedTemplate, 44> kTemplates = {{
    {"mul_one", "x * 1 => x", false, D::Number, 0, false, "$0 = mul $x, dense<$one> : $T -> $T"},
    {"mul_one_left", "1 * x => x", false, D::Number, 0, false, "$0 = mul dense<$one> : $T, $x -> $T"},
    {"div_one", "x / 1 => x", false, D::Number, 0, false, "$0 = div $x, dense<$one> : $T -> $T"},
    {"add_neg_zero", "x + -0.0 => x", false, D::Float, 0, false, "$0 = add $x, dense<-0.0> : $T -> $T"},
    {"sub_pos_zero", "x - 0.0 => x", false, D::Float, 0, false, "$0 = sub $x, dense<0.0> : $T -> $T"},
    {"add_pos_zero", "x + 0.0 =/=> x (x = -0.0)", true, D::Float, 0, false, "$0 = add $x, dense<0.0> : $T -> $T"},
    {"sub_neg_zero", "x - -0.0 =/=> x (x = -0.0)", true, D::Float, 0, false, "$0 = sub $x, dense<-0.0> : $T -> $T"},
    {"add_zero_int", "x + 0 => x", false, D::Int, 0, false, "$0 = add $x, dense<0> : $T -> $T"},
    {"mul_zero_float", "x * 0.0 =/=> 0.0 (NaN, inf, -x)", true, D::Float, 0, false,
     "$0 = mul $x, dense<0.0> : $T -> $T"},
    {"zero_minus_x", "0.0 - x =/=> neg x (x = 0.0)", true, D::Float, 0, false, "$0 = sub dense<0.0> : $T, $x -> $T"},
    {"mul_two", "x * 2 => x + x", false, D::Float, 0, false, "$0 = mul $x, dense<$two> : $T -> $T"},
    {"div_pow2", "x / 4 => x * 0.25", false, D::Float, 0, false, "$0 = div $x, dense<4.0> : $T -> $T"},
    {"div_three", "x / 3 =/=> x * (1/3)", true, D::Float, 0, false, "$0 = div $x, dense<3.0> : $T -> $T"},
    {"mul_neg_one", "x * -1 => neg x", false, D::Number, 0, false, "$0 = mul $x, dense<$negone> : $T -> $T"},
    {"sub_self_float", "x - x =/=> 0.0 (NaN, inf)", true, D::Float, 0, false, "$0 = sub $x, $x -> $T"},
    {"sub_self_int", "x - x => 0", false, D::Int, 0, false, "$0 = sub $x, $x -> $T"},
    {"max_self", "maximum(x, x) => x", false, D::Number, 0, false, "$0 = maximum $x, $x -> $T"},
    {"neg_neg", "neg(neg x) => x", false, D::Number, 0, false, "$0 = neg $x -> $T; $1 = neg $0 -> $T"},
    {"abs_abs", "abs(abs x) => abs x", false, D::Number, 0, false, "$0 = abs $x -> $T; $1 = abs $0 -> $T"},
    {"abs_neg", "abs(neg x) => abs x", false, D::Number, 0, false, "$0 = neg $x -> $T; $1 = abs $0 -> $T"},
    {"stop_gradient_pair", "sg(sg x) => sg x", false, D::Any, 0, false,
     "$0 = stop_gradient $x -> $T; $1 = stop_gradient $0 -> $T"},
    {"cast_f16_f32_f16", "cast(cast x:f16 -> f32) -> f16 => x", false, D::F16, 0, false,
     "$0 = cast $x -> $T:f32; $1 = cast $0 -> $T"},
    {"cast_si8_si32_si8", "cast(cast x:si8 -> si32) -> si8 => x", false, D::SI8, 0, false,
     "$0 = cast $x -> $T:si32; $1 = cast $0 -> $T"},
    {"cast_f32_f16_f32", "cast(cast x:f32 -> f16) -> f32 =/=> x (rounding)", true, D::F32, 0, false,
     "$0 = cast $x -> $T:f16; $1 = cast $0 -> $T"},
    {"cast_si32_si8_si32", "cast(cast x:si32 -> si8) -> si32 =/=> x (saturation)", true, D::SI32, 0, false,
     "$0 = cast $x -> $T:si8; $1 = cast $0 -> $T"},
    {"cast_same", "cast x -> same type => x", false, D::Any, 0, false, "$0 = cast $x -> $T"},
    {"transpose_pair", "transpose(transpose x p) p^-1 => x", false, D::Any, 2, false,
     "$0 = transpose $x perm[$perm] -> $Tt; $1 = transpose $0 perm[$perm] -> $T"},
    {"transpose_identity", "transpose x [0..] => x", false, D::Any, 1, false, "$0 = transpose $x perm[$iota] -> $T"},
    {"reshape_chain", "reshape(reshape x) => reshape x", false, D::Any, 0, false,
     "$0 = reshape $x -> $Tf; $1 = reshape $0 -> $T"},
    {"reshape_same", "reshape x -> same type => x", false, D::Any, 0, false, "$0 = reshape $x -> $T"},
    {"broadcast_chain", "broadcast(broadcast x) => broadcast x", false, D::Any, 0, false,
     "$0 = broadcast_to $x -> $Tb; $1 = broadcast_to $0 -> $Tbb"},
    {"broadcast_same", "broadcast_to x -> same type => x", false, D::Any, 0, false, "$0 = broadcast_to $x -> $T"},
    {"select_same", "select(p, x, x) => x", false, D::Any, 0, false,
     "$0 = compare $x, $x dir[lt] -> $T:i1; $1 = select $0, $x, $x -> $T"},
    {"select_true", "select(true, x, y) => x", false, D::Number, 0, false,
     "$0 = neg $x -> $T; $1 = select dense<true> : $T:i1, $x, $0 -> $T"},
    {"select_false", "select(false, x, y) => y", false, D::Number, 0, false,
     "$0 = neg $x -> $T; $1 = select dense<false> : $T:i1, $x, $0 -> $T"},
    {"slice_of_concat", "slice(concat(x, x), first half) => x", false, D::Any, 1, false,
     "$0 = concat $x, $x axis[0] -> $Tc; $1 = slice $0 starts[$zeros] -> $T"},
    {"slice_of_concat_straddle", "slice(concat(x, x)) across the seam =/=> x", true, D::Any, 1, true,
     "$0 = concat $x, $x axis[0] -> $Tc; $1 = slice $0 starts[$first1] -> $T"},
    {"slice_of_pad", "slice(pad x 1 1) 1 => x", false, D::Any, 0, false,
     "$0 = pad $x low[$ones] high[$ones] -> $Tp; $1 = slice $0 starts[$ones] -> $T"},
    {"slice_full", "slice x [0..] full size => x", false, D::Any, 0, false, "$0 = slice $x starts[$zeros] -> $T"},
    {"concat_one", "concat(x) => x", false, D::Any, 1, false, "$0 = concat $x axis[0] -> $T"},
    {"pad_zero", "pad x 0 0 => x", false, D::Any, 0, false, "$0 = pad $x low[$zeros] high[$zeros] -> $T"},
    {"tile_ones", "tile x [1..] => x", false, D::Any, 0, false, "$0 = tile $x repeats[$ones] -> $T"},
    {"reduce_size1_axis", "reduce_sum over a size-1 axis => reshape", false, D::Number, 0, false,
     "$0 = reshape $x -> $T1; $1 = reduce_sum $0 axes[0] -> $T"},
    {"reduce_max_size1_axis", "reduce_max over a size-1 axis => reshape", false, D::Number, 0, false,
     "$0 = reshape $x -> $T1; $1 = reduce_max $0 axes[0] keepdims[false] -> $T"},
}};

}  // namespace

std::span<const SeedTemplate> seed_templates() { return kTemplates; }

namespace detail {
namespace {

std::optional<DType> exact_dtype(SeedDType d) {
  switch (d) {
    case SeedDType::F16:
      return DType::F16;
    case SeedDType::F32:
      return DType::F32;
    case SeedDType::SI8:
      return DType::SI8;
    case SeedDType::SI32:
      return DType::SI32;
    case SeedDType::Any:
    case SeedDType::Number:
    case SeedDType::Float:
    case SeedDType::Int:
      return std::nullopt;
  }
  return std::nullopt;
}

Cls class_of(SeedDType d) {
  switch (d) {
    case SeedDType::Number:
      return Cls::Number;
    case SeedDType::Float:
      return Cls::Float;
    case SeedDType::Int:
      return Cls::Int;
    case SeedDType::Any:
    case SeedDType::F16:
    case SeedDType::F32:
    case SeedDType::SI8:
    case SeedDType::SI32:
      return Cls::Any;
  }
  return Cls::Any;
}

std::string join_list(const std::vector<int64_t>& v) {
  std::string s = list(v);
  return s.substr(1, s.size() - 2);
}

/// Instantiates a template's placeholders for input x.
class Instance {
 public:
  Instance(Gen& g, BodyCtx& b, const Val& x) : g_(g), b_(b), x_(x) {}

  /// A derived type by placeholder name ("T", "Tt", "T:f32", ...); nullopt when it cannot exist.
  std::optional<TensorType> type(std::string_view p) const {
    const TensorType& t = x_.type;
    if (p == "T") return t;
    if (p.substr(0, 2) == "T:") {
      auto dt = parse_dtype(p.substr(2));
      if (!dt) return std::nullopt;
      return with_dtype(t, *dt);
    }
    std::vector<int64_t> d = t.dims;
    if (p == "Tt") {
      if (d.size() < 2) return std::nullopt;
      std::swap(d[0], d[1]);
    } else if (p == "Tf") {
      d = {t.num_elements()};
    } else if (p == "T1") {
      d.insert(d.begin(), 1);
    } else if (p == "Tb") {
      d.insert(d.begin(), 2);
    } else if (p == "Tbb") {
      d.insert(d.begin(), {3, 2});
    } else if (p == "Tc") {
      if (d.empty()) return std::nullopt;
      d[0] *= 2;
    } else if (p == "Tp") {
      for (int64_t& v : d) v += 2;
    } else {
      return std::nullopt;
    }
    return with_dims(t, std::move(d));
  }

  std::optional<std::string> word(std::string_view p) const {
    const DType dt = x_.type.dtype;
    const int r = x_.type.rank();
    if (p == "x") return x_.name;
    if (p == "one") return format_elem(dt, is_float(dt) ? double_to_float(dt, 1.0) : 1);
    if (p == "two") return format_elem(dt, is_float(dt) ? double_to_float(dt, 2.0) : 2);
    if (p == "negone") return format_elem(dt, is_float(dt) ? double_to_float(dt, -1.0) : bits_mask(dt));
    if (p != "zeros" && p != "ones" && p != "iota" && p != "perm" && p != "first1") return std::nullopt;
    std::vector<int64_t> v(static_cast<size_t>(r), 0);
    if (p == "zeros") return join_list(v);
    if (p == "ones") return join_list(std::vector<int64_t>(v.size(), 1));
    if (p == "iota") {
      for (int i = 0; i < r; ++i) v[static_cast<size_t>(i)] = i;
      return join_list(v);
    }
    if (p == "perm") {
      for (int i = 0; i < r; ++i) v[static_cast<size_t>(i)] = i;
      if (r >= 2) std::swap(v[0], v[1]);
      return join_list(v);
    }
    if (p == "first1") {
      if (r > 0) v[0] = 1;
      return join_list(v);
    }
    return std::nullopt;
  }

  /// `text` with each literal `dense<...> : tensor<...>` written as the printer writes it: a template's
/// splat `dense<1> : $T` is a list when $T has fewer than two elements, as everything the generator
/// writes is in the printer's form (fuzz_pipeline relies on it to skip a redundant round trip).
static std::string canonical_literals(const std::string& text) {
  std::string out;
  size_t i = 0;
  for (size_t k; (k = text.find("dense<", i)) != std::string::npos;) {
    const size_t colon = text.find("> : tensor<", k);
    const size_t end = colon == std::string::npos ? colon : text.find('>', colon + 11);
    if (end == std::string::npos) break;
    out.append(text, i, k - i);
    Tensor lit;
    std::string error;
    const std::string_view written = std::string_view(text).substr(k, end + 1 - k);
    if (parse_literal(written, &lit, &error))
      out += print_literal(lit);
    else
      out += written;  // the parse of the whole program reports it
    i = end + 1;
  }
  out.append(text, i, std::string::npos);
  return out;
}

/// Replaces every `$name` in s; false when one has no meaning here.
  bool subst(std::string_view s, std::string& out) const {
    for (size_t i = 0; i < s.size();) {
      if (s[i] != '$') {
        out += s[i++];
        continue;
      }
      size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == ':')) ++j;
      std::string_view p = s.substr(i + 1, j - i - 1);
      if (!p.empty() && std::isdigit(static_cast<unsigned char>(p[0]))) {
        const size_t k = static_cast<size_t>(p[0] - '0');
        if (k >= names_.size()) return false;
        out += names_[k];
      } else if (auto w = word(p)) {
        out += *w;
      } else if (auto t = type(p)) {
        if (!g_.fits(*t)) return false;
        append_type(out, *t);
      } else {
        return false;
      }
      i = j;
    }
    return true;
  }

  /// Writes every statement; false (nothing written) when a placeholder does not apply.
  bool plant(std::string_view body) {
    struct Stmt {
      std::string text;
      TensorType type;
    };
    std::vector<Stmt> stmts;
    for (size_t b = 0; b < body.size();) {
      size_t e = body.find(';', b);
      if (e == std::string_view::npos) e = body.size();
      std::string_view line = body.substr(b, e - b);
      b = e + 1;
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      const size_t eq = line.find(" = "), arrow = line.rfind(" -> $");
      if (eq == std::string_view::npos || arrow == std::string_view::npos) return false;
      auto t = type(line.substr(arrow + 5));
      if (!t || !g_.fits(*t)) return false;
      // emit() names results %v<next_id>, %v<next_id + 1>, ... in order: `$k` is the k-th of them.
      names_.push_back("%v" + std::to_string(b_.next_id + static_cast<int>(names_.size())));
      std::string text;
      if (!subst(line.substr(eq + 3, arrow - eq - 3), text)) return false;
      stmts.push_back({canonical_literals(text), *t});
    }
    for (const Stmt& s : stmts) g_.emit(b_, s.text, s.type);
    return true;
  }

 private:
  Gen& g_;
  BodyCtx& b_;
  Val x_;
  std::vector<std::string> names_;
};

}  // namespace

bool gen_seeded(Gen& g, BodyCtx& b) {
  const SeedTemplate& t = kTemplates[g.c().index(kTemplates.size())];
  const auto exact = exact_dtype(t.dtype);
  if (exact && !g.allowed(*exact)) return false;
  auto ok = [&](const TensorType& ty) {
    return (!exact || ty.dtype == *exact) && (!t.nonempty_dim0 || (ty.rank() > 0 && ty.dims[0] >= 1));
  };
  std::optional<Val> x;
  if (exact) {
    // The pool rarely holds the exact dtype: make a fresh operand of it.
    TensorType ty{*exact,
                  g.random_dims(static_cast<int>(g.c().range(t.min_rank, std::max(t.min_rank, g.opts().max_rank))))};
    if (ok(ty)) x = Val{g.operand(b, ty), ty};
  } else {
    x = g.input(b, class_of(t.dtype), ok, t.min_rank);
  }
  if (!x) return false;
  Instance inst(g, b, *x);
  if (!inst.plant(t.body)) return false;
  g.templates().push_back(std::string(t.name));
  return true;
}

}  // namespace detail
}  // namespace ptir::fuzz
