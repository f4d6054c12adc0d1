// ProgramRewriter: versioned, listened-to edits of a Program.
#include "rewriter/rewriter.h"

#include <chrono>

#include <algorithm>
#include <cassert>

namespace ptir {

ProgramRewriter::ProgramRewriter(Program& p) : p_(p), seen_edits_(p.edit_count()) { grow(); }

void ProgramRewriter::unseen_edit() {
  seen_edits_ = p_.edit_count();
  report_error("the program was edited around the ProgramRewriter (through the Program itself, e.g. a plugin that "
               "cast away the const of rw.program()): no listener, certificate or expensive check saw the edit");
  for (RewriteListener* l : listeners_) l->notify_unseen_edit();
}

void ProgramRewriter::grow() {
  size_t n = p_.num_inst_slots();
  if (versions_.size() < n) versions_.resize(std::max(n, versions_.size() + versions_.size() / 2), 0);
  if (body_order_ok_.size() < p_.num_bodies()) body_order_ok_.resize(p_.num_bodies(), 0);
}

bool ProgramRewriter::results_unused(InstId i) const {
  for (uint32_t k = 0, n = p_.num_results(i); k < n; ++k)
    if (p_.has_uses(p_.result(i, k))) return false;
  return true;
}

uint32_t ProgramRewriter::match_key(InstId i) const {
  uint32_t key = version(i);
  for (const Use& u : p_.operand_uses(i)) {
    InstId d = p_.def_inst(u.value);
    if (d != kNone) key = std::max(key, version(d));
  }
  return key;
}

void ProgramRewriter::invalidate_order(BodyId b) {
  if (b < body_order_ok_.size()) body_order_ok_[b] = 0;
}

bool ProgramRewriter::is_before(InstId a, InstId b) {
  BodyId body = p_.inst(a).body;
  assert(body == p_.inst(b).body);
  grow();
  if (!body_order_ok_[body]) {
    if (order_.size() < p_.num_inst_slots()) order_.resize(p_.num_inst_slots());
    uint32_t n = 0;
    p_.for_each_inst(body, [&](InstId i) { order_[i] = n++; });
    body_order_ok_[body] = 1;
  }
  return order_[a] < order_[b];
}

void ProgramRewriter::set_name(ValueId v, std::string_view name) {
  // Checked in every build (a plugin's pattern calls it): an unknown id wrote past the value table.
  check_unseen_edits();
  if (v >= p_.num_values()) return report_error("set_name: no such value (nothing renamed)");
  p_.set_name(v, name);
  saw_own_edits();
}

void ProgramRewriter::freed(ValueId v) {
  InstId d = p_.def_inst(v);
  if (d == kNone) return;
  bump(d);
  if (track_) log_.freed.push_back(d);
}

/// "" when an instruction with these ids can be created, else what is wrong. Checked in every build:
/// a plugin's pattern calls insert_before/append_inst, and a stale id crashed inside create_inst.
std::string ProgramRewriter::creation_error(OpCode op, std::span<const ValueId> operands,
                                            std::span<const TypeId> result_types, AttrSetId attrs) const {
  if (static_cast<int>(op) < 0 || static_cast<int>(op) >= kNumOps) return "no such op";
  for (ValueId v : operands)
    if (v >= p_.num_values()) return "no such operand value";
  for (TypeId t : result_types)
    if (t >= p_.num_types()) return "no such result type";
  if (attrs >= p_.num_attr_sets()) return "no such attribute set";
  return {};
}

InstId ProgramRewriter::insert_before(InstId at, OpCode op, std::span<const ValueId> operands,
                                      std::span<const TypeId> result_types, AttrSetId attrs) {
  check_unseen_edits();
  if (at >= p_.num_inst_slots() || p_.inst(at).erased) {
    report_error("insert_before: no such instruction to insert before (nothing inserted)");
    return kNone;
  }
  if (std::string e = creation_error(op, operands, result_types, attrs); !e.empty()) {
    report_error("insert_before: " + e + " (nothing inserted)");
    return kNone;
  }
  BodyId b = p_.inst(at).body;
  return created(b, p_.create_inst(b, op, operands, attrs, result_types, at), operands);
}

InstId ProgramRewriter::created(BodyId b, InstId i, std::span<const ValueId> operands) {
  saw_own_edits();
  grow();
  invalidate_order(b);
  ++mutations_;
  bump(i);
  for (ValueId v : operands) bump_producer(v);
  touched(i);
  for (RewriteListener* l : listeners_) l->notify_inserted(i);
  return i;
}

BodyId ProgramRewriter::add_function(std::string name, std::span<const TypeId> result_types, FastMath fastmath) {
  // A pattern changes the instructions it matched, never the program's signature (no listener hears a
  // new function or parameter).
  if (in_pattern()) {
    report_error("add_function inside a pattern's rewrite (nothing added)");
    return kNone;
  }
  check_unseen_edits();
  const BodyId b = p_.add_body(std::move(name), /*is_region=*/false);
  saw_own_edits();
  p_.body(b).result_types.assign(result_types.begin(), result_types.end());
  p_.body(b).fastmath = fastmath;
  grow();
  ++mutations_;
  return b;
}

ValueId ProgramRewriter::add_param(BodyId b, TypeId type, std::string_view name) {
  if (in_pattern()) {
    report_error("add_param inside a pattern's rewrite (nothing added)");
    return kNone;
  }
  if (b >= p_.num_bodies()) {
    report_error("add_param: no such body (nothing added)");
    return kNone;
  }
  ++mutations_;
  // A name another value of the body has is dropped (the printer then gives a fresh %tN): the printed
  // program must parse again (a plugin that added a second `%x` printed text that did not).
  if (!name.empty()) {
    bool taken = false;
    for (ValueId v : p_.body(b).params) taken = taken || p_.name(v) == name;
    if (!taken)
      p_.for_each_inst(b, [&](InstId i) {
        for (uint32_t k = 0; k < p_.num_results(i); ++k) taken = taken || p_.name(p_.result(i, k)) == name;
      });
    if (taken) name = {};
  }
  check_unseen_edits();
  const ValueId v = p_.add_param(b, type, name);
  saw_own_edits();
  return v;
}

InstId ProgramRewriter::append_inst(BodyId b, OpCode op, std::span<const ValueId> operands,
                                    std::span<const TypeId> result_types, AttrSetId attrs) {
  check_unseen_edits();
  if (b >= p_.num_bodies()) {
    report_error("append_inst: no such body (nothing inserted)");
    return kNone;
  }
  if (std::string e = creation_error(op, operands, result_types, attrs); !e.empty()) {
    report_error("append_inst: " + e + " (nothing inserted)");
    return kNone;
  }
  return created(b, p_.create_inst(b, op, operands, attrs, result_types, kNone), operands);
}

InstId ProgramRewriter::set_return(BodyId b, std::span<const ValueId> results) {
  assert(p_.terminator(b) == kNone && "set_return: the body already has a return");
  return append_inst(b, OpCode::Return, results, {}, 0);
}

ValueId ProgramRewriter::insert_before(InstId at, OpCode op, std::initializer_list<ValueId> operands,
                                       TypeId result_type, AttrSetId attrs) {
  InstId i = insert_before(at, op, std::span<const ValueId>(operands.begin(), operands.size()),
                           std::span<const TypeId>(&result_type, 1), attrs);
  return i == kNone ? kNone : p_.result(i, 0);  // kNone: refused (reported)
}

void ProgramRewriter::replace_all_uses(ValueId from, ValueId to) {
  // Checked in every build (a plugin's pattern calls it): ids that exist and one type on both sides.
  if (from >= p_.num_values() || to >= p_.num_values()) return report_error("replace_all_uses: no such value (nothing replaced)");
  check_unseen_edits();
  if (from == to || !p_.has_uses(from)) return;
  if (p_.type_id(from) != p_.type_id(to)) return report_error("replace_all_uses: the types differ (nothing replaced)");
  // Listeners only observe (they never edit), so one scratch vector serves every call.
  scratch_.clear();
  for (InstId u : users_of(from)) scratch_.push_back(u);
  std::sort(scratch_.begin(), scratch_.end());
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
  for (InstId u : scratch_)
    for (RewriteListener* l : listeners_) l->notify_before_modify(u);
  p_.replace_all_uses(from, to);
  saw_own_edits();
  ++mutations_;
  freed(from);
  bump_producer(to);
  for (InstId u : scratch_) {
    bump(u);
    touched(u);
    for (RewriteListener* l : listeners_) l->notify_modified(u);
  }
}

void ProgramRewriter::replace_op(InstId i, std::span<const ValueId> with) {
  if (i >= p_.num_inst_slots() || p_.inst(i).erased) return report_error("replace_op: no such instruction (nothing replaced)");
  if (with.size() != p_.num_results(i))
    return report_error("replace_op: " + std::to_string(with.size()) + " values for an instruction with " +
                        std::to_string(p_.num_results(i)) + " results (nothing replaced)");
  for (ValueId v : with)
    if (v >= p_.num_values()) return report_error("replace_op: no such value (nothing replaced)");
  for (RewriteListener* l : listeners_) l->notify_replaced(i, with);
  for (uint32_t k = 0; k < with.size(); ++k) replace_all_uses(p_.result(i, k), with[k]);
  erase_inst(i);
}

void ProgramRewriter::erase_inst(InstId i) {
  // Checked in every build (a plugin's pattern calls it): erasing an instruction twice or one whose
  // results are still read would leave dangling uses.
  if (i >= p_.num_inst_slots() || p_.inst(i).erased) return report_error("erase_inst: no such instruction (nothing erased)");
  if (!results_unused(i)) return report_error("erase_inst: the instruction's results are still used (nothing erased)");
  check_unseen_edits();
  for (RewriteListener* l : listeners_) l->notify_erased(i);
  // Operand producers lose a use: they may now be dead or single-use.
  uint32_t n = p_.num_operands(i);
  for (uint32_t k = 0; k < n; ++k) freed(p_.operand(i, k));
  invalidate_order(p_.inst(i).body);
  p_.erase_inst(i);
  saw_own_edits();
  ++mutations_;
  bump(i);
}

namespace {
/// "" when `t` can enter the program: a type within ir/tensor.h's limits and exactly the bytes its form
/// needs. Checked in every build (a plugin's pattern calls the creation helpers): a default Tensor or
/// one with too few bytes crashed the interning hash, and the printer read past its data.
std::string malformed_literal(const Tensor& t) {
  if (static_cast<int>(t.type.dtype) < 0 || static_cast<int>(t.type.dtype) >= kNumDTypes) return "a literal of no dtype";
  if (!within_type_limits(t.type)) return "a literal whose type is beyond PTIR's limits";
  if (!t.well_formed()) return "a malformed literal (its data is not the size its type and form need)";
  return {};
}
}  // namespace

AttrSetId ProgramRewriter::intern_attrs(const AttrSet& s) {
  for (const Attr& a : s.attrs)
    if (a.value.kind == AttrKind::Literal)
      if (std::string e = malformed_literal(a.value.lit); !e.empty()) {
        report_error("intern_attrs: attribute '" + a.name + "' holds " + e + " (refused)");
        return 0;
      }
  return p_.intern_attrs(s);
}

ValueId ProgramRewriter::literal_value(const Tensor& t) {
  if (std::string e = malformed_literal(t); !e.empty()) {
    report_error("literal_value: " + e + " (refused)");
    return kNone;
  }
  return p_.literal_value(p_.intern_literal(t));
}

ValueId ProgramRewriter::materialize_constant(InstId at, const Tensor& lit) {
  // Checked in every build, as insert_before (a plugin's pattern calls it).
  if (at >= p_.num_inst_slots() || p_.inst(at).erased) {
    report_error("materialize_constant: no such instruction to insert before (nothing inserted)");
    return kNone;
  }
  if (std::string e = malformed_literal(lit); !e.empty()) {
    report_error("materialize_constant: " + e + " (nothing inserted)");
    return kNone;
  }
  AttrSet s;
  s.attrs.push_back(Attr{"value", AttrValue{AttrKind::Literal, {}, {}, lit}});
  AttrSetId a = p_.intern_attrs(s);
  TypeId t = p_.intern_type(lit.type);
  InstId i = insert_before(at, OpCode::Constant, {}, std::span<const TypeId>(&t, 1), a);
  return i == kNone ? kNone : p_.result(i, 0);
}

void ProgramRewriter::start_update(InstId i) {
  // Checked in every build: an erased instruction, or one already being updated (a nested start_update
  // on it made finalize_update close the inner one and leave an edit no listener heard).
  if (i >= p_.num_inst_slots() || p_.inst(i).erased) return report_error("start_update: no such instruction");
  if (in_update(i)) return report_error("start_update: the instruction is already being updated");
  for (RewriteListener* l : listeners_) l->notify_before_modify(i);
  PendingUpdate u{i, p_.inst(i).attrs, {}};
  for (ValueId v : operands(i)) u.operands.push_back(v);
  pending_.push_back(std::move(u));
}

// set_operand and set_attrs check their contract in every build, not by assert only: a plugin's pattern
// calls them, and an edit outside start_update/finalize_update is heard by no listener (the certificate
// and the expensive checks never see it), while an operand index out of range corrupted the use lists
// (a red team's plugins, 2026-12-07). A broken call changes nothing and records the error, which stops
// the driver.
bool ProgramRewriter::in_update(InstId i) const {
  return std::any_of(pending_.begin(), pending_.end(), [&](const PendingUpdate& u) { return u.inst == i; });
}

void ProgramRewriter::set_operand(InstId i, uint32_t k, ValueId v) {
  if (!in_update(i)) return report_error("set_operand outside start_update/finalize_update (the edit was not made)");
  if (k >= p_.num_operands(i))
    return report_error("set_operand: operand " + std::to_string(k) + " of an instruction with " +
                        std::to_string(p_.num_operands(i)) + " (the edit was not made)");
  if (v >= p_.num_values()) return report_error("set_operand: no such value (the edit was not made)");
  check_unseen_edits();
  p_.set_operand(i, k, v);
  saw_own_edits();
}

void ProgramRewriter::set_attrs(InstId i, AttrSetId a) {
  if (!in_update(i)) return report_error("set_attrs outside start_update/finalize_update (the edit was not made)");
  if (a >= p_.num_attr_sets()) return report_error("set_attrs: no such attribute set (the edit was not made)");
  check_unseen_edits();
  p_.set_attrs(i, a);
  saw_own_edits();
}

void ProgramRewriter::finalize_update(InstId i) {
  check_unseen_edits();
  auto it = std::find_if(pending_.rbegin(), pending_.rend(), [&](const PendingUpdate& u) { return u.inst == i; });
  if (it == pending_.rend()) return report_error("finalize_update without start_update");
  PendingUpdate u = std::move(*it);
  pending_.erase(std::next(it).base());
  bool changed = u.attrs != p_.inst(i).attrs;
  for (uint32_t k = 0; k < u.operands.size(); ++k) {
    ValueId now = p_.operand(i, k);
    if (now == u.operands[k]) continue;
    changed = true;
    freed(u.operands[k]);
    bump_producer(now);
  }
  if (!changed) return;  // an empty transaction is not a change
  ++mutations_;
  bump(i);
  touched(i);
  for (RewriteListener* l : listeners_) l->notify_modified(i);
}

void ProgramRewriter::cancel_update(InstId i) {
  auto it = std::find_if(pending_.rbegin(), pending_.rend(), [&](const PendingUpdate& u) { return u.inst == i; });
  if (it == pending_.rend()) return report_error("cancel_update without start_update");
  check_unseen_edits();
  for (uint32_t k = 0; k < it->operands.size(); ++k) p_.set_operand(i, k, it->operands[k]);
  p_.set_attrs(i, it->attrs);
  saw_own_edits();
  pending_.erase(std::next(it).base());
}

void ProgramRewriter::add_listener(RewriteListener* l) {
  // Not from inside a pattern: a listener a plugin's pattern attached could open driver brackets under
  // any name between the driver's own (a reviewer's scenario: its edit then counted as `fold`).
  if (in_pattern()) return report_error("add_listener inside a pattern's rewrite (not added)");
  listeners_.push_back(l);
}

void ProgramRewriter::remove_listener(RewriteListener* l) {
  if (in_pattern()) return report_error("remove_listener inside a pattern's rewrite (not removed)");
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

void ProgramRewriter::emit_match_failure(std::string_view reason) {
  for (RewriteListener* l : listeners_) l->notify_match_failure(current_root_, reason);
}

void ProgramRewriter::notify_operation_begin(InstId i) {
  ++notifying_;
  for (RewriteListener* l : listeners_) l->notify_operation_begin(i);
  --notifying_;
}

void ProgramRewriter::notify_operation_end(InstId i, bool changed, std::string_view outcome) {
  ++notifying_;
  for (RewriteListener* l : listeners_) l->notify_operation_end(i, changed, outcome);
  --notifying_;
}

uint64_t ProgramRewriter::notify_pattern_begin(const RewriteSource& who, InstId root) {
  if (in_pattern() || notifying_ > 0) {
    report_error("a rewrite bracket for '" + std::string(who.name) +
                 "' was opened while a pattern ran (a pattern may not open brackets; nothing was forwarded)");
    return 0;
  }
  check_unseen_edits();
  if (bracket_key_ == 0)
    bracket_key_ = (reinterpret_cast<uintptr_t>(this) * 0x9E3779B97F4A7C15ULL) ^
                   static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^ 1;
  uint64_t token = (++bracket_clock_ * 0xBF58476D1CE4E5B9ULL) ^ bracket_key_;
  if (token == 0) token = 1;
  brackets_.push_back({who.kind, token, pending_.size()});
  current_root_ = root;
  ++notifying_;
  for (RewriteListener* l : listeners_) l->notify_pattern_begin(who, root);
  --notifying_;
  return token;
}

void ProgramRewriter::notify_pattern_end(const RewriteSource& who, InstId root, bool success, uint64_t token) {
  if (brackets_.empty() || token == 0 || brackets_.back().token != token) {
    report_error("a rewrite bracket for '" + std::string(who.name) +
                 "' was closed by someone other than the driver that opened it (nothing was forwarded)");
    return;
  }
  // An update left open by the rewrite (start_update without finalize_update): its edits were heard by
  // no listener. The driver stops on the error.
  if (pending_.size() != brackets_.back().pending)
    report_error("'" + std::string(who.name) + "' left an update open (start_update without finalize_update)");
  check_unseen_edits();  // heard inside the bracket: the listeners count it against this rewrite
  brackets_.pop_back();
  ++notifying_;
  for (RewriteListener* l : listeners_) l->notify_pattern_end(who, root, success);
  --notifying_;
  current_root_ = kNone;
}

}  // namespace ptir
