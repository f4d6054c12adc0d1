// Fast-math flags in the refinement check, the Z3-free part: free output zero signs, reassoc trees,
// the enumeration of association orders that confirms or dismisses a counterexample, and the campaign.
#include "verify/fastmath.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace ptir::verify {
namespace {

constexpr size_t kMaxTreeLeaves = 6;
constexpr uint64_t kMaxCombinations = 4096;

/// Body b and every region it runs, directly or through other regions.
std::vector<BodyId> reachable_bodies(const Program& p, BodyId b) {
  std::vector<BodyId> out{b};
  std::vector<bool> seen(p.num_bodies(), false);
  seen[b] = true;
  for (size_t k = 0; k < out.size(); ++k)
    p.for_each_inst(out[k], [&](InstId i) {
      for (const Attr& a : p.attrs_of(i).attrs)
        if (a.value.kind == AttrKind::Region && !a.value.ints.empty() && a.value.ints[0] >= 0 &&
            static_cast<uint64_t>(a.value.ints[0]) < p.num_bodies() && !seen[a.value.ints[0]]) {
          seen[a.value.ints[0]] = true;
          out.push_back(static_cast<BodyId>(a.value.ints[0]));
        }
    });
  return out;
}

bool float_result(const Program& p, InstId i) {
  return p.num_results(i) == 1 && is_float(p.type_of(p.result(i)).dtype);
}

/// An add/mul of floats: the ops reassoc lets a tree of re-associate.
bool tree_op(const Program& p, InstId i) {
  return (p.op(i) == OpCode::Add || p.op(i) == OpCode::Mul) && float_result(p, i);
}

/// Whether value v is an inner node of the tree whose node `parent` reads it.
bool inner(const Program& p, ValueId v, InstId parent) {
  const InstId d = p.def_inst(v);
  return d != kNone && p.op(d) == p.op(parent) && tree_op(p, d) && p.inst(d).body == p.inst(parent).body &&
         p.has_one_use(v) && p.type_id(v) == p.type_id(p.result(parent));
}

void collect(const Program& p, InstId i, ReassocTree& t) {
  t.nodes.push_back(i);
  for (uint32_t k = 0; k < p.num_operands(i); ++k) {
    const ValueId v = p.operand(i, k);
    if (inner(p, v, i)) collect(p, p.def_inst(v), t);
    else t.leaves.push_back(v);
  }
}

/// (2n-3)!!: the unordered binary trees over n distinct leaves.
uint64_t tree_count(size_t n) {
  uint64_t c = 1;
  for (uint64_t k = 3; k + 2 <= 2 * n; k += 2) c *= k;
  return c;
}

/// A binary tree over leaves 0..n-1: internal node j is id n+j with two children.
struct Shape {
  std::vector<std::array<size_t, 2>> nodes;
  size_t root;
};

/// Every unordered binary tree over n >= 2 leaves (leaf k is inserted above every node of the trees
/// over leaves 0..k-1).
std::vector<Shape> shapes(size_t n) {
  std::vector<Shape> cur{{{{0, 1}}, n}};
  for (size_t k = 2; k < n; ++k) {
    std::vector<Shape> next;
    for (const Shape& s : cur) {
      std::vector<size_t> ids;
      for (size_t l = 0; l < k; ++l) ids.push_back(l);
      for (size_t j = 0; j < s.nodes.size(); ++j) ids.push_back(n + j);
      for (size_t x : ids) {
        Shape t = s;
        const size_t m = n + t.nodes.size();
        for (auto& nd : t.nodes)
          for (size_t& c : nd)
            if (c == x) c = m;
        if (t.root == x) t.root = m;
        t.nodes.push_back({x, k});
        next.push_back(std::move(t));
      }
    }
    cur = std::move(next);
  }
  return cur;
}

/// Rebuilds tree t of program q (a copy of the source) as shape s.
void rebuild(Program& q, const ReassocTree& t, const Shape& s) {
  const size_t n = t.leaves.size();
  const AttrSetId attrs = q.inst(t.root).attrs;
  const TypeId type = q.type_id(q.result(t.root));
  auto build = [&](auto&& self, size_t id) -> ValueId {
    if (id < n) return t.leaves[id];
    const ValueId l = self(self, s.nodes[id - n][0]);
    const ValueId r = self(self, s.nodes[id - n][1]);
    const ValueId ops[2] = {l, r};
    const InstId i = q.create_inst(t.body, t.op, ops, attrs, {&type, 1}, t.root);
    return q.result(i);
  };
  const ValueId root = build(build, s.root);
  q.replace_all_uses(q.result(t.root), root);
  for (InstId i : t.nodes) q.erase_inst(i);  // root first: each node is unused when it goes
}

bool same_results(const FastMathPlan& plan, const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!same_output(plan, k, a[k], b[k])) return false;
  return true;
}

