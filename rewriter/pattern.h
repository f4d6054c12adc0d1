// Rewrite patterns and pattern sets.
//
// A Pattern is metadata (roots, benefit, debug name, labels, bounded-recursion flag) plus one hook,
// match_and_rewrite. A PatternSet collects patterns; freezing it applies the enable/disable filters and
// builds an index from root op to patterns sorted by benefit, which is all a driver looks at.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ops.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// Expected benefit of a pattern: higher is tried first.
using PatternBenefit = uint16_t;

/// What a pattern needs of one operand of its root: a cheap necessary condition the frozen set's index
/// keys on (the pattern still checks everything itself when tried).
struct OperandNeed {
  enum class Kind : uint8_t { Any, Constant, Op, Splat };
  Kind kind = Kind::Any;
  OpCode op{};  ///< Kind::Op: the operand is the result of an instruction of this op
  /// Kind::Splat: a constant with at least one element whose first element has these bits in its dtype
  /// (nullopt: no element of that dtype can match), or with `nan`, any NaN of a float dtype.
  std::array<std::optional<uint64_t>, kNumDTypes> splat_bits{};
  bool nan = false;
};

/// Facts about one operand's type that the index can test (bits; type_facts() computes them).
enum TypeFact : uint8_t {
  kFactFloat = 1,       ///< the dtype is a float (is_float: f16, bf16, f32, f64)
  kFactInt = 2,         ///< the dtype is a signed or unsigned integer, not i1 (is_integer)
  kFactBool = 4,        ///< the dtype is i1
  kFactEmpty = 8,       ///< the type has no elements (some dim is 0)
  kFactResultType = 16, ///< the operand's type is the root's (first) result type
};
inline constexpr int kNumTypeFacts = 5;
/// The TypeFact bits of operand k of instruction i (0 if i has no operand k or no result).
uint8_t type_facts(const Program& p, InstId i, uint32_t k);

/// Necessary conditions on a root for the index: its operand count (-1: any), what operands 0 and 1
/// must be (for a commutative match, in one order or the other), whether they must be one value, and
/// the type facts operands 0 and 1 must have (in their own position; not for either_order patterns).
struct RootShape {
  int32_t num_operands = -1;
  std::array<OperandNeed, 2> operand{};
  bool either_order = false;
  bool same_operands = false;  ///< operands 0 and 1 are the same value (`sub(%x, %x)`)
  std::array<uint8_t, 2> operand_facts{};  ///< TypeFact bits operand k must all have (0: none)
};

/// A rewrite anchored at a root instruction.
class Pattern {
 public:
  /// `roots` must outlive the pattern (a static array); an empty span matches every op.
  Pattern(std::string_view debug_name, std::span<const OpCode> roots, PatternBenefit benefit = 1)
      : name_(debug_name), roots_(roots), benefit_(benefit) {}
  virtual ~Pattern() = default;

  /// On success returns true after changing the IR through `rw` (the root is replaced, erased or
  /// updated in place). On failure returns false and leaves the IR untouched. Never mutates before the
  /// match is certain.
  virtual bool match_and_rewrite(InstId root, ProgramRewriter& rw) const = 0;

