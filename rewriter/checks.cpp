// ExpensiveChecks: incremental fingerprints, local verification, replay of each rewrite at its boundary.
#include "rewriter/checks.h"

#include <algorithm>

#include "ir/verifier.h"
#include "rewriter/describe.h"

namespace ptir {
namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

std::string body_label(const Program& p, BodyId b) {
  return (p.body(b).is_region ? "^" : "@") + p.body(b).name;
}

constexpr uint64_t kKeyStep = uint64_t{1} << 32;
constexpr uint64_t kKeyBase = uint64_t{1} << 62;

}  // namespace

ExpensiveChecks::ExpensiveChecks(ProgramRewriter& rw, CheckOptions opts) : rw_(rw), opts_(std::move(opts)) {
  replay_.random_trials = opts_.random_trials;
  replay_.edge_trials = opts_.edge_trials;
  replay_.seed = opts_.seed;
  replay_.interp = opts_.interp;
  if (!replay_.interp.index_maps) replay_.interp.index_maps = &index_maps_;
  replay_.cone_depth = opts_.cone_depth;
  replay_.window = opts_.window;
  inputs_.memo = opts_.replay_memo;
  const Program& p = rw_.program();
  hash_.assign(p.num_inst_slots(), 0);
  key_.assign(p.num_inst_slots(), 0);
  for (BodyId b = 0; b < p.num_bodies(); ++b) {
    uint64_t k = kKeyBase;
    p.for_each_inst(b, [&](InstId i) {
      hash_[i] = inst_hash(i);
      total_ += hash_[i];
      key_[i] = k;
      k += kKeyStep;
    });
  }
}

ExpensiveChecks::~ExpensiveChecks() = default;

void ExpensiveChecks::fail(std::string message) {
  if (!report_.empty()) return;
  report_ = "expensive checks: " + message;
  rw_.report_error(report_);
}

uint64_t ExpensiveChecks::inst_hash(InstId i) const {
  const Program& p = rw_.program();
  const Inst& in = p.inst(i);
  uint64_t h = mix(0x5eed, i);
  h = mix(h, uint64_t{in.body} << 1 | (in.erased ? 1 : 0));
  h = mix(h, static_cast<uint64_t>(in.op) << 32 | in.attrs);
  for (const Use& u : p.operand_uses(i)) h = mix(h, u.value);
  for (uint32_t k = 0; k < in.num_results; ++k) h = mix(h, p.type_id(p.result(i, k)));
  return h | 1;  // never 0, so an erased slot (0) differs from every live one
}

void ExpensiveChecks::rehash(InstId i) {
  if (i >= hash_.size()) hash_.resize(rw_.program().num_inst_slots(), 0);
  total_ -= hash_[i];
  hash_[i] = rw_.program().inst(i).erased ? 0 : inst_hash(i);
  total_ += hash_[i];
}

void ExpensiveChecks::gather_neighbourhood(InstId root) {
  const Program& p = rw_.program();
  near_.assign(1, root);
  for (size_t at = 0; at < near_.size() && at < 3 && near_.size() < 12; ++at)  // root + two levels of producers
    for (uint32_t k = 0; k < p.num_operands(near_[at]) && near_.size() < 12; ++k)
      if (InstId d = p.def_inst(p.operand(near_[at], k)); d != kNone) near_.push_back(d);
  for (uint32_t k = 0; k < p.num_results(root); ++k)
    for (InstId u : UserRange(p, p.result(root, k))) {
      if (near_.size() >= 20) break;
      near_.push_back(u);
    }
}

uint64_t ExpensiveChecks::local_fingerprint() const {
  uint64_t h = 0;
  for (InstId i : near_) h = mix(h, inst_hash(i));
  return h;
}

void ExpensiveChecks::renumber(BodyId b) {
  const Program& p = rw_.program();
  if (key_.size() < p.num_inst_slots()) key_.resize(p.num_inst_slots(), 0);
  uint64_t k = kKeyBase;
  p.for_each_inst(b, [&](InstId i) {
    key_[i] = k;
    k += kKeyStep;
  });
}