/// A region op whose regions (or theirs) hold a governed float op: its zero signs under nsz are not
/// enumerated (the interpreter keeps the IEEE default sign inside regions).
bool region_with_governed(const Program& p, InstId i) {
  if (!has_trait(p.op(i), OpTrait::Regions)) return false;
  for (const Attr& a : p.attrs_of(i).attrs) {
    if (a.value.kind != AttrKind::Region || a.value.ints.empty() || a.value.ints[0] < 0 ||
        static_cast<uint64_t>(a.value.ints[0]) >= p.num_bodies())
      continue;
    bool governed = false;
    for (BodyId body : reachable_bodies(p, static_cast<BodyId>(a.value.ints[0])))
      p.for_each_inst(body, [&](InstId j) { governed = governed || (fastmath_governs(p.op(j)) && float_result(p, j)); });
    if (governed) return true;
  }
  return false;
}

/// The source's nsz behaviours on one input: body `sb` of `q` run one instruction at a time, and at each
/// governed op of the function body whose float result has zero elements (not a free output: those
/// compare equal anyway), every choice of their signs explored, later instructions seeing the chosen
/// signs (a sign can change what follows: 1 / -0 = -inf). Finds whether some choice has UB or gives
/// the target's results; at most kMaxCombinations runs to the end.
class SignSearch {
 public:
  SignSearch(const FastMathPlan& plan, const Program& q, BodyId sb, const RunResult& tgt, const InterpOptions& io)
      : plan_(plan), q_(q), sb_(sb), tgt_(tgt), io_(io) {
    io_.zero_signs = nullptr;
    io_.fastmath = q.fastmath_of(sb);
    q.for_each_inst(sb, [&](InstId i) {
      if (q.op(i) != OpCode::Return) order_.push_back(i);
    });
    const InstId ret = q.terminator(sb);
    for (uint32_t k = 0; ret != kNone && k < q.num_operands(ret); ++k)
      if (k < plan.free_zero_result.size() && plan.free_zero_result[k]) free_.push_back(q.def_inst(q.operand(ret, k)));
  }

  /// Allowed (with the reason), Refutes, or Undecided (with the reason) when the choices could not all be run.
  Confirm run(const std::vector<Tensor>& inputs, std::string* why) {
    std::unordered_map<ValueId, Tensor> env;
    const Body& b = q_.body(sb_);
    for (size_t k = 0; k < b.params.size() && k < inputs.size(); ++k) env[b.params[k]] = inputs[k];
    explore(0, std::move(env));
    if (why) *why = why_;
    return result_;
  }

 private:
  const Tensor& value(const std::unordered_map<ValueId, Tensor>& env, ValueId v) const {
    if (q_.value(v).kind == ValueKind::Literal) return q_.literal(q_.value(v).def);
    return env.at(v);
  }

  /// Runs instructions from order_[step] on; false when the search is over (a verdict other than Refutes).
  bool explore(size_t step, std::unordered_map<ValueId, Tensor> env) {
    for (; step < order_.size(); ++step) {
      const InstId i = order_[step];
      if (region_with_governed(q_, i)) return undecided("a zero sign inside the regions of " +
                                                        std::string(mnemonic(q_.op(i))) + " is not enumerated");
      std::vector<Tensor> ops;
      for (uint32_t k = 0; k < q_.num_operands(i); ++k) ops.push_back(value(env, q_.operand(i, k)));
      RunResult r = eval_inst(q_, i, ops, io_);
      if (r.status == RunStatus::UB) {
        result_ = Confirm::Allowed;
        why_ = "the source has undefined behaviour under another choice of zero signs";
        return false;
      }
      if (r.status != RunStatus::Ok || r.results.size() != q_.num_results(i))
        return undecided("a choice of zero signs of the source did not run: " + r.message);
      std::vector<int64_t> zeros;
      if (chooses_signs(i))
        for (int64_t e = 0, n = r.results[0].size(); e < n; ++e)
          if (float_is_zero(r.results[0].dtype(), r.results[0].bits(e))) zeros.push_back(e);
      if (zeros.empty()) {
        for (uint32_t k = 0; k < q_.num_results(i); ++k) env[q_.result(i, k)] = std::move(r.results[k]);
        continue;
      }
      if (zeros.size() > 12 || (uint64_t{1} << zeros.size()) > kMaxCombinations)
        return undecided(std::to_string(zeros.size()) + " zero results of " + std::string(mnemonic(q_.op(i))) +
                         " may take either sign (choices are enumerated up to " + std::to_string(kMaxCombinations) + ")");
      Tensor t = std::move(r.results[0]);
      t.expand();
      const uint64_t sign = sign_mask(t.dtype());
      for (uint64_t m = 0; m < (uint64_t{1} << zeros.size()); ++m) {
        for (size_t z = 0; z < zeros.size(); ++z) t.set_bits(zeros[z], ((m >> z) & 1) ? sign : 0);
        auto next = env;
        next[q_.result(i, 0)] = t;
        if (!explore(step + 1, std::move(next))) return false;
      }
      return true;
    }
    if (++runs_ > kMaxCombinations)
      return undecided("more than " + std::to_string(kMaxCombinations) + " choices of zero signs");
    const InstId ret = q_.terminator(sb_);
    std::vector<Tensor> results;
    for (uint32_t k = 0; ret != kNone && k < q_.num_operands(ret); ++k) results.push_back(value(env, q_.operand(ret, k)));
    if (tgt_.status == RunStatus::Ok && same_results(plan_, results, tgt_.results)) {
      result_ = Confirm::Allowed;
      why_ = "the target's result is the source's under another choice of zero signs";
      return false;
    }
    return true;
  }

