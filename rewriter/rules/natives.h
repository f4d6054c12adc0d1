// Named native predicates and helpers a rule may call (docs/rules.md lists them). A rule names them;
// the checker resolves them at load time, so an unknown name or a wrong argument is a load-time error.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"
#include "rewriter/rules/ast.h"

namespace ptir::rules {

/// What a capture holds: `%x` values, `$T` types (`: $T`), `$p` attributes, `$c` literals (`const($c)`).
enum class CapKind : uint8_t { Value, Type, Attr, Lit };

/// The most captures of one kind a rule may bind.
inline constexpr int kMaxCaptures = 16;

/// What a match has bound, by capture slot. Left uninitialized on purpose (a match attempt is on the
/// driver's hot path): the matcher tracks which slots are bound, and a checked rule reads only slots its
/// source binds.
struct Captures {
  std::array<ValueId, kMaxCaptures> value;
  std::array<TypeId, kMaxCaptures> type;
  std::array<const AttrValue*, kMaxCaptures> attr;
  std::array<const Tensor*, kMaxCaptures> lit;
};

/// What a predicate or helper parameter accepts.
enum class Param : uint8_t {
  TypeLike,  ///< `%x` (its type) or `$T`
  Value,     ///< `%x`
  Attr,      ///< `$p` bound to an attribute
  Lit,       ///< `$c` bound by const($c)
  Word,      ///< a bare word (e.g. a dtype name)
  Int,       ///< an integer
};

/// Where a native is called: a predicate in a rule's `where` clause, or a helper in its result
/// (`const(helper(...))`, `{attr = helper(...)}`).
enum class Site : uint8_t { Predicate, Helper };

/// Whether parameter `p`, called at `site`, accepts a capture of kind `k`: the one table the rule loader
/// checks every argument against (compile.cpp) and `ptir prove --list-natives` prints (param_spelling).
/// A helper's arguments are `$` captures only (the parser reads no `%x` there), so a TypeLike parameter
/// of a helper takes `$T` and a Value parameter none.
bool param_accepts(Param p, Site site, CapKind k);
/// How a parameter is written at `site`, derived from param_accepts: "%x|$T", "$T", "%x", "$attr",
/// "$lit", and "word" / "N" for Word and Int.
std::string param_spelling(Param p, Site site);

/// One resolved argument: a capture slot of a kind, a word or an integer.
struct Arg {
  CapKind kind = CapKind::Value;
  int slot = -1;  ///< -1 for words and integers
  std::string word;
  int64_t i = 0;
};

/// Reads an argument's type (TypeLike parameters).
const TensorType& arg_type(const Program& p, const Captures& c, const Arg& a);

using PredicateFn = bool (*)(const Program& p, const Captures& c, std::span<const Arg> args);
using AttrHelperFn = std::optional<std::vector<int64_t>> (*)(const Captures& c, std::span<const Arg> args);
/// Builds a literal of type `t` (the result node's type); nullopt: the helper does not apply.
using LitHelperFn = std::optional<Tensor> (*)(const Program& p, const Captures& c, std::span<const Arg> args,
                                              const TensorType& t);

struct PredicateSpec {
  std::string_view name;
  std::vector<Param> params;
  PredicateFn fn;
  std::string_view doc;
};
struct AttrHelperSpec {
  std::string_view name;
  std::vector<Param> params;
  AttrHelperFn fn;
  std::string_view doc;
};
struct LitHelperSpec {
  std::string_view name;
  std::vector<Param> params;
  LitHelperFn fn;
  std::string_view doc;
};

const PredicateSpec* find_predicate(std::string_view name);
const AttrHelperSpec* find_attr_helper(std::string_view name);
const LitHelperSpec* find_lit_helper(std::string_view name);
std::span<const PredicateSpec> all_predicates();
std::span<const AttrHelperSpec> all_attr_helpers();
std::span<const LitHelperSpec> all_lit_helpers();

/// True when every value of dtype `from` casts to `to` and back to itself exactly (the round trip
/// from -> to -> from is the identity on every bit pattern, NaN payloads aside).
bool widens_exactly(DType from, DType to);

/// The bits of number `v` in dtype `d` when it is a value of `d` (docs/rules.md "Numbers"): an integer
/// is read exactly, every digit (parse_int_elem for integer dtypes, in range only; i1 only 0 and 1; a
/// float dtype when parse_float_elem's rounding of it is exact); a decimal (`is_float`) only in float
/// dtypes, as the double nearest it, which `d` must hold exactly (inf, nan and -0.0 included).
std::optional<uint64_t> number_bits(DType d, const NumberValue& v, bool is_float);

}  // namespace ptir::rules
