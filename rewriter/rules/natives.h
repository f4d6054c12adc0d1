// Named native predicates and helpers a rule may call (docs/rules.md lists them). A rule names them;
// the checker resolves them at load time, so an unknown name or a wrong argument is a load-time error.
#pragma once
#include <array>
#include <memory>
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

struct CIntCond;
/// A compiled integer expression (ast.h IntExpr) with its captures resolved to slots.
struct CIntExpr {
  IntExpr::Kind kind = IntExpr::Kind::Lit;
  int64_t lit = 0;
  CapKind cap = CapKind::Value;  ///< Dim/Rank: Value (`%x`) or Type (`$T`); At/Cap: Attr or Lit
  int slot = -1;                 ///< the capture slot; Var: the variable's index (its nesting depth)
  std::vector<CIntExpr> kids;
  std::shared_ptr<const CIntCond> cond;  ///< If
};
/// A compiled integer condition (ast.h IntCond).
struct CIntCond {
  IntCond::Kind kind = IntCond::Kind::Cmp;
  IntCond::Cmp cmp = IntCond::Cmp::Eq;
  CIntExpr lhs, rhs;             ///< Cmp; All: rhs is the bound
  std::vector<CIntCond> kids;
};
/// The most variables (`all` and per-axis lists) in scope at once.
inline constexpr int kMaxIntVars = 8;
/// The largest bound of `all` and of a per-axis list that is evaluated (a larger one makes the
/// constraint false / the attribute not formed: the rule does not apply).
inline constexpr int64_t kMaxIntBound = 1 << 16;

/// The value of `e` under the bindings of a match, or nullopt when it is undefined: an overflow of a
/// 64-bit integer, dim/at with an index out of range, at/`$a` of something that is no integer list or
/// integer literal, an unsigned element above 2^63 - 1 (docs/rules.md "Integer constraints").
std::optional<int64_t> eval_int(const Program& p, const Captures& c, const CIntExpr& e, std::span<const int64_t> vars);
/// Whether `k` holds; a comparison with an undefined side is false (so a rule whose constraint
/// overflows does not fire), `all i < E: C` is false when E is undefined or above kMaxIntBound.
bool int_holds(const Program& p, const Captures& c, const CIntCond& k, std::vector<int64_t>& vars);

/// Reads an argument's type (TypeLike parameters).
const TensorType& arg_type(const Program& p, const Captures& c, const Arg& a);

using PredicateFn = bool (*)(const Program& p, const Captures& c, std::span<const Arg> args);
using AttrHelperFn = std::optional<std::vector<int64_t>> (*)(const Captures& c, std::span<const Arg> args);
/// Builds a literal of type `t` (the result node's type); nullopt: the helper does not apply.
using LitHelperFn = std::optional<Tensor> (*)(const Program& p, const Captures& c, std::span<const Arg> args,
                                              const TensorType& t);

/// Every native's identity. The rewriter's table (natives.cpp) gives each its concrete code; layers above
/// key their own meaning of a native by this id, never by its name: verify/allshape/natives.cpp holds
/// the symbolic (all-shape) spec of each id, and a test checks that every id has one.
enum class NativeId : uint8_t {
  // predicates
  IsFloat, IsInt, IsSigned, IsUnsigned, IsBool, DtypeIs, RankIs, NumElementsIs, OneUse, SameType, SameDtype,
  SameShape, WidensExactly, ComposesToIdentity, IsIdentityPerm, AxesAllSize, SomeAxisSize, AttrIs, IsPow2, IsSplat,
  ExactAccum, HasAttr, KeepsFreeOrder, IsConstant,
  // attribute helpers
  ComposePerm, InversePerm, AddInts, MulInts, PermuteAxes, SubInts, LitInts,
  // literal helpers
  Reciprocal, ReciprocalRounded, Lowest, Highest, AddLits, MulLits, NegLit, IntLit,
};
inline constexpr int kNumNatives = static_cast<int>(NativeId::IntLit) + 1;

/// The role an attribute argument must have (ir/ops.h AttrRole: `compose_perm` takes permutations,
/// `add_ints` one integer per axis); nullopt: any role, or not an attribute parameter.
using ArgRole = std::optional<AttrRole>;

struct PredicateSpec {
  NativeId id;
  std::string_view name;
  std::vector<Param> params;
  PredicateFn fn;
  std::string_view doc;
  std::vector<ArgRole> roles = {};  ///< per parameter (empty: none required)
};
struct AttrHelperSpec {
  NativeId id;
  std::string_view name;
  std::vector<Param> params;
  AttrHelperFn fn;
  std::string_view doc;
  std::vector<ArgRole> roles = {};  ///< per parameter
  AttrRole result_role = AttrRole::Other;  ///< what its result is: the attribute it is given to must have this role
};
struct LitHelperSpec {
  NativeId id;
  std::string_view name;
  std::vector<Param> params;
  LitHelperFn fn;
  std::string_view doc;
};

const PredicateSpec* find_predicate(std::string_view name);
/// The native of that id's name ("compose_perm"); every id has one.
std::string_view native_name(NativeId id);
/// The id of the native called `name` at `site` (attribute and literal helpers share the Helper site:
/// their names differ); nullopt for an unknown name.
std::optional<NativeId> native_id(std::string_view name, Site site);
const AttrHelperSpec* find_attr_helper(std::string_view name);
const LitHelperSpec* find_lit_helper(std::string_view name);
std::span<const PredicateSpec> all_predicates();
std::span<const AttrHelperSpec> all_attr_helpers();
std::span<const LitHelperSpec> all_lit_helpers();

/// int_lit's element: the integer v in dtype d (integers wrap to v mod 2^w, floats round to
/// nearest-even, i1 only 0 and 1: nullopt otherwise). verify/allshape/native_specs.cpp states the same.
std::optional<uint64_t> int_lit_bits(DType d, int64_t v);

/// True when every value of dtype `from` casts to `to` and back to itself exactly (the round trip
/// from -> to -> from is the identity on every bit pattern, NaN payloads aside).
bool widens_exactly(DType from, DType to);

/// The bits of number `v` in dtype `d` when it is a value of `d` (docs/rules.md "Numbers"): an integer
/// is read exactly, every digit (parse_int_elem for integer dtypes, in range only; i1 only 0 and 1; a
/// float dtype when parse_float_elem's rounding of it is exact); a decimal (`is_float`) only in float
/// dtypes, as the double nearest it, which `d` must hold exactly (inf, nan and -0.0 included).
std::optional<uint64_t> number_bits(DType d, const NumberValue& v, bool is_float);

}  // namespace ptir::rules