  /// A governed op with one float result, under nsz, whose zeros are no free output.
  bool chooses_signs(InstId i) const {
    return io_.fastmath->has(FastMathFlag::NSZ) && fastmath_governs(q_.op(i)) && float_result(q_, i) &&
           std::find(free_.begin(), free_.end(), i) == free_.end();
  }

  bool undecided(std::string why) {
    result_ = Confirm::Undecided;
    why_ = "counterexample holds for the source's default zero signs only (fastmath nsz): " + why;
    return false;
  }

  const FastMathPlan& plan_;
  const Program& q_;
  BodyId sb_;
  const RunResult& tgt_;
  InterpOptions io_;
  std::vector<InstId> order_;
  std::vector<InstId> free_;
  uint64_t runs_ = 0;
  Confirm result_ = Confirm::Refutes;
  std::string why_;
};

uint64_t mix(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Whether program q (the source in one association order) has, on `inputs`, a behaviour that is the
/// target's: its zero-sign choices under nsz (SignSearch), else its one run.
Confirm one_order(const FastMathPlan& plan, const Program& q, BodyId sb, const std::vector<Tensor>& inputs,
                  const RunResult& tgt, const InterpOptions& io, std::string* why) {
  if (!plan.src_signs_exact) return SignSearch(plan, q, sb, tgt, io).run(inputs, why);
  InterpOptions o = io;
  o.zero_signs = nullptr;
  const RunResult r = run_body(q, sb, inputs, o);
  if (r.status == RunStatus::UB) {
    *why = "the source has undefined behaviour";
    return Confirm::Allowed;
  }
  if (r.status != RunStatus::Ok) {
    *why = "an association order of the source did not run: " + r.message;
    return Confirm::Undecided;
  }
  if (tgt.status == RunStatus::Ok && same_results(plan, r.results, tgt.results)) {
    *why = "the target's result is the source's";
    return Confirm::Allowed;
  }
  return Confirm::Refutes;
}

/// confirm_difference under contract: every choice of every contract site of the source's function body.
Confirm confirm_contract(const FastMathPlan& plan, const Program& src, BodyId sb, const std::vector<Tensor>& inputs,
                         const RunResult& tgt, const InterpOptions& io, std::string* why) {
  auto undecided = [&](std::string m) {
    if (why) *why = "counterexample holds for the source's unfused a*b+c only (fastmath contract): " + std::move(m);
    return Confirm::Undecided;
  };
  if (!plan.src_trees.empty()) return undecided("its fusions are not enumerated together with reassoc orders");
  if (!plan.src_signs_exact) return undecided("its fusions are not enumerated together with nsz zero signs");
  std::vector<std::vector<uint32_t>> ks;
  uint64_t combos = 1;
  for (InstId i : plan.src_sites) {
    ks.push_back(contract_operands(src, i));
    combos *= 1 + ks.back().size();
    if (combos > kMaxCombinations)
      return undecided("more than " + std::to_string(kMaxCombinations) + " choices of fused sites");
  }
  std::vector<size_t> pick(ks.size(), 0);  // 0: unfused, j: fused with ks[site][j - 1]
  for (uint64_t c = 0; c < combos; ++c) {
    Contractions fused;
    for (size_t s = 0; s < pick.size(); ++s)
      if (pick[s] > 0) fused[plan.src_sites[s]] = ks[s][pick[s] - 1];
    InterpOptions o = io;
    o.zero_signs = nullptr;
    o.contracted = &fused;
    const RunResult r = run_body(src, sb, inputs, o);
    if (r.status == RunStatus::UB) {
      if (why) *why = "the source has undefined behaviour under another choice of fused a*b+c (contract)";
      return Confirm::Allowed;
    }
    if (r.status != RunStatus::Ok) return undecided("a choice of fused sites did not run: " + r.message);
    if (tgt.status == RunStatus::Ok && same_results(plan, r.results, tgt.results)) {
      if (why) *why = "the target's result is the source's under another choice of fused a*b+c (contract)";
      return Confirm::Allowed;
    }
    for (size_t s = 0; s < pick.size(); ++s) {  // next combination
      if (++pick[s] <= ks[s].size()) break;
      pick[s] = 0;
    }
  }
  return Confirm::Refutes;
}

}  // namespace

