// The instance templates of the built-in C++ patterns (patterns/templates.h).
#include "patterns/templates.h"

#include "patterns/cpp_patterns.h"

namespace ptir {

std::vector<std::pair<std::string, std::string>> cpp_pattern_templates() {
  std::vector<std::pair<std::string, std::string>> out = detail::reduce_dot_templates();
  std::vector<std::pair<std::string, std::string>> seed = {
      {"remove_noop_cast", "cast(%x : $T) : $T"},
      {"remove_noop_cast", "cast(%x)"},
      {"fuse_unary_through_broadcast", "neg(broadcast_to(%x))"},
      {"fuse_unary_through_broadcast", "abs(broadcast_to(%x))"},
      {"fuse_unary_through_broadcast", "exp(broadcast_to(%x))"},
      {"fuse_unary_through_broadcast", "sqrt(broadcast_to(%x))"},
      {"fold_transpose_pair", "transpose(transpose(%x))"},
      {"fold_mul_by_one", "mul(%x, splat(1))"},
      {"fold_add_neg_zero", "add(%x, splat(-0.0))"},
  };
  for (auto& t : seed) out.push_back(std::move(t));
  return out;
}

}  // namespace ptir
