// Param-only hoisting into prologue functions, and the composition that undoes it for validation.
#include "rewriter/hoist.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace ptir {
namespace {

bool selector_matches(std::string_view sel, std::string_view name) {
  if (!sel.empty() && sel.front() == '%') sel.remove_prefix(1);
  if (!sel.empty() && sel.back() == '*') return name.substr(0, sel.size() - 1) == sel.substr(0, sel.size() - 1);
  return !name.empty() && sel == name;
}

/// True when a region op's regions (transitively) hold an effectful op: such an op never moves.
bool regions_have_effect(const Program& p, InstId i, std::vector<char>& seen) {
  for (const Attr& a : p.attrs_of(i).attrs) {
    if (a.value.kind != AttrKind::Region || a.value.ints.empty() || a.value.ints[0] < 0) continue;
    const BodyId r = static_cast<BodyId>(a.value.ints[0]);
    if (r >= p.num_bodies() || seen[r]) continue;
    seen[r] = 1;
    bool effect = false;
    p.for_each_inst(r, [&](InstId j) {
      effect = effect || has_trait(p.op(j), Effect) || (has_trait(p.op(j), Regions) && regions_have_effect(p, j, seen));
    });
    if (effect) return true;
  }
  return false;
}

std::string fresh_function_name(const Program& p, const std::string& base) {
  if (p.find_body(base, false) == kNone) return base;
  for (int k = 2;; ++k)
    if (std::string n = base + "_" + std::to_string(k); p.find_body(n, false) == kNone) return n;
}

/// How a value relates to the selected parameters.
enum class Dep : uint8_t {
  Other,     ///< reads an unselected parameter or an effect: stays
  Constant,  ///< pure, reads only literals and constants: stays, copied into the prologue where needed
  Weight,    ///< pure, reads only selected parameters, literals and constants, and at least one parameter
};

class FunctionHoister {
 public:
  FunctionHoister(ProgramRewriter& rw, BodyId b)
      : rw_(rw), p_(rw.program()), b_(b), params_(p_.body(b).params), name_(p_.body(b).name) {}

  /// Hoists out of the body the instructions that depend only on the selected parameters.
  std::optional<HoistRecord> run(const std::vector<char>& selected) {
    dep_.assign(p_.num_values(), Dep::Other);
    for (size_t k = 0; k < params_.size(); ++k)
      if (selected[k]) dep_[params_[k]] = Dep::Weight;
    classify();
    if (hoisted_.empty() || !find_boundary()) return std::nullopt;
    HoistRecord rec{name_, fresh_function_name(p_, name_ + "_prologue"), params_.size(), {}, 0};
    build_prologue(rec);
    // The function reads the prologue's results as new parameters; the hoisted instructions go (their
    // results are now read only by one another).
    std::vector<ValueId> fresh;
    for (ValueId v : boundary_) fresh.push_back(rw_.add_param(b_, p_.type_id(v)));
    for (auto [v, k] : outside_uses_) rw_.replace_all_uses(v, fresh[k]);
    for (auto it = hoisted_.rbegin(); it != hoisted_.rend(); ++it) rw_.erase_inst(*it);
    for (size_t k = 0; k < boundary_.size(); ++k)
      if (std::string n(p_.name(boundary_[k])); !n.empty()) rw_.set_name(fresh[k], n);
    return rec;
  }

 private:
  Dep dep_of(ValueId v) const { return p_.value(v).kind == ValueKind::Literal ? Dep::Constant : dep_[v]; }
  ValueId canon(ValueId v) const {
    auto it = canon_.find(v);
    return it == canon_.end() ? v : it->second;
  }