std::vector<ReassocTree> reassoc_trees(const Program& p, BodyId b) {
  std::vector<ReassocTree> out;
  for (BodyId body : reachable_bodies(p, b))
    p.for_each_inst(body, [&](InstId i) {
      if (!tree_op(p, i)) return;
      const ValueId r = p.result(i);
      bool is_inner = false;
      p.for_each_use(r, [&](InstId owner, uint32_t) { is_inner = is_inner || inner(p, r, owner); });
      if (is_inner) return;
      ReassocTree t{body, i, p.op(i), {}, {}};
      collect(p, i, t);
      out.push_back(std::move(t));
    });
  return out;
}

FastMathPlan plan_fastmath(const Program& src, BodyId sb, const Program& tgt, BodyId tb) {
  FastMathPlan plan;
  plan.src = src.fastmath_of(sb);
  plan.tgt = tgt.fastmath_of(tb);
  const InstId ret = src.terminator(sb);
  const uint32_t nres = ret == kNone ? 0 : src.num_operands(ret);
  plan.free_zero_result.assign(nres, false);
  std::vector<InstId> free_producers;
  if (plan.src.has(FastMathFlag::NSZ)) {
    for (uint32_t k = 0; k < nres; ++k) {
      const ValueId v = src.operand(ret, k);
      const InstId d = src.def_inst(v);
      if (d == kNone || src.inst(d).body != sb || !fastmath_governs(src.op(d)) || !float_result(src, d) ||
          !src.has_one_use(v))
        continue;
      plan.free_zero_result[k] = true;
      free_producers.push_back(d);
    }
    for (BodyId body : reachable_bodies(src, sb))
      src.for_each_inst(body, [&](InstId i) {
        if (!fastmath_governs(src.op(i)) || !float_result(src, i)) return;
        bool free = false;
        for (InstId f : free_producers) free = free || f == i;
        if (!free) plan.src_signs_exact = false;
      });
  }
  plan.contract_root.assign(nres, kNone);
  if (plan.src.has(FastMathFlag::Contract)) {
    for (uint32_t k = 0; k < nres; ++k) {
      const ValueId v = src.operand(ret, k);
      const InstId d = src.def_inst(v);
      if (d != kNone && src.inst(d).body == sb && !contract_operands(src, d).empty() && src.has_one_use(v))
        plan.contract_root[k] = d;
    }
    for (BodyId body : reachable_bodies(src, sb))
      src.for_each_inst(body, [&](InstId i) {
        if (contract_operands(src, i).empty()) return;
        if (body == sb) plan.src_sites.push_back(i);
        else if (plan.no_refute.empty())
          plan.no_refute = "the source may fuse a*b+c (contract) in region ^" + src.body(body).name +
                           " (its choices are not enumerated)";
      });
  }
  if (plan.src.has(FastMathFlag::Reassoc))
    for (ReassocTree& t : reassoc_trees(src, sb)) {
      if (t.leaves.size() < 3) continue;
      if (t.body != sb && plan.no_refute.empty())
        plan.no_refute = "the source may reassociate a tree of " + std::to_string(t.leaves.size()) +
                         " leaves in region ^" + src.body(t.body).name + " (its orders are not enumerated)";
      plan.src_trees.push_back(std::move(t));
    }
  if (plan.tgt.has(FastMathFlag::Reassoc))
    for (const ReassocTree& t : reassoc_trees(tgt, tb))
      if (t.leaves.size() >= 3) {
        plan.no_proof = "the target may reassociate a tree of " + std::to_string(t.leaves.size()) +
                        " leaves and only its default order is encoded";
        break;
      }
  return plan;
}

