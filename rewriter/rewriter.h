// ProgramRewriter: the only way patterns and passes change a Program.
//
// It keeps, next to the Program's own position lists, def links and use lists, a version stamp per
// InstId (for the drivers' failure caches), a change log the greedy driver drains to re-queue work, and
// a list of listeners that observe every mutation. Inspection is a thin, inlined layer over Program.
#pragma once
#include <cstdint>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ir/program.h"
#include "ir/verifier.h"
#include "rewriter/listener.h"

namespace ptir {

/// An instruction's operands read as ValueIds.
class OperandRange {
 public:
  OperandRange(const Use* b, uint32_t n) : b_(b), n_(n) {}
  uint32_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  ValueId operator[](uint32_t k) const { return b_[k].value; }
  struct iterator {
    using iterator_category = std::forward_iterator_tag;
    using value_type = ValueId;
    using difference_type = std::ptrdiff_t;
    using pointer = const ValueId*;
    using reference = ValueId;
    const Use* u;
    ValueId operator*() const { return u->value; }
    iterator& operator++() { ++u; return *this; }
    iterator operator++(int) { iterator t = *this; ++u; return t; }
    bool operator==(const iterator&) const = default;
  };
  iterator begin() const { return {b_}; }
  iterator end() const { return {b_ + n_}; }

 private:
  const Use* b_;
  uint32_t n_;
};

/// The instructions using a value, one entry per use (an instruction reading it twice appears twice).
class UserRange {
 public:
  UserRange(const Program& p, ValueId v) : p_(&p), first_(p.value(v).first_use) {}
  struct iterator {
    using iterator_category = std::forward_iterator_tag;
    using value_type = InstId;
    using difference_type = std::ptrdiff_t;
    using pointer = const InstId*;
    using reference = InstId;
    const Program* p;
    uint32_t u;
    InstId operator*() const { return p->use(u).owner; }
    iterator& operator++() { u = p->use(u).next; return *this; }
    iterator operator++(int) { iterator t = *this; ++*this; return t; }
    bool operator==(const iterator& o) const { return u == o.u; }
  };
  iterator begin() const { return {p_, first_}; }
  iterator end() const { return {p_, kNone}; }
  bool empty() const { return first_ == kNone; }

 private:
  const Program* p_;
  uint32_t first_;
};

/// What changed since the driver last looked: it re-queues exactly these.
struct ChangeLog {
  std::vector<InstId> touched;  ///< inserted or modified instructions
  std::vector<InstId> freed;    ///< producers that lost a use (may now be dead or single-use)
  void clear() { touched.clear(); freed.clear(); }
  bool empty() const { return touched.empty() && freed.empty(); }
};

/// Mutates a Program on behalf of patterns and passes and tells its listeners about every change.
class ProgramRewriter {
 public:
  explicit ProgramRewriter(Program& p);
  ProgramRewriter(const ProgramRewriter&) = delete;
  ProgramRewriter& operator=(const ProgramRewriter&) = delete;

  // ---- inspection ----
  const Program& program() const { return p_; }
  OpCode op(InstId i) const { return p_.op(i); }
  bool is_erased(InstId i) const { return p_.inst(i).erased; }
  BodyId body_of(InstId i) const { return p_.inst(i).body; }
  OperandRange operands(InstId i) const {
    return {p_.operand_uses(i).data(), p_.num_operands(i)};
  }
  uint32_t num_operands(InstId i) const { return p_.num_operands(i); }
  ValueId operand(InstId i, uint32_t k) const { return p_.operand(i, k); }
  uint32_t num_results(InstId i) const { return p_.num_results(i); }
  ValueId result(InstId i, uint32_t k = 0) const { return p_.result(i, k); }
  /// The single result of a one-result instruction (the seed design's `value_of`).
  ValueId value_of(InstId i) const { return p_.result(i, 0); }
  AttrSetId attrs_id(InstId i) const { return p_.inst(i).attrs; }
  const AttrSet& attrs(InstId i) const { return p_.attrs_of(i); }
  const TensorType& type_of(ValueId v) const { return p_.type_of(v); }
  TypeId type_id(ValueId v) const { return p_.type_id(v); }
  /// Defining instruction of a result value; kNone for parameters and literals.
  InstId inst_of(ValueId v) const { return p_.def_inst(v); }
  UserRange users_of(ValueId v) const { return {p_, v}; }
  bool has_uses(ValueId v) const { return p_.has_uses(v); }
  bool has_one_use(ValueId v) const { return p_.has_one_use(v); }
  /// Literal behind an inline literal or a `constant` result; nullptr otherwise.
  const Tensor* constant_of(ValueId v) const { return p_.constant_of(v); }
  /// True when every result of `i` is unused.
  bool results_unused(InstId i) const;
  /// True when `a` comes before `b`; both must be live and in the same body. Amortized O(1).
  bool is_before(InstId a, InstId b);

