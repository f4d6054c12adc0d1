// The one way to observe IR changes: a listener attached to a ProgramRewriter.
//
// Mutation hooks fire for every change made through the rewriter; the pattern/operation brackets are
// emitted by drivers (greedy driver, CSE, DCE) around each unit of work. Debug logging, expensive checks
// and statistics are all listeners; with none attached the rewriter only tests an empty vector.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "ir/program.h"

namespace ptir {

class Pattern;

/// What made a rewrite, by provenance rather than by name (a user rule may be called "fold"): a
/// pattern, identified by the object itself, or one of the drivers' built-in hooks.
enum class RewriteKind : uint8_t {
  Pattern,  ///< a Pattern's match_and_rewrite (`pattern` is set)
  Fold,     ///< the greedy driver's constant folding (interpreter, fold hooks)
  Cse,      ///< common subexpression elimination
  Dce,      ///< dead code elimination
};

struct RewriteSource {
  RewriteKind kind = RewriteKind::Pattern;
  std::string_view name;             ///< the pattern's debug name, or "fold" / "cse" / "dce"
  const Pattern* pattern = nullptr;  ///< the pattern (kind == Pattern), else null

  static RewriteSource of(const Pattern& p);  ///< defined in rewriter/pattern.h
  static RewriteSource fold() { return {RewriteKind::Fold, "fold", nullptr}; }
  static RewriteSource cse() { return {RewriteKind::Cse, "cse", nullptr}; }
  static RewriteSource dce() { return {RewriteKind::Dce, "dce", nullptr}; }
};

/// Observer of a ProgramRewriter. Every hook has an empty default. Listeners observe; they never edit
/// the IR (the rewriter reuses scratch state while it notifies).
class RewriteListener {
 public:
  virtual ~RewriteListener() = default;

  // ---- mutations (called by ProgramRewriter) ----
  /// `i` was just created (its operands, attributes and result types are final).
  virtual void notify_inserted(InstId i) {}
  /// `i` is about to be changed in place (start_update, or a use about to be redirected by
  /// replace_all_uses); its operands and attributes are still the old ones. May fire more than once
  /// per change; a notify_modified follows unless the update is cancelled.
  virtual void notify_before_modify(InstId i) {}
  /// `i` was just changed in place: an operand (also through replace_all_uses) or its attributes.
  virtual void notify_modified(InstId i) {}
  /// Every result of `i` is about to be replaced by `with` (one value per result); `i` is erased next.
  virtual void notify_replaced(InstId i, std::span<const ValueId> with) {}
  /// `i` is about to be erased; its operands are still readable.
  virtual void notify_erased(InstId i) {}
  /// A pattern explained why it did not match `root`.
  virtual void notify_match_failure(InstId root, std::string_view reason) {}
  /// The Program was edited around the rewriter (ProgramRewriter::check_unseen_edits): what changed is
  /// not known, only that something did. Heard inside a bracket when found there.
  virtual void notify_unseen_edit() {}

  // ---- brackets (called by drivers) ----
  /// A driver starts processing `i` (one worklist pop).
  virtual void notify_operation_begin(InstId i) {}
  /// The driver is done with `i`; `outcome` is a short phrase ("pattern matched", "folded", ...).
  virtual void notify_operation_end(InstId i, bool changed, std::string_view outcome) {}
  /// A rewrite (a pattern, or the built-in fold / CSE / DCE: `who.kind` says which) is about to be
  /// attempted on `root`.
  virtual void notify_pattern_begin(const RewriteSource& who, InstId root) {}
  /// The attempt finished; `success` is what the rewrite reported.
  virtual void notify_pattern_end(const RewriteSource& who, InstId root, bool success) {}
};

}  // namespace ptir