bool same_output(const FastMathPlan& plan, size_t result, const Tensor& a, const Tensor& b, int64_t* first) {
  if (a.type != b.type) return false;
  const bool free = result < plan.free_zero_result.size() && plan.free_zero_result[result] && is_float(a.dtype());
  for (int64_t i = 0, n = a.size(); i < n; ++i) {
    const uint64_t x = a.bits(i), y = b.bits(i);
    if (x == y) continue;
    if (is_float(a.dtype()) && float_is_nan(a.dtype(), x) && float_is_nan(a.dtype(), y)) continue;
    if (free && float_is_zero(a.dtype(), x) && float_is_zero(a.dtype(), y)) continue;
    if (first) *first = i;
    return false;
  }
  return true;
}

Confirm confirm_difference(const FastMathPlan& plan, const Program& src, BodyId sb, const std::vector<Tensor>& inputs,
                           const RunResult& tgt, const InterpOptions& io, std::string* why) {
  auto undecided = [&](std::string m) {
    if (why) *why = std::move(m);
    return Confirm::Undecided;
  };
  if (!plan.no_refute.empty()) return undecided("counterexample holds for the source's default order only: " + plan.no_refute);
  if (!plan.src_sites.empty()) return confirm_contract(plan, src, sb, inputs, tgt, io, why);
  if (plan.src_trees.empty())
    return plan.src_signs_exact ? Confirm::Refutes : SignSearch(plan, src, sb, tgt, io).run(inputs, why);
  uint64_t combos = 1;
  for (const ReassocTree& t : plan.src_trees) {
    if (t.leaves.size() > kMaxTreeLeaves)
      return undecided("counterexample holds for the source's default order only: a reassoc tree has " +
                       std::to_string(t.leaves.size()) + " leaves (orders are enumerated up to " +
                       std::to_string(kMaxTreeLeaves) + ")");
    combos *= tree_count(t.leaves.size());
    if (combos > kMaxCombinations)
      return undecided("counterexample holds for the source's default order only: more than " +
                       std::to_string(kMaxCombinations) + " association orders");
  }
  std::vector<std::vector<Shape>> all;
  for (const ReassocTree& t : plan.src_trees) all.push_back(shapes(t.leaves.size()));
  std::vector<size_t> pick(all.size(), 0);
  for (uint64_t c = 0; c < combos; ++c) {
    Program q = src;
    for (size_t k = 0; k < all.size(); ++k) rebuild(q, plan.src_trees[k], all[k][pick[k]]);
    std::string w;
    if (const Confirm r = one_order(plan, q, sb, inputs, tgt, io, &w); r != Confirm::Refutes) {
      if (why) *why = r == Confirm::Undecided ? w : w + (plan.src_signs_exact ? " under" : ", and") + " another association order";
      return r;
    }
    for (size_t k = 0; k < pick.size(); ++k) {  // next combination
      if (++pick[k] < all[k].size()) break;
      pick[k] = 0;
    }
  }
  return Confirm::Refutes;
}

Campaign reassoc_campaign(const Program& src, BodyId sb, const Program& tgt, BodyId tb, int runs, uint64_t seed,
                          const KernelRegistry* kernels) {
  Campaign c;
  const FastMathPlan plan = plan_fastmath(src, sb, tgt, tb);
  InterpOptions io;
  io.kernels = kernels;
  io.max_while_iterations = 4096;
  static constexpr double kBias[] = {0.5, 0.25, 0.1, 0.0};
  for (int run = 0; run < runs; ++run) {
    const uint64_t s = mix(seed * 1000003u + static_cast<uint64_t>(run));
    const std::vector<Tensor> in = random_inputs_avoiding_ub(src, sb, s, kBias[run % 4]);
    ++c.inputs;
    const RunResult a = run_body(src, sb, in, io);
    if (a.status != RunStatus::Ok) {
      ++c.skipped;
      continue;
    }
    const RunResult b = run_body(tgt, tb, in, io);
    if (b.status == RunStatus::Ok && same_results(plan, a.results, b.results)) {
      ++c.allowed;
      continue;
    }
    if (b.status != RunStatus::Ok && b.status != RunStatus::UB) {
      c.undecided = "the target did not run: " + b.message;
      return c;
    }
    std::string why;
    switch (confirm_difference(plan, src, sb, in, b, io, &why)) {
      case Confirm::Refutes: c.refuting = in; return c;
      case Confirm::Allowed: ++c.allowed; break;
      case Confirm::Undecided: c.undecided = why; return c;
    }
  }
  return c;
}

}  // namespace ptir::verify