  // ---- versions ----
  /// Stamp of the last change to `i`: its operands, attributes or the use list of one of its results.
  /// Stamps come from one program-wide clock, so a newer stamp is larger than every older one.
  uint32_t version(InstId i) const { return i < versions_.size() ? versions_[i] : 0; }
  /// max(version(i), version of each operand's producer): changes whenever `i` or a producer changes.
  uint32_t match_key(InstId i) const;

  // ---- creation helpers (no IR change) ----
  TypeId intern_type(const TensorType& t) { return p_.intern_type(t); }
  /// An attribute set holding a malformed literal (data not the size its type and form need, or a type
  /// beyond ir/tensor.h's limits) is refused: an error, the empty set 0 returned.
  AttrSetId intern_attrs(const AttrSet& s);
  /// The shared value of an inline literal operand (interned by bits).
  /// A malformed tensor (as for intern_attrs) is refused: an error, kNone returned.
  ValueId literal_value(const Tensor& t);

  // ---- edits ----
  /// Creates an instruction before `at` (in at's body) and returns it. An erased or unknown `at`, or
  /// an operand, result type or attribute set id that does not exist, is an error (report_error, in
  /// every build): nothing is inserted and kNone is returned (the one-result form returns kNone too).
  InstId insert_before(InstId at, OpCode op, std::span<const ValueId> operands,
                       std::span<const TypeId> result_types, AttrSetId attrs = 0);
  /// One-result convenience form: returns the new instruction's result.
  ValueId insert_before(InstId at, OpCode op, std::initializer_list<ValueId> operands, TypeId result_type,
                        AttrSetId attrs = 0);
  /// Every use of `from` (operands, function and region results) reads `to` instead. Types must match.
  void replace_all_uses(ValueId from, ValueId to);
  /// Replaces each result of `i` by the matching value of `with`, then erases `i`.
  void replace_op(InstId i, std::span<const ValueId> with);
  void replace_op(InstId i, ValueId with) { replace_op(i, std::span<const ValueId>(&with, 1)); }
  /// Erases `i`; its results must be unused.
  void erase_inst(InstId i);
  /// Creates `constant value[lit]` before `at` and returns its result.
  ValueId materialize_constant(InstId at, const Tensor& lit);

  /// In-place update: start_update(i), then set_operand/set_attrs, then finalize_update or cancel_update.
  void start_update(InstId i);
  void set_operand(InstId i, uint32_t k, ValueId v);
  void set_attrs(InstId i, AttrSetId a);
  /// Whether start_update(i) is open (set_operand/set_attrs are allowed on i).
  bool in_update(InstId i) const;
  void finalize_update(InstId i);
  /// Restores the operands and attributes saved by start_update; listeners hear nothing.
  void cancel_update(InstId i);
  /// start_update, f(), finalize_update.
  template <typename F>
  void update_in_place(InstId i, F&& f) {
    start_update(i);
    f();
    finalize_update(i);
  }

  // ---- structural edits: functions and signatures (used by hoist-params) ----
  /// Appends a new function named `name` returning `result_types`, with the fast-math flags `fastmath`,
  /// empty until `append_inst` and `set_return` fill it. The caller picks a name no other function has.
  BodyId add_function(std::string name, std::span<const TypeId> result_types, FastMath fastmath = {});
  /// Appends a parameter to body `b`: its signature changes (nothing in a program calls a function, so
  /// the caller only keeps its own records consistent).
  ValueId add_param(BodyId b, TypeId type, std::string_view name = {});
  /// Creates an instruction at the end of body `b`, before its return if it has one. Ids are checked as
  /// for insert_before (an unknown body too): kNone and an error when one does not exist.
  InstId append_inst(BodyId b, OpCode op, std::span<const ValueId> operands, std::span<const TypeId> result_types,
                     AttrSetId attrs = 0);
  /// Creates the return of a body that has none yet.
  InstId set_return(BodyId b, std::span<const ValueId> results);
  /// Names (or renames) a value; the printer keeps names unique per body.
  /// Names value `v` (a value that does not exist is an error: report_error, nothing named). A name the
  /// parser could not read back is printed as a fresh `%tN` (ir/printer.cpp); one another value of v's
  /// body has makes the printed text fail to parse. Either way the text never says another program.
  void set_name(ValueId v, std::string_view name);

  // ---- match failures ----
  /// Tells listeners why the current pattern did not match; returns false for `return rw.notify...`.
  bool notify_match_failure(std::string_view reason) {
    if (!listeners_.empty()) emit_match_failure(reason);
    return false;
  }
  /// Lazy form: `make()` builds the reason only when someone listens.
  template <typename F>
    requires std::is_invocable_r_v<std::string, F>
  bool notify_match_failure(F&& make) {
    if (!listeners_.empty()) emit_match_failure(make());
    return false;
  }

