// The symbolic (all-shape) meaning of every rule native, side by side, one entry per native id
// (rewriter/rules/natives.h NativeId; the concrete code is rewriter/rules/natives.cpp). The encoder,
// the fragment gate, the rank bound and the word premise look a native's meaning up here by its id,
// never by its name. A native without an entry is outside the fragment ("native X has no all-shape
// spec"); one whose entry gives `outside` is outside with that reason. tests/verify/allshape_natives_test
// checks every native's concrete code against its entry on random inputs, and that every id has one.
// Not installed.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rewriter/rules/natives.h"
#include "verify/allshape/internal.h"

namespace ptir::allshape::detail {

/// What a native's symbolic meaning reads: the captures of one configuration. The encoder is one; the
/// property test binds concrete values.
class NativeEnv {
 public:
  virtual ~NativeEnv() = default;
  /// The type of `%x` or `$T`; null when unbound.
  virtual const TypeV* type_of(const rules::Constraint::Arg& a) = 0;
  /// A captured attribute; null when unbound.
  virtual const AttrB* attr(const std::string& name) const = 0;
  /// A `const($c)` literal, a splat: its dtype and element; nullopt when unbound.
  virtual std::optional<std::pair<DType, smt::Expr>> lit(const std::string& name) const = 0;
  /// The reduction `as %r` binds; null when `%r` is not a reduction.
  virtual const ReduceAccum* accum(const std::string& value) const = 0;
  /// Whether the op `as %value` binds carries attribute `attr`, when the configuration decides it (a
  /// dot_general's batch lists and accum, a reduction's axes and accum); nullopt otherwise.
  virtual std::optional<bool> has_attr(const std::string& value, const std::string& attr) const = 0;
};

/// What a predicate says in one configuration (about its positive form; the encoder applies `not`).
struct PredMeaning {
  enum class Kind : uint8_t {
    Known,    ///< decided by the configuration's discrete choices: `known`
    Formula,  ///< holds exactly where `formula` does (sizes, literal values)
    Dropped,  ///< not used (the statement proved is stronger): `note` says why
  } kind = Kind::Known;
  bool known = false;
  smt::Expr formula;
  std::string note;
  /// Formula only: a float term the formula states to be a power of two with an exact reciprocal
  /// (smt::pow2_with_exact_reciprocal); where the constraint is assumed (not negated), the encoder builds
  /// divisions by it as products (smt::Pow2Divisor), with no float divider for Z3 to bit-blast.
  std::optional<smt::Expr> pow2_divisor{};
  static PredMeaning of(bool b) { return {Kind::Known, b, {}, {}}; }
  static PredMeaning where(smt::Expr f) { return {Kind::Formula, false, std::move(f), {}}; }
  static PredMeaning dropped(std::string why) { return {Kind::Dropped, false, {}, std::move(why)}; }
};

/// How a positive predicate shapes the rule's facts (RuleFacts) and the word premise.
enum class PredFact : uint8_t {
  None,
  Rank,          ///< rank_is(%x, N): a scalar capture (N = 0) or a fixed rank
  SplatLiteral,  ///< is_splat($c), is_pow2($c): const($c) is a splat
  SameShape,     ///< same_type(a, b), same_shape(a, b)
};
enum class PermIdentity : uint8_t {
  None,
  Identity,  ///< is_identity_perm($p): p = 1 in every word
  Inverse,   ///< composes_to_identity($p, $q): q = p^-1 in every word
  FreeOrder, ///< keeps_free_order($p, $b, $c): a dot_general side whose lists are permute_axes($p, $b) and
             ///< permute_axes($p, $c) reads its operand as transposing by p, then the side with $b, $c
};

struct PredicateSpec {
  rules::NativeId id;
  /// Non-null: the predicate is outside the fragment, for this reason.
  const char* outside = nullptr;
  /// The meaning in one configuration; throws Outside (an argument the encoding cannot read).
  PredMeaning (*meaning)(NativeEnv& env, const rules::Constraint& c) = nullptr;
  PredFact fact = PredFact::None;
  PermIdentity identity = PermIdentity::None;
  /// Axes the rank argument must keep for a positive use (a witness axis: some_axis_size).
  int witness_axes = 0;
  /// Its arguments (values, types, per-axis attribute captures) are read in one frame of axes
  /// (same_shape, axes_all_size, ...): the word premise (words.cpp) requires one permutation word for
  /// all of them.
  bool one_frame = false;
};

/// How an attribute helper's result reads as a permutation word (words.cpp).
enum class PermWord : uint8_t {
  Opaque,   ///< an anonymous permutation
  Compose,  ///< transposing by its first argument, then by its second
  Inverse,  ///< the inverse of its argument
  PermuteAxes,  ///< permute_axes($p, $a): not a permutation; an axis list of a dot_general side (words.cpp)
};
struct AttrHelperSpec {
  rules::NativeId id;
  const char* outside = nullptr;
  /// Its value on concrete integer lists (permutations; nullopt: the helper does not apply, as the
  /// concrete one returns none), or null: not on permutations.
  std::optional<std::vector<int64_t>> (*on_lists)(std::span<const std::vector<int64_t>> args) = nullptr;
  /// Its value on per-axis integers (mathematical integers), or null: not on per-axis attributes.
  std::vector<smt::Expr> (*on_per_axis)(std::span<const std::vector<smt::Expr>> args) = nullptr;
  PermWord word = PermWord::Opaque;
};

/// A literal helper's element in dtype `d`, and where the helper applies (nullopt: everywhere).
struct LitMeaning {
  smt::Expr value;
  std::optional<smt::Expr> applies;
};
struct LitHelperSpec {
  rules::NativeId id;
  const char* outside = nullptr;
  /// Throws Outside (an unbound argument) or Infeasible (the helper does not apply to this dtype).
  LitMeaning (*meaning)(NativeEnv& env, const std::vector<std::string>& args, DType d) = nullptr;
};

/// The entry of native `id`, or null when it has none (then it is outside the fragment).
const PredicateSpec* predicate_spec(rules::NativeId id);
const AttrHelperSpec* attr_helper_spec(rules::NativeId id);
const LitHelperSpec* lit_helper_spec(rules::NativeId id);

/// The predicate called `name` in a rule, resolved through the rewriter's table to its id, and that
/// id's entry; null for no entry, and then `why` (when not null) says so ("outside the fragment: native
/// X has no all-shape spec"). An entry may still be `outside` (its reason).
const PredicateSpec* predicate_spec_named(const std::string& name, std::string* why = nullptr);
const AttrHelperSpec* attr_helper_spec_named(const std::string& name, std::string* why = nullptr);
const LitHelperSpec* lit_helper_spec_named(const std::string& name, std::string* why = nullptr);

/// "native X has no all-shape spec": the reason for a native without an entry.
std::string no_spec(rules::NativeId id);

}  // namespace ptir::allshape::detail