  std::string_view debug_name() const { return name_; }
  std::span<const OpCode> roots() const { return roots_; }
  bool matches_any_op() const { return roots_.empty(); }
  PatternBenefit benefit() const { return benefit_; }
  const std::vector<std::string>& labels() const { return labels_; }
  bool has_label(std::string_view l) const;
  void add_label(std::string_view l) { labels_.emplace_back(l); }
  /// The pattern may legitimately apply to ops it created itself (e.g. composing a chain pairwise).
  /// Without this flag the greedy driver stops a self-recursion deeper than its configured bound.
  bool has_bounded_recursion() const { return bounded_recursion_; }
  /// Ops of the instructions a successful application may create, for the termination check
  /// (rewriter/rules/termination.h). Rules derive it from their result DAG; a C++ pattern that creates
  /// instructions should override this, since the default (nothing) keeps it out of every cycle.
  virtual std::span<const OpCode> produces() const { return {}; }
  /// What the root must look like for the pattern to match (a necessary condition, never sufficient).
  /// The frozen set skips the pattern on roots that fail it, without calling match_and_rewrite. The
  /// default (anything) keeps the pattern a candidate everywhere: a C++ pattern that overrides it must
  /// never reject a root its match_and_rewrite would rewrite.
  virtual RootShape root_shape() const { return {}; }
  /// The shape for roots of one op of roots() (the index asks per root op); by default root_shape().
  /// A pattern whose need depends on the root's op overrides this (merge_reduce_chain: operand 0 is a
  /// reduction of the root's own op).
  virtual RootShape root_shape_for(OpCode root) const { return root_shape(); }
  /// Where the pattern comes from, for listings: "C++" (the default) or "FILE:LINE" of a rule.
  std::string_view origin() const { return origin_.empty() ? std::string_view("C++") : std::string_view(origin_); }
  /// Name and origin are the pattern's provenance (listings, `--debug-rewrites`, the certificate of
  /// `ptir opt --certify`): once the set is frozen they are fixed, and a later set_origin or
  /// set_debug_name (a plugin's pattern renaming itself while it runs, to pass for a proved rule) changes
  /// nothing and is counted (renamed_after_freeze).
  void set_origin(std::string o) {
    if (frozen_) ++renames_;
    else origin_ = std::move(o);
  }
  /// Attempts to change the name or origin after the set was frozen (none took effect).
  int renamed_after_freeze() const { return renames_; }
  /// Called by PatternSet::freeze.
  void freeze_provenance() { frozen_ = true; }
  /// Whether the pattern belongs to a frozen set (one a driver runs); a pattern object made elsewhere
  /// (a plugin's dummy named like a library rule) is not, and the certificate never credits it.
  bool provenance_frozen() const { return frozen_; }

 protected:
  void set_has_bounded_recursion(bool on = true) { bounded_recursion_ = on; }
  void set_debug_name(std::string_view n) {
    if (frozen_) ++renames_;
    else name_ = n;
  }

 private:
  bool frozen_ = false;
  mutable int renames_ = 0;
  std::string name_;
  std::span<const OpCode> roots_;
  PatternBenefit benefit_;
  std::vector<std::string> labels_;
  bool bounded_recursion_ = false;
  std::string origin_;
};

/// Which patterns a frozen set keeps. A name or label in `disabled_*` always removes a pattern; when an
/// `enabled_*` list is non-empty, only patterns named (or labelled) in one of them are kept.
struct PatternFilter {
  std::vector<std::string> disabled_names{};
  std::vector<std::string> disabled_labels{};
  std::vector<std::string> enabled_names{};
  std::vector<std::string> enabled_labels{};
  /// True when pattern `p` passes the filter.
  bool keeps(const Pattern& p) const;
};

class FrozenPatternSet;

/// A growable list of patterns.
inline RewriteSource RewriteSource::of(const Pattern& p) { return {RewriteKind::Pattern, p.debug_name(), &p}; }

class PatternSet {
 public:
  /// Constructs a P from `args` and adds it.
  template <typename P, typename... Args>
  P& add(Args&&... args) {
    auto p = std::make_unique<P>(std::forward<Args>(args)...);
    P& ref = *p;
    patterns_.push_back(std::move(p));
    return ref;
  }
  /// Like add, and attaches `label` (for groups of patterns).
  template <typename P, typename... Args>
  P& add_with_label(std::string_view label, Args&&... args) {
    P& p = add<P>(std::forward<Args>(args)...);
    p.add_label(label);
    return p;
  }
  void add(std::unique_ptr<Pattern> p) { patterns_.push_back(std::move(p)); }
  /// Removes the patterns `drop` returns true for (before freezing: the prover keeps one pattern).
  template <typename F>
  void erase_if(F drop) {
    std::erase_if(patterns_, [&](const std::unique_ptr<Pattern>& p) { return drop(*p); });
  }
  size_t size() const { return patterns_.size(); }
  const std::vector<std::unique_ptr<Pattern>>& patterns() const { return patterns_; }
  /// Moves the patterns into an immutable, indexed set.
  FrozenPatternSet freeze(const PatternFilter& filter = {}) &&;