void ExpensiveChecks::assign_key(InstId i) {
  const Program& p = rw_.program();
  if (key_.size() < p.num_inst_slots()) key_.resize(p.num_inst_slots(), 0);
  const Inst& in = p.inst(i);
  uint64_t lo = in.prev == kNone ? 0 : key_[in.prev];
  uint64_t hi = in.next == kNone ? 0 : key_[in.next];
  if ((in.prev != kNone && lo == 0) || (in.next != kNone && hi == 0)) return renumber(in.body);
  if (in.prev == kNone && in.next == kNone) key_[i] = kKeyBase;
  else if (in.prev == kNone) hi > kKeyStep ? void(key_[i] = hi - kKeyStep) : renumber(in.body);
  else if (in.next == kNone) key_[i] = lo + kKeyStep;
  else if (hi > lo + 1) key_[i] = lo + (hi - lo) / 2;
  else renumber(in.body);
}

bool ExpensiveChecks::before(InstId a, InstId b) {
  if (a >= key_.size() || b >= key_.size() || key_[a] == 0 || key_[b] == 0) renumber(rw_.program().inst(b).body);
  return key_[a] < key_[b];
}

/// Every operand of a live instruction is a literal, a parameter of its body, or a result of a live
/// instruction earlier in its body: the dominance rule of verify_program, checked for one instruction.
void ExpensiveChecks::check_dominance(InstId i) {
  const Program& p = rw_.program();
  if (p.inst(i).erased) return;
  BodyId b = p.inst(i).body;
  for (uint32_t k = 0; k < p.num_operands(i) && !failed(); ++k) {
    ValueId v = p.operand(i, k);
    const ValueInfo& vi = p.value(v);
    std::string why;
    if (vi.kind == ValueKind::Param && vi.def != b) why = "is a parameter of another body";
    if (vi.kind == ValueKind::Result) {
      const Inst& d = p.inst(vi.def);
      if (d.erased) why = "is a result of an erased instruction";
      else if (d.body != b) why = "is defined in another body";
      else if (!before(vi.def, i)) why = "is used before its definition";
    }
    if (!why.empty())
      fail("the IR does not verify after '" + pattern_ + "': operand " + std::to_string(k) + " of " +
           describe_inst(p, i) + " " + why);
  }
}

void ExpensiveChecks::verify_one(InstId i, const char* what) {
  if (!opts_.verify || failed()) return;
  std::string err = verify_inst(rw_.program(), i);
  if (!err.empty())
    fail("instruction " + std::string(what) + " by '" + pattern_ + "' does not verify: " + err + "\n  " +
         describe_inst(rw_.program(), i));
}

void ExpensiveChecks::notify_inserted(InstId i) {
  rehash(i);
  assign_key(i);
  if (in_rewrite_) delta_.inserted.push_back(i);
  verify_one(i, "inserted");
}

void ExpensiveChecks::notify_before_modify(InstId i) {
  if (!in_rewrite_) return;
  if (i >= snapped_.size()) snapped_.resize(std::max<size_t>({i + 1, 2 * snapped_.size(), 64}), 0);
  if (snapped_[i] == snap_epoch_) return;
  snapped_[i] = snap_epoch_;
  const Program& p = rw_.program();
  InstSnapshot s{i, {}, p.inst(i).attrs};
  for (uint32_t k = 0; k < p.num_operands(i); ++k) s.operands.push_back(p.operand(i, k));
  delta_.modified.push_back(std::move(s));
}

void ExpensiveChecks::notify_modified(InstId i) {
  rehash(i);
  verify_one(i, "modified");
}

