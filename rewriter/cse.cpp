// CSE with one open-addressing table per body.
#include "rewriter/cse.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace ptir {
namespace {


bool cse_candidate(const Program& p, InstId i) {
  OpCode op = p.op(i);
  return op != OpCode::Return && has_trait(op, Pure) && !has_trait(op, Effect) && p.num_results(i) > 0;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/// The attributes of an op are a set of names: the order they were written in is kept for printing and
/// carries no meaning (docs/text-format.md), but two orders are two interned sets. Each set is mapped to
/// one representative of the sets equal to it up to order, computed once per distinct set and sweep;
/// hash and equality read the representative.
class AttrClasses {
 public:
  explicit AttrClasses(const Program& p) : p_(p), rep_(p.num_attr_sets(), kUnset) {}
  AttrSetId rep(AttrSetId id) {
    if (id >= rep_.size()) rep_.resize(id + 1, kUnset);  // sets interned during the sweep
    if (rep_[id] == kUnset) rep_[id] = compute(id);
    return rep_[id];
  }

 private:
  static constexpr AttrSetId kUnset = ~AttrSetId{0};
  static std::vector<const Attr*> sorted(const AttrSet& s) {
    std::vector<const Attr*> v;
    for (const Attr& a : s.attrs) v.push_back(&a);
    std::sort(v.begin(), v.end(), [](const Attr* a, const Attr* b) { return a->name < b->name; });
    return v;
  }
  AttrSetId compute(AttrSetId id) {
    const AttrSet& s = p_.attrs(id);
    if (s.attrs.size() < 2) return id;  // one order only
    const std::vector<const Attr*> mine = sorted(s);
    // Keyed by names and values (equal sets, equal keys), so a bucket holds sets that are almost surely
    // equal: thousands of distinct sets with the same names (custom_call id[k]) stay linear.
    uint64_t h = s.attrs.size();
    for (const Attr* a : mine) {
      AttrSet one;
      one.attrs.push_back(*a);
      h = mix(h, hash_value(one));
    }
    for (AttrSetId other : by_key_[h]) {
      const std::vector<const Attr*> theirs = sorted(p_.attrs(other));
      if (theirs.size() == mine.size() &&
          std::equal(mine.begin(), mine.end(), theirs.begin(), [](const Attr* a, const Attr* b) { return *a == *b; }))
        return other;
    }
    by_key_[h].push_back(id);
    return id;
  }
  const Program& p_;
  std::vector<AttrSetId> rep_;
  std::unordered_map<uint64_t, std::vector<AttrSetId>> by_key_;  ///< representatives by names and values
};

/// Structural hash: op, attribute set (up to order), operands (order-free for commutative binary ops),
/// result types.
uint64_t hash_inst(const Program& p, InstId i, AttrClasses& classes) {
  const Inst& in = p.inst(i);
  uint64_t h = mix(static_cast<uint64_t>(in.op), classes.rep(in.attrs));
  auto uses = p.operand_uses(i);
  if (uses.size() == 2 && has_trait(in.op, Commutative)) {
    ValueId a = std::min(uses[0].value, uses[1].value), b = std::max(uses[0].value, uses[1].value);
    h = mix(mix(h, a), b);
  } else {
    for (const Use& u : uses) h = mix(h, u.value);
  }
  for (uint32_t k = 0; k < in.num_results; ++k) h = mix(h, p.type_id(p.result(i, k)));
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

bool same_inst(const Program& p, InstId a, InstId b, AttrClasses& classes) {
  const Inst& x = p.inst(a);
  const Inst& y = p.inst(b);
  if (x.op != y.op || (x.attrs != y.attrs && classes.rep(x.attrs) != classes.rep(y.attrs)) || x.num_operands != y.num_operands || x.num_results != y.num_results)
    return false;
  for (uint32_t k = 0; k < x.num_results; ++k)
    if (p.type_id(p.result(a, k)) != p.type_id(p.result(b, k))) return false;
  auto ua = p.operand_uses(a), ub = p.operand_uses(b);
  bool same = true;
  for (size_t k = 0; k < ua.size() && same; ++k) same = ua[k].value == ub[k].value;
  if (same) return true;
  return ua.size() == 2 && has_trait(x.op, Commutative) && ua[0].value == ub[1].value && ua[1].value == ub[0].value;
}

/// Open addressing, linear probing. A slot holds (hash tag << 32 | InstId), so a probe that meets another
/// instruction rarely has to read it.
class CseTable {
 public:
  void reset(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    slots_.assign(cap, kEmpty);
    mask_ = cap - 1;
  }
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  /// The earlier equal instruction, or kNone after recording `i` (whose hash is `h`).
  InstId find_or_insert(const Program& p, InstId i, uint64_t h, AttrClasses& classes) {
    uint64_t tag = h >> 32;
    for (size_t s = h & mask_;; s = (s + 1) & mask_) {
      uint64_t e = slots_[s];
      if (e == kEmpty) {
        slots_[s] = tag << 32 | i;
        return kNone;
      }
      if (e >> 32 == tag && same_inst(p, static_cast<InstId>(e), i, classes)) return static_cast<InstId>(e);
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
};

/// How far ahead of the current instruction the table slot is prefetched, on bodies whose table
/// outgrows the L2 cache: there the slot load is the one random access per instruction. Smaller
/// bodies skip it (hashing twice costs more than it saves).
constexpr int kPrefetchDistance = 64;
constexpr size_t kPrefetchMinInsts = size_t{1} << 16;

/// An instruction with an operand nobody else reads cannot equal another instruction (a twin reads
/// the same operands). Most values of a dataflow graph have one use, so most instructions skip the
/// table — which keeps it small and cache-resident.
bool may_have_twin(const Program& p, InstId i) {
  for (const Use& u : p.operand_uses(i))
    if (p.has_one_use(u.value)) return false;
  return true;
}

/// One CSE sweep over the program, body by body, in order.
class CseSweep {
 public:
  explicit CseSweep(ProgramRewriter& rw)
      : rw_(rw), p_(rw.program()), classes_(p_), state_(p_.num_inst_slots(), kUnseen) {}

  int64_t run() {
    for (BodyId b = 0; b < p_.num_bodies(); ++b) run_body(b);
    return merged_;
  }

 private:
  enum : uint8_t { kUnseen, kSkipped, kInTable };

  bool wants_table(InstId i) const { return cse_candidate(p_, i) && may_have_twin(p_, i); }

  void run_body(BodyId b) {
    table_.reset(p_.body(b).num_insts);
    InstId ahead = p_.body(b).num_insts >= kPrefetchMinInsts ? p_.body(b).first : kNone;
    for (int k = 0; k < kPrefetchDistance && ahead != kNone; ++k) ahead = p_.inst(ahead).next;
    for (InstId i = p_.body(b).first; i != kNone;) {
      InstId next = p_.inst(i).next;
      if (ahead != kNone) {
        if (wants_table(ahead)) table_.prefetch(hash_inst(p_, ahead, classes_));
        ahead = p_.inst(ahead).next;
      }
      visit(i);
      i = next;
    }
  }

  void visit(InstId i) {
    if (!wants_table(i)) {
      state_[i] = kSkipped;
      return;
    }
    InstId e = table_.find_or_insert(p_, i, hash_inst(p_, i, classes_), classes_);
    if (e == kNone) {
      state_[i] = kInTable;
      return;
    }
    // i's results get e's users. A result of e that had a single use had it skipped (its only reader
    // could not have a twin then); once i's users read it too, that reader gets its turn.
    with_.clear();
    reconsider_.clear();
    for (uint32_t k = 0; k < p_.num_results(e); ++k) {
      ValueId v = p_.result(e, k);
      with_.push_back(v);
      if (p_.has_one_use(v)) reconsider_.push_back(p_.use(p_.value(v).first_use).owner);
    }
    bool log = rw_.has_listeners();
    const uint64_t bracket1 = log ? rw_.notify_pattern_begin(RewriteSource::cse(), i) : 0;
    rw_.replace_op(i, with_);
    if (log) rw_.notify_pattern_end(RewriteSource::cse(), i, true, bracket1);
    ++merged_;
    for (InstId u : reconsider_)
      if (u < state_.size() && state_[u] == kSkipped && wants_table(u)) {
        table_.find_or_insert(p_, u, hash_inst(p_, u, classes_), classes_);
        state_[u] = kInTable;
      }
  }

  ProgramRewriter& rw_;
  const Program& p_;
  AttrClasses classes_;
  CseTable table_;
  std::vector<uint8_t> state_;  ///< by InstId; instructions created during the sweep are never visited
  std::vector<ValueId> with_;
  std::vector<InstId> reconsider_;
  int64_t merged_ = 0;
};

}  // namespace

int64_t eliminate_common_subexpressions(ProgramRewriter& rw) { return CseSweep(rw).run(); }

PassResult CSEPass::run(ProgramRewriter& rw) {
  int64_t n = eliminate_common_subexpressions(rw);
  add_statistic("num-cse'd", n, "instructions merged into an earlier identical one");
  return PassResult{.changed = n > 0, .fixpoint = true};
}

}  // namespace ptir