  /// Marks the hoistable instructions (in body order) and numbers them: an instruction identical to an
  /// earlier one (op, attributes, operands, result types; all pure) gives the same values, so two
  /// copies of one weight computation make one new parameter, not two.
  void classify() {
    std::vector<char> seen(p_.num_bodies(), 0);
    std::map<std::tuple<OpCode, AttrSetId, std::vector<ValueId>, std::vector<TypeId>>, InstId> numbering;
    p_.for_each_inst(b_, [&](InstId i) {
      const OpCode op = p_.op(i);
      if (op == OpCode::Return || has_trait(op, Effect)) return;
      if (has_trait(op, Regions)) {
        std::fill(seen.begin(), seen.end(), 0);
        if (regions_have_effect(p_, i, seen)) return;
      }
      Dep d = Dep::Constant;
      std::vector<ValueId> ops;
      for (ValueId v : rw_.operands(i)) {
        const Dep o = dep_of(v);
        if (o == Dep::Other) return;
        if (o == Dep::Weight) d = Dep::Weight;
        ops.push_back(canon(v));
      }
      std::vector<TypeId> types;
      for (uint32_t k = 0; k < p_.num_results(i); ++k) {
        dep_[p_.result(i, k)] = d;
        types.push_back(p_.type_id(p_.result(i, k)));
      }
      if (d != Dep::Weight) return;
      hoisted_.push_back(i);
      auto [it, fresh] = numbering.try_emplace({op, p_.inst(i).attrs, std::move(ops), std::move(types)}, i);
      if (!fresh)
        for (uint32_t k = 0; k < p_.num_results(i); ++k) canon_[p_.result(i, k)] = p_.result(it->second, k);
    });
  }

  /// The values the rest of the function reads (numbered: duplicates share one); false if none.
  bool find_boundary() {
    std::vector<char> in_hoist(p_.num_inst_slots(), 0);
    for (InstId i : hoisted_) in_hoist[i] = 1;
    std::unordered_map<ValueId, uint32_t> index;
    for (InstId i : hoisted_)
      for (uint32_t k = 0; k < p_.num_results(i); ++k) {
        const ValueId v = p_.result(i, k);
        bool outside = false;
        p_.for_each_use(v, [&](InstId user, uint32_t) { outside = outside || !in_hoist[user]; });
        if (!outside) continue;
        auto [it, fresh] = index.try_emplace(canon(v), static_cast<uint32_t>(boundary_.size()));
        if (fresh) boundary_.push_back(canon(v));
        outside_uses_.emplace_back(v, it->second);
      }
    return !boundary_.empty();  // only dead code depends on the weights: DCE's business
  }

  /// Creates the prologue: the selected parameters it reads, copies (in body order) of what the boundary
  /// values are computed from (hoisted instructions and the constants they read), their return.
  void build_prologue(HoistRecord& rec) {
    std::vector<char> need(p_.num_inst_slots(), 0);
    for (ValueId v : boundary_) need[p_.def_inst(v)] = 1;
    std::vector<InstId> order;
    p_.for_each_inst(b_, [&](InstId i) { order.push_back(i); });
    std::vector<char> read(params_.size(), 0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (!need[*it]) continue;
      for (ValueId v : rw_.operands(*it)) {
        v = canon(v);
        if (InstId d = p_.def_inst(v); d != kNone) need[d] = 1;
        if (p_.value(v).kind == ValueKind::Param) read[p_.value(v).index] = 1;
      }
    }
    std::vector<TypeId> types;
    for (ValueId v : boundary_) types.push_back(p_.type_id(v));
    // The hoisted instructions keep the flags they ran under: the prologue is the function's flags, so
    // "prologue then function" (compose_prologues) is exactly the program printed.
    const BodyId g = rw_.add_function(rec.prologue, types, p_.body(b_).fastmath);
    std::unordered_map<ValueId, ValueId> map;
    for (size_t k = 0; k < params_.size(); ++k)
      if (read[k]) {
        rec.args.push_back(static_cast<uint32_t>(k));
        map[params_[k]] = rw_.add_param(g, p_.type_id(params_[k]), p_.name(params_[k]));
      }
    auto mapped = [&](ValueId v) {
      auto it = map.find(canon(v));
      return it == map.end() ? v : it->second;  // literals are shared by every body
    };
    for (InstId i : order) {
      if (!need[i]) continue;
      rec.num_hoisted_insts += dep_[p_.result(i, 0)] == Dep::Weight;
      std::vector<ValueId> ops;
      for (ValueId v : rw_.operands(i)) ops.push_back(mapped(v));
      std::vector<TypeId> rtypes;
      for (uint32_t k = 0; k < p_.num_results(i); ++k) rtypes.push_back(p_.type_id(p_.result(i, k)));
      const InstId c = rw_.append_inst(g, p_.op(i), ops, rtypes, p_.inst(i).attrs);
      for (uint32_t k = 0; k < p_.num_results(i); ++k) {
        map[p_.result(i, k)] = p_.result(c, k);
        if (std::string n(p_.name(p_.result(i, k))); !n.empty()) rw_.set_name(p_.result(c, k), n);
      }
    }
    std::vector<ValueId> results;
    for (ValueId v : boundary_) results.push_back(mapped(v));
    rw_.set_return(g, results);
  }