  // ---- listeners and drivers ----
  /// Refused (an error) while a pattern's bracket is open: a pattern may not attach listeners.
  void add_listener(RewriteListener* l);
  void remove_listener(RewriteListener* l);
  /// Whether the innermost open driver bracket is a pattern's (a pattern's match_and_rewrite runs).
  bool in_pattern() const { return !brackets_.empty() && brackets_.back().kind == RewriteKind::Pattern; }
  bool has_listeners() const { return !listeners_.empty(); }
  /// Driver brackets, forwarded to the listeners. notify_pattern_begin returns a token that the matching
  /// notify_pattern_end must pass back; a bracket opened while a pattern's bracket is open (a pattern
  /// opening one of its own, e.g. to pass an edit off as another pattern's or as the driver's fold), or
  /// closed with another token (a pattern closing the driver's bracket around it), is refused: it is
  /// reported as an error (the driver stops) and not forwarded. Found by a red team's plugin that
  /// made `ptir opt --certify` credit its wrong edit to a proved rule.
  void notify_operation_begin(InstId i);
  void notify_operation_end(InstId i, bool changed, std::string_view outcome);
  uint64_t notify_pattern_begin(const RewriteSource& who, InstId root);
  void notify_pattern_end(const RewriteSource& who, InstId root, bool success, uint64_t token);
  /// When on, touched and freed instructions are recorded in change_log() for a driver to drain.
  void set_track_changes(bool on) { track_ = on; }
  ChangeLog& change_log() { return log_; }
  /// Number of mutations made so far (inserts, operand/attribute changes, erasures).
  uint64_t num_mutations() const { return mutations_; }
  /// Whether the Program was edited around this rewriter since its own last edit (Program::edit_count
  /// moved: a plugin's pattern or pass cast away the const of `program()` and edited the Program
  /// itself). Such an edit reaches no listener: the certificate, the expensive checks and the driver's
  /// worklist never saw it. It is reported as an error (the driver stops) and to the listeners as
  /// `notify_unseen_edit`. Checked at every edit the rewriter makes, at every driver bracket and after
  /// every pass (PassManager); a driver may call it at any time.
  void check_unseen_edits() {
    if (p_.edit_count() != seen_edits_) unseen_edit();
  }
  /// Identity of this rewriter for caches that outlive it (compare weak pointers, never addresses).
  std::weak_ptr<const void> identity() const { return token_; }

  // ---- errors ----
  /// Records the first error (a failed expensive check, a broken invariant); drivers stop when one is set.
  void report_error(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  bool has_error() const { return !error_.empty(); }
  /// Puts `context` in front of the recorded error (a driver naming the pattern that was running).
  void add_error_context(std::string_view context) {
    if (!error_.empty()) error_.insert(0, context);
  }
  const std::string& error() const { return error_; }
  /// verify_inst of an instruction a pattern built, memoized by signature for this rewriter's program
  /// (VerifyMemo): "" when well formed.
  std::string verify_built(InstId i) { return verify_memo_.verify(p_, i); }

 private:
  struct PendingUpdate {
    InstId inst;
    AttrSetId attrs;
    std::vector<ValueId> operands;
  };
  void grow();
  void bump(InstId i) {
    if (i >= versions_.size()) grow();
    versions_[i] = ++clock_;
  }
  void bump_producer(ValueId v) {
    InstId d = p_.def_inst(v);
    if (d != kNone) bump(d);
  }
  void touched(InstId i) {
    if (track_) log_.touched.push_back(i);
  }
  void freed(ValueId v);
  std::string creation_error(OpCode op, std::span<const ValueId> operands, std::span<const TypeId> result_types,
                             AttrSetId attrs) const;
  /// The bookkeeping of a new instruction `i` of body `b`: versions, order, change log, listeners.
  InstId created(BodyId b, InstId i, std::span<const ValueId> operands);
  void emit_match_failure(std::string_view reason);
  void invalidate_order(BodyId b);
  void unseen_edit();
  /// After an edit of its own: the Program's edit count the rewriter accounts for.
  void saw_own_edits() { seen_edits_ = p_.edit_count(); }

  Program& p_;
  PodArray<uint32_t> versions_;  ///< grown with realloc, as the Program's arrays (ir/pod_array.h)
  uint32_t clock_ = 0;
  uint64_t mutations_ = 0;
  uint64_t seen_edits_ = 0;  ///< Program::edit_count after the rewriter's own last edit
  bool track_ = false;
  ChangeLog log_;
  std::vector<RewriteListener*> listeners_;
  InstId current_root_ = kNone;
  std::vector<PendingUpdate> pending_;
  std::vector<InstId> scratch_;
  std::string error_;
  std::shared_ptr<const void> token_ = std::make_shared<char>(0);
  struct OpenBracket {
    RewriteKind kind;
    uint64_t token;
    size_t pending;  ///< open updates when the bracket opened
  };
  int notifying_ = 0;  ///< > 0 while listeners hear a bracket (they may not open one)
  std::vector<OpenBracket> brackets_;  ///< open driver brackets, innermost last
  uint64_t bracket_clock_ = 0;         ///< with bracket_key_, makes the tokens
  uint64_t bracket_key_ = 0;           ///< per rewriter, from its address and the time
  // Position numbering for is_before: order_[i] within its body, valid while body_order_ok_[body].
  std::vector<uint32_t> order_;
  std::vector<uint8_t> body_order_ok_;
  VerifyMemo verify_memo_;
};

}  // namespace ptir