void ExpensiveChecks::notify_erased(InstId i) {
  const Program& p = rw_.program();
  if (i < hash_.size()) {
    total_ -= hash_[i];
    hash_[i] = 0;
  }
  if (in_rewrite_) delta_.erased.push_back(i);
  if (opts_.verify && !failed() && !rw_.results_unused(i))
    fail("'" + pattern_ + "' erases an instruction whose results are still used: " + describe_inst(p, i));
}

void ExpensiveChecks::notify_replaced(InstId i, std::span<const ValueId> with) {
  const Program& p = rw_.program();
  for (uint32_t k = 0; k < with.size() && k < p.num_results(i); ++k) {
    if (p.type_id(p.result(i, k)) != p.type_id(with[k]))
      fail("'" + pattern_ + "' replaces result " + std::to_string(k) + " of " + describe_inst(p, i) +
           " by a value of type " + to_string(p.type_of(with[k])));
    if (in_rewrite_) delta_.replaced.emplace_back(p.result(i, k), with[k]);
  }
}

void ExpensiveChecks::notify_pattern_begin(const RewriteSource& who, InstId root) {
  pattern_ = std::string(who.name);
  root_ = root;
  in_rewrite_ = true;
  delta_.clear();
  if (++snap_epoch_ == 0) {  // wrapped: no mark may equal the new epoch
    std::fill(snapped_.begin(), snapped_.end(), 0);
    snap_epoch_ = 1;
  }
  // The driver tries several patterns on one root in a row: when nothing changed since the last attempt
  // on this root ended, its neighbourhood and fingerprint are still the ones computed then.
  if (root != near_root_ || total_ != near_total_ || near_.empty()) {
    gather_neighbourhood(root);
    near_fp_ = local_fingerprint();
  }
  total_before_ = total_;
}

void ExpensiveChecks::notify_pattern_end(const RewriteSource& who, InstId root, bool success) {
  if (!in_rewrite_) return;
  in_rewrite_ = false;
  if (failed()) return;
  const Program& p = rw_.program();
  uint64_t near_after = local_fingerprint();
  bool changed = total_ != total_before_ || near_after != near_fp_;
  near_root_ = changed ? kNone : root;  // reusable by the next attempt on the same root
  near_total_ = total_;
  // Built only for a failure message: most attempts end here without one.
  auto where = [&] { return " on " + describe_inst(p, root) + " in " + body_label(p, p.inst(root).body); };
  if (opts_.fingerprints && success && !changed)
    return fail("'" + pattern_ + "' reported success but did not change the IR" + where());
  if (opts_.fingerprints && !success && changed)
    return fail("'" + pattern_ + "' reported failure but changed the IR" + where());
  if (!success) return;
  if (opts_.verify) {
    bool regions = false;
    for (InstId i : delta_.inserted) {
      check_dominance(i);
      regions |= !p.inst(i).erased && has_trait(p.op(i), OpTrait::Regions);
    }
    for (const InstSnapshot& s : delta_.modified) {
      check_dominance(s.inst);
      regions |= !p.inst(s.inst).erased && has_trait(p.op(s.inst), OpTrait::Regions);
    }
    if (failed()) return;
    if (regions) {  // a new region reference may close a cycle: that needs the whole program
      auto diags = verify_program(p, 1);
      if (!diags.empty())
        return fail("the IR does not verify after '" + pattern_ + "'" + where() + ": " + diags[0].message);
    }
  }
  if (opts_.replay) {
    ++replayed_;
    ReplayReport r = replay_rewrite(p, delta_, replay_, pattern_, root_, &inputs_);
    runs_ += r.runs;
    windowed_ += r.windowed;
    unreplayable_ += !r.skipped.empty();
    structural_ += r.structural;
    memoized_ += r.memoized;
    if (!r.ok) fail(r.message);
  }
}

void ExpensiveChecks::finish() {
  if (!opts_.verify || failed()) return;
  auto diags = verify_program(rw_.program(), 1);
  if (!diags.empty()) fail("the IR does not verify at the end of the run: " + diags[0].message);
}

}  // namespace ptir