  ProgramRewriter& rw_;
  const Program& p_;
  BodyId b_;
  const std::vector<ValueId> params_;  ///< copied: adding a body moves the bodies
  const std::string name_;
  std::vector<Dep> dep_;
  std::vector<InstId> hoisted_;                  ///< in body order
  std::unordered_map<ValueId, ValueId> canon_;   ///< a duplicate's result -> the first copy's
  std::vector<ValueId> boundary_;                ///< the new parameters' values, first use order
  std::vector<std::pair<ValueId, uint32_t>> outside_uses_;  ///< value read outside -> boundary index
};

}  // namespace

bool HoistLog::is_prologue(std::string_view name) const {
  return std::any_of(records.begin(), records.end(), [&](const HoistRecord& r) { return r.prologue == name; });
}

HoistResult hoist_params(ProgramRewriter& rw, const HoistOptions& opts, HoistLog* log) {
  HoistResult out;
  const Program& p = rw.program();
  std::vector<char> used(opts.params.size(), 0);
  const size_t num_bodies = p.num_bodies();  // prologues made here are not visited
  for (BodyId b = 0; b < num_bodies; ++b) {
    if (p.body(b).is_region || (log && log->is_prologue(p.body(b).name))) continue;
    const auto& params = p.body(b).params;
    std::vector<char> selected(params.size(), 0);
    bool any = false;
    for (size_t k = 0; k < params.size(); ++k)
      for (size_t s = 0; s < opts.params.size(); ++s)
        if (selector_matches(opts.params[s], p.name(params[k]))) {
          selected[k] = used[s] = 1;
          any = true;
        }
    if (!any) continue;
    if (auto rec = FunctionHoister(rw, b).run(selected)) {
      if (log) log->records.push_back(*rec);
      out.records.push_back(std::move(*rec));
    }
  }
  for (size_t s = 0; s < opts.params.size(); ++s)
    if (!used[s]) out.unmatched.push_back(opts.params[s]);
  return out;
}

PassResult HoistParamsPass::run(ProgramRewriter& rw) {
  PassResult r;
  if (opts_.params.empty()) {
    r.warning = "hoist-params: no parameter is selected, nothing hoisted (PTIR has no parameter roles: name the "
                "weights with --hoist-params=NAMES)";
    return r;
  }
  HoistResult h = hoist_params(rw, opts_, log_.get());
  for (const std::string& s : h.unmatched)
    r.warning += (r.warning.empty() ? "" : "; ") + ("hoist-params: '" + s + "' matches no parameter");
  size_t insts = 0, params = 0;
  for (const HoistRecord& rec : h.records) {
    insts += rec.num_hoisted_insts;
    params += rw.program().body(rw.program().find_body(rec.prologue, false)).result_types.size();
  }
  add_statistic("num-hoisted", static_cast<int64_t>(insts), "instructions moved into prologues");
  add_statistic("num-prologues", static_cast<int64_t>(h.records.size()), "prologue functions created");
  add_statistic("num-new-params", static_cast<int64_t>(params), "parameters added for hoisted values");
  r.changed = !h.records.empty();
  return r;
}

}  // namespace ptir