 private:
  std::vector<std::unique_ptr<Pattern>> patterns_;
};

/// An immutable pattern set indexed by root op, each list sorted by benefit (ties: insertion order).
/// Cheap to share: copies share the patterns, the lists and the index (a copy allocates nothing; it
/// used to copy the per-op lists, about 70 allocations for each pass a pipeline made).
class FrozenPatternSet {
 public:
  FrozenPatternSet() = default;
  /// Patterns that may match an instruction of `op`, best first (root-specific and match-any merged).
  std::span<const Pattern* const> patterns_for(OpCode op) const { return lists().by_root[static_cast<size_t>(op)]; }
  /// Of `patterns_for(p.op(i))`, the ones whose root_shape() admits `i`: bit j set for list entry j
  /// (entries from kIndexedPatterns on are always candidates and have no bit). One lookup per operand
  /// class: the class of operand 0 and of operand 1 (its defining op, constant, parameter, or absent).
  uint64_t candidates(const Program& p, InstId i) const;
  static constexpr size_t kIndexedPatterns = 64;
  /// All kept patterns in insertion order.
  std::span<const Pattern* const> all() const { return lists().all; }
  /// The position in all() of entry j of patterns_for(op) (computed once when the set is frozen: the
  /// greedy driver counts each pattern's rewrites by it and used to build a hash map per run).
  uint32_t position(OpCode op, size_t j) const { return lists().by_root_pos[static_cast<size_t>(op)][j]; }
  /// Names of patterns the filter removed (reported by `ptir opt --stats`).
  const std::vector<std::string>& filtered_out() const { return lists().filtered_out; }
  size_t size() const { return lists().all.size(); }
  /// Identity of the underlying patterns (shared by copies).
  std::weak_ptr<const void> identity() const { return owner_; }

 private:
  friend class PatternSet;
  std::shared_ptr<const std::vector<std::unique_ptr<Pattern>>> owner_;
  struct Lists {
    std::vector<const Pattern*> all;
    std::array<std::vector<const Pattern*>, kNumOps> by_root;
    std::array<std::vector<uint32_t>, kNumOps> by_root_pos;  ///< position() of each by_root entry
    std::vector<std::string> filtered_out;
  };
  static const Lists& no_lists();  ///< a default-constructed set's
  const Lists& lists() const { return lists_ ? *lists_ : no_lists(); }
  std::shared_ptr<const Lists> lists_;
  /// Per root op: for operand position k and operand class c, the bits of the patterns admitting c at k;
  /// and the bits of the patterns that match their two operands in either order.
  struct RootIndex {
    static constexpr int kClasses = kNumOps + 3;  ///< defining ops, then constant, parameter, absent
    std::array<std::array<uint64_t, kClasses>, 2> admits{};
    uint64_t either_order = 0;
    uint64_t same_operands = 0;  ///< patterns that need operands 0 and 1 to be one value
    /// The distinct splat needs of this root's patterns (at most kMaxSplats; a pattern with a further
    /// one is only a Constant need), and per position the patterns needing each of them.
    static constexpr size_t kMaxSplats = 16;
    std::vector<OperandNeed> splats;
    std::array<uint64_t, 2> needs_splat{};
    std::array<std::array<uint64_t, kMaxSplats>, 2> splat_need{};
    /// Per position and TypeFact bit, the patterns needing that fact of the operand there; and per
    /// position all of them, so that facts are computed only where a candidate needs one.
    std::array<std::array<uint64_t, kNumTypeFacts>, 2> needs_fact{};
    std::array<uint64_t, 2> fact_needy_at{};
  };
  std::shared_ptr<const std::array<std::unique_ptr<RootIndex>, kNumOps>> index_;
};

}  // namespace ptir
