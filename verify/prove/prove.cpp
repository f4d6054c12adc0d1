// The prover loop (verify/prove/prove.h).
#include "verify/prove/prove.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "ir/interp.h"
#include "ir/text.h"
#include "rewriter/checks.h"
#include "rewriter/greedy.h"
#include "rewriter/rules/rules.h"
#include "verify/prove/coverage.h"
#include "verify/prove/instance.h"
#include "verify/prove/licence.h"
#include "verify/fastmath.h"
#include "verify/refine.h"
#include "verify/report.h"
#include "verify/smt/solver.h"

namespace ptir::prove {
namespace {

using clock = std::chrono::steady_clock;
double ms_since(clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); }

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}
uint64_t hash_str(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The one-pattern frozen set for `name`.
/// The pattern named `name` from `origin` (two --rules files may reuse a name: the origin, FILE:LINE,
/// tells them apart).
FrozenPatternSet single(const Populate& populate, const std::string& name, const std::string& origin) {
  PatternSet set;
  populate(set);
  set.erase_if([&](const Pattern& p) { return p.debug_name() != name || p.origin() != origin; });
  return std::move(set).freeze();
}

const rules::RulePattern* as_rule(const FrozenPatternSet& s) {
  return s.size() == 1 ? dynamic_cast<const rules::RulePattern*>(s.all()[0]) : nullptr;
}

/// The outcome of running and checking one instance.
enum class Outcome : uint8_t { NotFired, Proved, Tested, Refuted, Unknown };

struct Checked {
  Outcome outcome = Outcome::NotFired;
  std::unique_ptr<Program> rewritten;
  std::string detail;
  int solver_calls = 0;
};

/// Elements every instruction of `p` computes (all bodies), saturating: what one interpreter run costs.
int64_t computed_elements(const Program& p) {
  int64_t n = 0;
  for (BodyId b = 0; b < p.num_bodies(); ++b)
    p.for_each_inst(b, [&](InstId i) {
      for (uint32_t k = 0; k < p.num_results(i); ++k)
        n = std::min<int64_t>(n + p.type_of(p.result(i, k)).num_elements(), int64_t{1} << 40);
    });
  return n;
}

/// The largest program (source plus target, in computed elements) the interpreter campaign and the
/// sweep run: a rule through a 2^28-element broadcast_to took 0.8 s per run, and its campaign of 1,000
/// runs per instance ran for hours. Beyond it the instance is UNKNOWN, never a pass.
constexpr int64_t kMaxCampaignElements = int64_t{1} << 22;

/// Interpreter campaign (verify/fastmath.h): >= runs edge-biased inputs, each target run checked
/// against every behaviour the source allows (its nsz zero signs and reassoc orders included). Returns
/// "" when TESTED; else why not, with `refuted` set when an input refutes.
std::string campaign(const Program& src, const Program& tgt, int runs, uint64_t seed, bool* refuted) {
  *refuted = false;
  if (const int64_t n = computed_elements(src) + computed_elements(tgt); n > kMaxCampaignElements)
    return "the source and the rewritten program compute " + std::to_string(n) + " elements, more than the " +
           std::to_string(kMaxCampaignElements) + " the interpreter campaign runs: not run";
  verify::Campaign c = verify::reassoc_campaign(src, src.entry(), tgt, tgt.entry(), runs, seed);
  *refuted = c.refuting.has_value();
  if (c.refuting) {
    std::string s = "interpreter counterexample (no behaviour the source allows matches the target's):\n";
    for (size_t i = 0; i < c.refuting->size(); ++i)
      s += "  input " + std::to_string(i) + ": " + print_literal((*c.refuting)[i]) + "\n";
    RunResult a = run_body(src, src.entry(), *c.refuting), b = run_body(tgt, tgt.entry(), *c.refuting);
    for (size_t r = 0; r < a.results.size() && a.status == RunStatus::Ok; ++r)
      s += "  source result " + std::to_string(r) + ": " + print_literal(a.results[r]) + "\n";
    if (b.status != RunStatus::Ok) s += "  target: " + b.message + "\n";
    for (size_t r = 0; r < b.results.size() && b.status == RunStatus::Ok; ++r)
      s += "  target result " + std::to_string(r) + ": " + print_literal(b.results[r]) + "\n";
    return s;
  }
  if (c.tested()) return "";
  if (!c.undecided.empty()) return "the campaign could not decide: " + c.undecided;
  return "the campaign ran " + std::to_string(c.inputs) + " inputs (" + std::to_string(c.skipped) +
         " skipped: source UB or not runnable), too few to count as TESTED";
}

}  // namespace

/// Applies `one` once (no folding, no DCE of the driver beyond what it always does): one application,
/// so a wrong rule that undoes itself (concat(x, y) => concat(y, x)) cannot come back to the instance
/// and hide the wrong step. The driver's contract is always checked here, as `opt --expensive-checks`
/// would: a rewrite that reports failure but changed the IR, or success without a change, and every
/// mutation verified (types, shapes, dominance), all before anything interprets or encodes the result.
/// Replay is left to the callers, whose checkers find counterexamples rather than mismatches.
Applied apply_once(Program& p, const FrozenPatternSet& one) {
  Applied a;
  GreedyConfig cfg;
  cfg.fold = false;
  cfg.expensive_checks = false;
  cfg.max_num_rewrites = 1;
  ProgramRewriter rw(p);
  ExpensiveChecks contract(rw, CheckOptions{.fingerprints = true, .verify = true, .replay = false});
  rw.add_listener(&contract);
  GreedyResult r = apply_patterns_and_fold_greedily(rw, one, cfg);
  if (!contract.failed() && !rw.has_error()) contract.finish();
  rw.remove_listener(&contract);
  a.changed = r.changed;
  // finish() verified the whole program: a broken one is reported here, before anything encodes it.
  if (rw.has_error() || contract.failed())
    a.error = "the pattern broke the program: " + (contract.failed() ? contract.report() : rw.error()) + "\n";
  return a;
}

namespace {

Checked check_instance(const Program& inst, const FrozenPatternSet& one, const ProveOptions& o, uint64_t seed) {
  Checked c;
  c.rewritten = std::make_unique<Program>(inst);
  const Applied r = apply_once(*c.rewritten, one);
  if (!r.error.empty()) {
    c.outcome = Outcome::Refuted;
    c.detail = r.error;
    return c;
  }
  if (!r.changed) return c;
  verify::CheckOptions co;
  co.timeout_ms = o.timeout_ms;
  co.seed = seed;
  co.threads = o.solver_threads;
  co.deterministic = true;  // the same verdicts on a loaded CI machine and an idle one
  const verify::ProgramVerdict v = verify::check_program_refinement(inst, *c.rewritten, co);
  for (const auto& f : v.functions) c.solver_calls += f.verdict.solver_calls;
  switch (v.kind()) {
    case 0: c.outcome = Outcome::Proved; return c;
    case 1: c.outcome = Outcome::Refuted; c.detail = verify::format_program_text(v, inst); return c;
    default: break;
  }
  // UNKNOWN (or a malformed rewrite, ERROR): an interpreter campaign decides between REFUTED and TESTED.
  if (v.kind() == 3) {
    c.outcome = Outcome::Refuted;
    c.detail = "the rewritten program cannot be compared with the instance: " + verify::program_summary_line(v) + "\n";
    return c;
  }
  bool refuted = false;
  std::string why = campaign(inst, *c.rewritten, o.campaign_runs, seed, &refuted);
  if (refuted || !why.empty()) {
    c.outcome = refuted ? Outcome::Refuted : Outcome::Unknown;
    c.detail = "Z3: " + verify::program_summary_line(v) + "\n" + why;
    return c;
  }
  c.outcome = Outcome::Tested;
  c.detail = "Z3: " + verify::program_summary_line(v) + "; " + std::to_string(o.campaign_runs) +
             " interpreter runs on edge-biased inputs agreed";
  return c;
}

std::unique_ptr<rules::Node> clone(const rules::Node& n);

/// One change to a template that a near miss from outside it makes (pre-order node `node`):
/// OpSwap: its op replaced by `op`; AttrChange: its literal word attribute `attr` set to the schema's
/// word `other`, or (`other` -1) the attribute expression dropped (the generator then draws that
/// attribute, or leaves an optional one out); OperandSwap: its operands `attr` and
/// `other` exchanged; Unshare: the `%name` reference at `node` to a value bound with `as` replaced by a
/// copy of that subterm (`other` 1: with fresh captures, so its leaves are other inputs).
struct Mutation {
  int node = -1;
  OpCode op = OpCode::Constant;
  int attr = -1;
  int other = -1;
};

/// The mutations of `tmpl` of kind `pert` (OpSwap: every (op node, sibling) pair; AttrChange: every
/// literal attribute of every op node, and every captured one that is used twice or constrained: a
/// capture used once and unconstrained binds whatever is drawn, so dropping it changes nothing;
/// OperandSwap: every pair of distinct operands of a non-commutative op; Unshare: every later use of
/// an `as` name, twice).
std::vector<Mutation> mutations(const rules::Node& tmpl, Perturb pert, const std::vector<rules::Constraint>& where = {}) {
  std::vector<Mutation> out;
  const auto nodes = preorder(tmpl);
  std::map<std::string, int> uses;  // attribute captures: uses in the template and the constraints
  std::set<std::string> as_names;
  for (const rules::Node* n : nodes) {
    for (const auto& a : n->attrs)
      if (a.kind == rules::AttrExpr::Kind::Capture) ++uses[a.capture];
    if (n->kind == rules::Node::Kind::Op && !n->as_name.empty()) as_names.insert(n->as_name);
  }
  for (const rules::Constraint& c : where)
    for (const auto& a : c.args)
      if (a.kind == rules::Constraint::Arg::Kind::Capture && uses.count(a.name)) ++uses[a.name];
  auto informative = [&](const rules::AttrExpr& a) {
    return a.kind != rules::AttrExpr::Kind::Capture || uses[a.capture] > 1;
  };
  auto same_leaf = [](const rules::Node& x, const rules::Node& y) {
    return x.kind == rules::Node::Kind::Value && y.kind == rules::Node::Kind::Value && x.name == y.name;
  };
  for (size_t n = 0; n < nodes.size(); ++n) {
    const rules::Node& x = *nodes[n];
    const int at = static_cast<int>(n);
    if (pert == Perturb::Unshare && x.kind == rules::Node::Kind::Value && as_names.count(x.name))
      for (int fresh = 0; fresh < 2; ++fresh) out.push_back({.node = at, .other = fresh});
    if (x.kind != rules::Node::Kind::Op) continue;
    if (pert == Perturb::OpSwap)
      for (OpCode q : op_siblings(x.op)) out.push_back({.node = at, .op = q});
    if (pert == Perturb::AttrChange)
      for (size_t a = 0; a < x.attrs.size(); ++a) {
        if (!informative(x.attrs[a])) continue;
        // A literal word ({dir = lt}) becomes each other word of the schema in turn; anything else is
        // dropped (drawn).
        const AttrSpec* spec = find_attr_spec(x.op, x.attrs[a].name);
        if (x.attrs[a].kind == rules::AttrExpr::Kind::Word && spec && spec->kind == AttrKind::Word) {
          for (size_t w = 0; w < spec->words.size(); ++w)
            if (spec->words[w] != x.attrs[a].word) out.push_back({.node = at, .attr = static_cast<int>(a), .other = static_cast<int>(w)});
        } else {
          out.push_back({.node = at, .attr = static_cast<int>(a)});
        }
      }
    if (pert == Perturb::OperandSwap && !has_trait(x.op, OpTrait::Commutative))
      for (size_t a = 0; a < x.operands.size(); ++a)
        for (size_t b = a + 1; b < x.operands.size(); ++b)
          if (!same_leaf(*x.operands[a], *x.operands[b]))
            out.push_back({.node = at, .attr = static_cast<int>(a), .other = static_cast<int>(b)});
  }
  return out;
}

/// `n` with every capture renamed (`%x` -> `%x__u`, `$c` -> `$c__u`) and no `as` names: a copy of a
/// subterm whose leaves are new values.
void rename_captures(rules::Node& n) {
  if (n.kind == rules::Node::Kind::Value || n.kind == rules::Node::Kind::Const) n.name += "__u";
  n.as_name.clear();
  for (auto& o : n.operands) rename_captures(*o);
}

/// Applies `mu` (of kind `pert`) to a copy of `tmpl`.
std::unique_ptr<rules::Node> mutate(const rules::Node& tmpl, Perturb pert, const Mutation& mu) {
  auto out = clone(tmpl);
  auto nodes = preorder(*out);
  auto* node = const_cast<rules::Node*>(nodes[mu.node]);
  switch (pert) {
    case Perturb::OpSwap: node->op = mu.op; break;
    case Perturb::AttrChange:
      if (mu.other >= 0)
        node->attrs[mu.attr].word = std::string(find_attr_spec(node->op, node->attrs[mu.attr].name)->words[mu.other]);
      else
        node->attrs.erase(node->attrs.begin() + mu.attr);
      break;
    case Perturb::OperandSwap: std::swap(node->operands[mu.attr], node->operands[mu.other]); break;
    case Perturb::Unshare: {
      const rules::Node* def = nullptr;
      for (const rules::Node* x : nodes)
        if (x->kind == rules::Node::Kind::Op && x->as_name == node->name) def = x;
      if (!def) break;
      auto copy = clone(*def);
      copy->as_name.clear();
      if (mu.other == 1) rename_captures(*copy);
      *node = std::move(*copy);
      break;
    }
    default: break;
  }
  return out;
}

/// The near-miss kinds that apply to a template: Constraint only when it has constraints, each
/// mutation kind only when the template has such a mutation.
struct NearKinds {
  std::vector<Perturb> outside_kinds;  ///< the kinds built from outside the template (the near-miss sweep's)
  std::vector<Perturb> all() const {
    std::vector<Perturb> k = {Perturb::Splat, Perturb::SplitCapture, Perturb::ExtraUse};
    for (Perturb p : outside_kinds) k.push_back(p);
    return k;
  }
  const std::vector<Perturb>& outside() const { return outside_kinds; }
};

/// Every fourth instance of the main loop is a near miss, of each applicable kind in turn.
Perturb perturbation(int i, const NearKinds& nk) {
  if (i % 4 != 3) return Perturb::None;
  const auto kinds = nk.all();
  return kinds[(i / 4) % kinds.size()];
}

/// True for the near misses built from something other than the template.
bool outside_template(Perturb p) {
  return p == Perturb::Constraint || p == Perturb::OpSwap || p == Perturb::AttrChange || p == Perturb::OperandSwap ||
         p == Perturb::Unshare;
}
bool is_mutation(Perturb p) { return outside_template(p) && p != Perturb::Constraint; }

const char* perturb_name(Perturb p) {
  switch (p) {
    case Perturb::None: return "none";
    case Perturb::Splat: return "splat nudged";
    case Perturb::SplitCapture: return "repeated capture split";
    case Perturb::ExtraUse: return "extra use";
    case Perturb::Constraint: return "a constraint failing";
    case Perturb::OpSwap: return "op swapped";
    case Perturb::AttrChange: return "attribute changed";
    case Perturb::OperandSwap: return "operands swapped";
    case Perturb::Unshare: return "shared subterm copied";
  }
  return "?";
}



/// The instance's root: the instruction defining the function's first result.
InstId root_of(const Program& p) { return p.def_inst(p.operand(p.terminator(0), 0)); }

struct Attempt {
  Instance inst;
  bool faithful = false;  ///< unperturbed and matching the source and constraints (rule or template)
  /// Matching the source and constraints, perturbed or not (an extra use the template allows): an
  /// instance of the template. Only these count in the coverage classes and as the pattern having
  /// fired on its template; a C++ pattern firing only on near misses was once PROVED from them.
  bool matches = false;
};

/// What generation saw on unperturbed tries: for NOT EXERCISED's reason.
struct GenStats {
  int tries = 0, source_matched = 0, matched = 0;
  int64_t generated = 0;  ///< every make_instance call, for the directed tries' budget
};

/// The matchers of one template: the rule (or template-as-rule) with its constraints, and (rules only)
/// its source alone, to tell "the source never matched" from "the constraints never held".
struct Matchers {
  const rules::RulePattern* full = nullptr;
  const rules::RulePattern* source_only = nullptr;
  /// Per constraint k: the rule without constraint k (a Constraint near miss fails exactly that one).
  std::vector<const rules::RulePattern*> without;
  /// Per constraint k: the dtypes constraint k names (a Constraint near miss on it draws the others).
  std::vector<std::vector<DType>> names;
};

/// The extra fast-math flags of try `i`: a flags class asks for its flag (or none); otherwise a third
/// of the faithful instances carry random extra nnan/ninf/nsz flags.
uint8_t extra_flags(const Subject& s, const CoverageClass* target, int i, Perturb pert, std::mt19937_64& rng) {
  const uint8_t others = static_cast<uint8_t>(7 & ~s.assumes);
  if (target && target->flags == 0) return 0;
  // A joint "+F, V float" class asks for F alone: nnan or ninf beside nsz makes 1/0 UB in the source, which
  // hides a zero-sign bug behind it (a red team's nsz rule passed its aimed instances that way).
  if (target && target->flags > 0 && target->small_flagged) return static_cast<uint8_t>(target->flags);
  // A plain flag class: every other aimed try with the flag alone (nnan or ninf beside nsz can make the
  // source UB exactly where a zero-sign bug shows), the others with random extra nnan/ninf.
  if (target && target->flags > 0)
    return static_cast<uint8_t>(target->flags | (i % 2 == 0 ? 0 : std::uniform_int_distribution<int>(0, 7)(rng) & others & 3));
  // A rule fires in every function whose flags include its assumptions: a third of the instances
  // carry extra nnan/ninf/nsz flags (reassoc is outside the prover's scope: docs/verification.md).
  // (Faithful instances only: a near miss that returns an inner value under nsz asks the checker for
  // the source's inner zero-sign choices, which it leaves UNKNOWN.)
  if (i % 3 == 2 && pert == Perturb::None) return static_cast<uint8_t>(std::uniform_int_distribution<int>(1, 7)(rng));
  return 0;
}

/// Generates instance `i` of template `t`: up to 200 tries for a well-typed one; unperturbed
/// instances also retry until the rule (or the template and its constraints) matches, so a rule whose
/// constraints are rarely met still gets instances that fire. With a `target` coverage class the
/// generator is steered to it and a try counts only when the instance is of that class (else the first
/// faithful try is kept).
Attempt generate(const Subject& s, const Matchers& m, const ProveOptions& o, int i, int t, int rank, int dim,
                 Perturb pert, std::string* why, const CoveragePlan* plan = nullptr,
                 const CoverageClass* target = nullptr, GenStats* stats = nullptr, bool small_flagged = true,
                 int variant = -1, int root_dtype = -1) {
  // A near miss of the sweep aimed at a dtype: every node where the generator draws a dtype (the root,
  // a cast's or a compare's operands) steered there, for the first half of its tries. (The root alone
  // was not enough: a compare root is always i1, and code that went wrong on one operand dtype only
  // was PROVED.)
  Steer dtype_steer;
  if (root_dtype >= 0)
    dtype_steer.nodes.assign(2 * preorder(*s.templates[t]).size() + 16, NodeSteer{.dtype = root_dtype});
  std::mt19937_64 rng(mix(mix(o.seed, hash_str(s.name)), static_cast<uint64_t>(i)));
  Attempt best;
  const int lowest = plan && !plan->ranks.empty() ? plan->ranks[0] : 0;
  // (A near miss from outside the template: 50 tries. One that the draws rarely make, a dtype the
  // constraints exclude, shows up within them; one they cannot make, constraints that always hold,
  // should not cost 200 generations per near miss.)
  const int tries = outside_template(pert) ? 50 : 200;
  // The template's mutations of this kind, listed once (each try picks one).
  const std::vector<Mutation> muts =
      is_mutation(pert) ? mutations(*s.templates[t], pert,
                                    t < static_cast<int>(s.template_where.size()) ? s.template_where[t]
                                                                                  : std::vector<rules::Constraint>{})
                        : std::vector<Mutation>{};
  for (int k = 0; k < tries; ++k) {
    const uint8_t extra = extra_flags(s, target, i, pert, rng);
    // Flagged instances stay small (rank <= 1, or the lowest reachable rank; dims <= 2): UB queries
    // under nnan/ninf cost more, and nsz's zero-sign queries too (full dims for nsz alone cost the
    // library's proof 8 s of 44). Aimed at a flags class, rank and dims are the ones asked for (a
    // pattern may fire only at higher ranks or larger dims: concat(%x, %x, %x) needs an axis of 3).
    // (The sweep has no Z3 query: its flagged instances keep the full rank and dims, `small_flagged`.)
    const bool small = extra && small_flagged;
    // (A joint "+F, V float" class: small for the first half of the tries, then the full rank and dims,
    // for a pattern that fires only on larger shapes.)
    const bool capped = small && !(target && target->flags > 0 && !(target->small_flagged && k < tries / 2));
    InstanceOptions io{.rank = capped ? std::max(std::min(rank, 1), std::min(rank, lowest)) : rank,
                       .max_dim = capped ? std::min(dim, 2) : dim,
                       .perturb = pert,
                       .fastmath = static_cast<uint8_t>(s.assumes | extra),
                       .dtype_hint = s.dtype_hint,
                       // Directed for the first half of the tries, then random (a target the shapes
                       // cannot honour still leaves a faithful instance).
                       .steer = target && k < 100 ? &target->steer : nullptr,
                       // (None when aimed at a class: only an instance with input captures fires one.)
                       .leaf_variety = !target && (pert == Perturb::None || outside_template(pert))};
    const auto& tmpl = s.templates[t];
    // Constraint: constraint k (`variant`, else drawn) fails and every other holds; when k names
    // dtypes, half of the draws take the others. A mutation (OpSwap, AttrChange, OperandSwap, Unshare):
    // the template changed by one of its mutations (`variant` picks which, else the draw does). Each is
    // kept only when the instance does not match the template.
    std::unique_ptr<rules::Node> swapped;
    int failing = -1;
    if (outside_template(pert)) io.perturb = Perturb::None, io.steer = root_dtype >= 0 && k < tries / 2 ? &dtype_steer : nullptr;
    if (pert == Perturb::Constraint) {
      if (m.without.empty()) {
        *why = "the template has no constraint to fail";
        return best;
      }
      failing = variant >= 0 ? variant % static_cast<int>(m.without.size())
                             : std::uniform_int_distribution<int>(0, static_cast<int>(m.without.size()) - 1)(rng);
      io.dtype_hint.clear();
      for (int d = 0; d < kNumDTypes; ++d)
        if (!m.names[failing].empty() &&
            std::find(m.names[failing].begin(), m.names[failing].end(), static_cast<DType>(d)) == m.names[failing].end())
          io.dtype_hint.push_back(static_cast<DType>(d));
    }
    if (is_mutation(pert)) {
      if (muts.empty()) {
        *why = "the template has nothing to change for this near miss";
        return best;
      }
      const Mutation& mu = muts[variant >= 0 ? static_cast<size_t>(variant) % muts.size()
                                             : std::uniform_int_distribution<size_t>(0, muts.size() - 1)(rng)];
      swapped = mutate(*tmpl, pert, mu);
    }
    if (stats) ++stats->generated;
    Instance inst = make_instance(swapped ? *swapped : *tmpl, io, rng);
    // f64 under nnan/ninf: the UB queries bit-blast f64 division and time out; those instances keep the
    // rule's own flags (f16/bf16/f32 instances cover the extra flags) -- unless the instance is aimed at a
    // fast-math class: a rule whose only float root is f64 never had an f64 instance with an extra flag,
    // and one wrong under nsz there was PROVED on every seed (a red team, 2026-12-07). An instance keeping
    // only the rule's flags does not count for a flag class (classify reads the function's flags).
    if (inst.program && small && inst.dtype == "f64" && !(target && target->flags > 0))
      inst.program->body(inst.program->entry()).fastmath.bits = s.assumes;
    if (!inst.program) {
      *why = inst.why_not;
      continue;
    }
    // Faithful: nothing perturbed and the source and constraints match. A perturbed instance is a
    // near miss as generated; an unperturbed one that does not match is retried and kept as a near
    // miss when no try matches.
    const InstId root = root_of(*inst.program);
    const bool matches = !m.full || m.full->matches(*inst.program, root);
    if (pert == Perturb::Constraint)
      inst.perturbed = !matches && m.without[failing] && m.without[failing]->matches(*inst.program, root);
    if (is_mutation(pert)) inst.perturbed = !matches;
    if (stats && !inst.perturbed && !outside_template(pert)) {
      ++stats->tries;
      stats->matched += matches;
      stats->source_matched += matches || (m.source_only && m.source_only->matches(*inst.program, root));
    }
    const bool faithful = !inst.perturbed && matches;
    const bool on_target = !target || !plan || classify(*plan, inst).count(target->name);
    // (A near miss from outside the template takes a faithful instance only when no try made the near miss.)
    if ((faithful && on_target && !outside_template(pert)) || (inst.perturbed && (on_target || k >= 40))) {
      best.inst = std::move(inst);
      best.faithful = faithful;
      best.matches = matches;
      return best;
    }
    if (!best.inst.program || (faithful && !best.faithful)) {
      best.inst = std::move(inst);
      best.faithful = faithful;
      best.matches = matches;
    }
  }
  return best;
}

/// Total elements of the instance's inputs: the size shrinking minimises.
int64_t elements(const Program& p) {
  int64_t n = 0;
  for (ValueId v : p.body(p.entry()).params) n += p.type_of(v).num_elements();
  return n;
}

/// Looks for a smaller failing instance: ranks and dims from the smallest up, a few seeds each; returns
/// the first that fails and is smaller (fewer input elements) than the one found.
std::optional<std::pair<std::pair<Attempt, Checked>, std::string>> shrink(const Subject& s, const Matchers& m, int tmpl,
                                                                         const FrozenPatternSet& one, const ProveOptions& o,
                                                                         int rank, Perturb pert, int64_t size) {
  ProveOptions so = o;  // each candidate's check: a smaller Z3 budget (a shrink only picks what is shown)
  so.timeout_ms = std::min(o.timeout_ms, o.shrink_timeout_ms);
  int checks = 0;
  for (int d = 0; d <= o.max_dim; ++d)
    for (int r = 0; r <= rank; ++r)
      for (int t = 0; t < 12; ++t) {
        std::string why;
        const int i = 100000 + (d * 16 + r) * 64 + t;  // instance ids past the main loop's
        Attempt a = generate(s, m, o, i, tmpl, r, d, pert, &why);
        if (!a.inst.program || elements(*a.inst.program) >= size) continue;
        if (checks++ == o.shrink_checks) return std::nullopt;
        Checked c = check_instance(*a.inst.program, one, so, mix(o.seed, i));
        if (c.outcome != Outcome::Refuted) continue;
        std::string how = "root rank " + std::to_string(r) + ", dims <= " + std::to_string(d) + ", " +
                          std::to_string(elements(*a.inst.program)) + " input elements instead of " + std::to_string(size);
        return std::make_pair(std::make_pair(std::move(a), std::move(c)), how);
      }
  return std::nullopt;
}

/// A copy of `n`.
std::unique_ptr<rules::Node> clone(const rules::Node& n) {
  auto c = std::make_unique<rules::Node>();
  c->kind = n.kind, c->name = n.name, c->op = n.op, c->attrs = n.attrs, c->number = n.number;
  c->type_capture = n.type_capture, c->type = n.type, c->as_name = n.as_name, c->helper = n.helper;
  c->helper_args = n.helper_args, c->loc = n.loc;
  for (const auto& o : n.operands) c->operands.push_back(clone(*o));
  return c;
}

/// Rule `r` without its constraints: its matcher tells whether the source alone matched.
std::shared_ptr<const rules::RuleFile> source_only(const rules::Rule& r) {
  auto f = std::make_shared<rules::RuleFile>();
  rules::Rule x;
  x.name = r.name + "__source_only";
  x.source = clone(*r.source);
  x.result = clone(*r.result);
  x.assumes = r.assumes;
  x.bounded = true;
  f->rules.push_back(std::move(x));
  return f;
}

/// Rule `r` without its constraint `k`: its matcher tells whether everything but constraint k holds.
std::shared_ptr<const rules::RuleFile> without_constraint(const rules::Rule& r, size_t k) {
  auto f = std::make_shared<rules::RuleFile>();
  rules::Rule x;
  x.name = r.name + "__without_" + std::to_string(k);
  x.source = clone(*r.source);
  x.result = clone(*r.result);
  x.assumes = r.assumes;
  x.bounded = true;
  for (size_t j = 0; j < r.where.size(); ++j)
    if (j != k) x.where.push_back(r.where[j]);
  f->rules.push_back(std::move(x));
  return f;
}

/// The dtypes a rule's constraints name: dtype_is words and the classes of is_float, is_int, ...
std::vector<DType> dtype_hint(const std::vector<rules::Constraint>& where) {
  std::vector<DType> out;
  auto add_if = [&](auto pred) {
    for (int d = 0; d < kNumDTypes; ++d)
      if (pred(static_cast<DType>(d)) && std::find(out.begin(), out.end(), static_cast<DType>(d)) == out.end())
        out.push_back(static_cast<DType>(d));
  };
  for (const rules::Constraint& c : where) {
    if (c.negated) continue;
    if (c.pred == "dtype_is")
      for (const auto& a : c.args)
        if (auto d = parse_dtype(a.name)) add_if([&](DType x) { return x == *d; });
    if (c.pred == "is_float") add_if([](DType x) { return is_float(x); });
    if (c.pred == "is_int") add_if([](DType x) { return is_integer(x); });
    if (c.pred == "is_signed") add_if([](DType x) { return is_signed_int(x); });
    if (c.pred == "is_unsigned") add_if([](DType x) { return is_integer(x) && !is_signed_int(x); });
    if (c.pred == "is_bool") add_if([](DType x) { return x == DType::I1; });
  }
  return out;
}

}  // namespace

const char* status_word(Status s) {
  switch (s) {
    case Status::Proved: return "PROVED";
    case Status::Tested: return "TESTED";
    case Status::Refuted: return "REFUTED";
    case Status::NotExercised: return "NOT EXERCISED";
    case Status::Error: return "ERROR";
    case Status::Unknown: return "UNKNOWN";
    case Status::Partial: return "PARTIAL";
    case Status::LicensedAFn: return "LICENSED (afn)";
    case Status::LicensedReassoc: return "LICENSED (reassoc)";
  }
  return "?";
}

int Report::classes_reachable() const {
  return static_cast<int>(std::count_if(coverage.begin(), coverage.end(), [](const ClassCoverage& c) { return c.reachable; }));
}
int Report::classes_fired() const {
  return static_cast<int>(
      std::count_if(coverage.begin(), coverage.end(), [](const ClassCoverage& c) { return c.reachable && c.fired > 0; }));
}
std::vector<std::string> Report::classes_missed() const {
  std::vector<std::string> out;
  for (const auto& c : coverage)
    if (c.reachable && c.fired == 0) out.push_back(c.name);
  return out;
}
std::string Report::fired_ranks() const {
  // "rank N" classes (of any template) that fired.
  std::set<int> r;
  for (const auto& c : coverage) {
    const size_t at = c.name.find("rank ");
    if (c.fired > 0 && at != std::string::npos && (at == 0 || c.name[at - 1] == ' ') &&
        c.name.find_first_not_of("0123456789", at + 5) == std::string::npos)
      r.insert(std::stoi(c.name.substr(at + 5)));
  }
  if (r.empty()) return "-";
  const bool contiguous = *r.rbegin() - *r.begin() + 1 == static_cast<int>(r.size());
  if (contiguous) return r.size() == 1 ? std::to_string(*r.begin()) : std::to_string(*r.begin()) + "-" + std::to_string(*r.rbegin());
  std::string s;
  for (int x : r) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string Report::scope() const {
  std::string d;
  for (const std::string& x : dtypes) d += (d.empty() ? "" : ",") + x;
  return std::to_string(fired) + " fired of " + std::to_string(instances) + " instances (root ranks " + fired_ranks() +
         " fired; " + std::to_string(shapes.size()) + " root shapes; dtypes " + (d.empty() ? "-" : d) + "; " +
         std::to_string(classes_fired()) + " of " + std::to_string(classes_reachable()) + " reachable coverage classes fired)";
}

namespace {
Report prove_exactly(const Subject& s, const Populate& populate, const ProveOptions& o);
}  // namespace

Report prove_pattern(const Subject& s, const Populate& populate, const ProveOptions& o) {
  Report rep = prove_exactly(s, populate, o);
  // A rule the exact check does not prove may still be licensed by afn or reassoc over the reals.
  const bool open = rep.status == Status::Refuted || rep.status == Status::Unknown || rep.status == Status::Tested ||
                    rep.status == Status::Partial;
  // A rewrite that breaks the program (its contract, the verifier) or cannot be compared is never licensed.
  const bool broken = rep.detail.find("the pattern broke the program") != std::string::npos ||
                      rep.detail.find("cannot be compared with the instance") != std::string::npos;
  if (!open || broken || !s.rule) return rep;
  std::string why;
  const auto t0 = clock::now();
  if (const std::optional<Status> l = licence_of(*s.rule, o.timeout_ms, &why)) {
    rep.detail = std::string(status_word(*l)) + ": " + why + "; the exact verdict is " + status_word(rep.status) +
                 ":\n" + rep.detail;
    rep.status = *l;
  }
  rep.ms += ms_since(t0);
  return rep;
}

namespace {
Report prove_exactly(const Subject& s, const Populate& populate, const ProveOptions& o) {
  const auto start = clock::now();
  Report rep;
  rep.name = s.name;
  rep.origin = s.origin;
  if (!s.error.empty() || s.templates.empty()) {
    rep.status = Status::Error;
    rep.detail = s.error.empty() ? "no instance template: the prover cannot generate what it must handle" : s.error;
    return rep;
  }
  FrozenPatternSet one = single(populate, s.name, s.origin);
  if (one.size() != 1) {
    rep.status = Status::Error;
    rep.detail = one.size() == 0 ? "no pattern of that name" : "several patterns share this name and origin";
    return rep;
  }
  const rules::RulePattern* rule = as_rule(one);
  const int T = static_cast<int>(s.templates.size());
  // The matchers of each template: the rule itself (and its source alone), or a C++ template as a rule.
  std::vector<FrozenPatternSet> keep;
  std::vector<Matchers> matchers(T);
  auto compile = [&](std::shared_ptr<const rules::RuleFile> f) -> const rules::RulePattern* {
    if (!f || rules::check_rule_file(*f)) return nullptr;
    PatternSet set;
    rules::add_rule_patterns(set, f);
    keep.push_back(std::move(set).freeze(PatternFilter{}));
    return keep.back().size() == 1 ? dynamic_cast<const rules::RulePattern*>(keep.back().all()[0]) : nullptr;
  };
  for (int t = 0; t < T; ++t) {
    if (rule) {
      matchers[t].full = rule;
      matchers[t].source_only = compile(source_only(rule->rule()));
    } else if (t < static_cast<int>(s.template_rules.size())) {
      matchers[t].full = compile(s.template_rules[t]);
      // A template is checked when it loads (rules::load_template_text); one whose matcher cannot be
      // built would make every instance count as matching, so it is an ERROR, never a pass.
      if (!matchers[t].full) {
        rep.status = Status::Error;
        rep.detail = "internal error: template " + std::to_string(t + 1) + " of " + s.name + " has no matcher\n";
        return rep;
      }
      if (!matchers[t].full->rule().where.empty())
        matchers[t].source_only = compile(source_only(matchers[t].full->rule()));
    }
    // The matchers without each constraint (for the Constraint near misses).
    if (matchers[t].full) {
      const rules::Rule& r = matchers[t].full->rule();
      for (size_t k = 0; k < r.where.size(); ++k) {
        matchers[t].without.push_back(compile(without_constraint(r, k)));
        matchers[t].names.push_back(dtype_hint({r.where[k]}));
      }
    }
  }
  auto where_of = [&](int t) {
    return t < static_cast<int>(s.template_where.size()) ? s.template_where[t] : std::vector<rules::Constraint>{};
  };
  // The near-miss kinds of each template.
  std::vector<NearKinds> near_kinds(T);
  for (int t = 0; t < T; ++t)
  {
    if (!matchers[t].without.empty()) near_kinds[t].outside_kinds.push_back(Perturb::Constraint);
    for (Perturb p : {Perturb::OpSwap, Perturb::AttrChange, Perturb::OperandSwap, Perturb::Unshare})
      if (!mutations(*s.templates[t], p, where_of(t)).empty()) near_kinds[t].outside_kinds.push_back(p);
  }
  // The coverage classes of each template.
  std::vector<CoveragePlan> plans;
  for (int t = 0; t < T; ++t)
    plans.push_back(plan_coverage(*s.templates[t], t < static_cast<int>(s.template_where.size()) ? s.template_where[t]
                                                                                               : std::vector<rules::Constraint>{},
                                  s.assumes, o.max_rank, o.max_dim, T > 1 ? "[template " + std::to_string(t + 1) + "] " : ""));
  std::map<std::string, int> fired_classes;
  std::vector<std::vector<int>> directed(T);
  for (int t = 0; t < T; ++t) directed[t].assign(plans[t].classes.size(), 0);
  // Whether class c fired as often as the prover aims at it (CoverageClass::aim; once for most).
  auto aimed_enough = [&](const CoverageClass& c) {
    const auto it = fired_classes.find(c.name);
    return it != fired_classes.end() && it->second >= c.aim;
  };
  // The next class to aim at in template t: a reachable class that has not fired (as often as it is
  // aimed at), tried least often.
  auto target = [&](int t, int i) -> int {
    int best = -1;
    const int n = static_cast<int>(plans[t].classes.size());
    for (int k = 0; k < n; ++k) {
      const int c = (k + i) % n;
      const CoverageClass& cc = plans[t].classes[c];
      if (!cc.reachable || aimed_enough(cc)) continue;
      if (best < 0 || directed[t][c] < directed[t][best]) best = c;
    }
    return best;
  };
  auto pick_rank = [&](const CoveragePlan& p, const CoverageClass* c, int i) {
    if (c && c->rank >= 0) return c->rank;
    std::vector<int> ok;
    for (int r : p.ranks)
      if (!c || r >= c->min_rank) ok.push_back(r);
    // (i + i / 4): the near misses (every fourth instance) get every rank too.
    return ok.empty() ? i % (o.max_rank + 1) : ok[(i + i / 4) % ok.size()];
  };

  std::string why;
  std::vector<std::string> tested, unknown;
  GenStats stats;
  int fired_matching = 0;  // fired instances that match the template (Attempt::matches)
  bool refuted = false;
  // Checks one generated instance; false when it refuted the pattern (the report is then complete).
  auto run = [&](Attempt& a, int i, int t, int rank, Perturb pert) {
    ++rep.instances;
    const bool near = !a.faithful;
    rep.near_misses += near;
    Checked c = check_instance(*a.inst.program, one, o, mix(o.seed, i));
    rep.solver_calls += c.solver_calls;
    if (c.outcome == Outcome::NotFired) return true;
    ++rep.fired;
    rep.near_fired += near;
    rep.shapes.insert(a.inst.shape);
    rep.dtypes.insert(a.inst.dtype);
    if (a.matches) {
      ++fired_matching;
      // Only an instance whose captures are inputs fires classes: a constant or abs(x) capture can make
      // a wrong rule right on it (Instance::varied_leaves).
      if (!a.inst.varied_leaves)
        for (const std::string& name : classify(plans[t], a.inst)) ++fired_classes[name];
    }
    if (c.outcome == Outcome::Proved) ++rep.proved;
    if (c.outcome == Outcome::Unknown) {
      ++rep.unknown;
      if (unknown.size() < 3) unknown.push_back(a.inst.shape + ": " + c.detail);
    }
    if (c.outcome == Outcome::Tested) {
      ++rep.tested;
      if (tested.size() < 3) tested.push_back(a.inst.shape + ": " + c.detail);
    }
    if (c.outcome == Outcome::Refuted) {
      rep.status = Status::Refuted;
      std::string head = "instance " + std::to_string(i) + (near ? std::string(" (near miss: ") + perturb_name(pert) + ")" : "");
      if (auto smaller = o.shrink ? shrink(s, matchers[t], t, one, o, rank, pert, elements(*a.inst.program)) : std::nullopt) {
        head += ", shrunk to the smallest failing instance found (" + smaller->second + ")";
        a = std::move(smaller->first.first);
        c = std::move(smaller->first.second);
      }
      rep.detail = head + ":\n" + print_program(*a.inst.program) + "rewritten by " + s.name + " to:\n" +
                   print_program(*c.rewritten) + c.detail;
      refuted = true;
      return false;
    }
    return true;
  };
  // The main loop: each instance aimed at a class that has not fired yet (random where none is left).
  for (int i = 0; i < o.instances && !refuted; ++i) {
    const int t = i % T;
    const Perturb pert = perturbation(i, near_kinds[t]);
    // Near misses are not steered: they keep the random draws (mostly non-empty tensors), where a
    // perturbation that the pattern must notice shows up.
    const int ci = pert == Perturb::None ? target(t, i) : -1;
    const CoverageClass* c = ci >= 0 ? &plans[t].classes[ci] : nullptr;
    if (ci >= 0) ++directed[t][ci];
    const int rank = pick_rank(plans[t], c, i);
    Attempt a = generate(s, matchers[t], o, i, t, rank, o.max_dim, pert, &why, &plans[t], c, &stats);
    if (!a.inst.program) continue;
    run(a, i, t, rank, pert);
  }
  // Directed tries for every reachable class still not fired: instances of that class only. None when
  // the main loop's thousands of tries built no well-typed unperturbed instance at all: the result is an
  // ERROR either way, and the directed tries (up to 192 generations of 200 tries per class) took minutes
  // on such a rule (the prover fuzzer's smoke run found one at 310 s of CPU under ASan).
  const bool none_built = stats.tries == 0;
  // When no unperturbed instance of the main loop matched the rule (its constraints never held), one
  // generation per directed try instead of 16: the tries then mostly build instances that do not
  // match either, and a rule whose constraints can never hold (`not same_shape($T, $T)`) took 140 s
  // of CPU under ASan in the prover fuzzer's smoke run. Fewer tries can only leave more unfired.
  const int generations_per_try = stats.matched > 0 ? 16 : 1;
  // A budget of generations for the main loop and the directed tries together: the library's patterns
  // use at most about 8,000; a fuzzed rule whose constraints were rarely met used 2 million (20 s, and
  // 272 s of CPU under ASan) to leave most classes unfired anyway. Running out leaves classes unfired:
  // PARTIAL, never a pass.
  constexpr int64_t kGenerationBudget = 200000;
  bool budget_hit = false;
  for (int t = 0; t < T && !refuted && !none_built; ++t)
    for (size_t ci = 0; ci < plans[t].classes.size() && !refuted; ++ci) {
      const CoverageClass& c = plans[t].classes[ci];
      // Generation is cheap and an instance of another class is never run: up to 16 generation
      // attempts per directed try (a class needing a deep operand rank, e.g. a 5-cycle in a dot
      // operand, is rare among the shapes that fit).
      for (int k = 0, ran = 0; k < o.class_tries * generations_per_try && ran < o.class_tries * c.aim && c.reachable && !aimed_enough(c) && !refuted; ++k) {
        if (stats.generated >= kGenerationBudget) {
          budget_hit = true;
          break;
        }
        const int i = 200000 + (t * 4096 + static_cast<int>(ci)) * 1024 + k;  // ids past the main loop's and shrink's
        const int rank = pick_rank(plans[t], &c, k);
        Attempt a = generate(s, matchers[t], o, i, t, rank, o.max_dim, Perturb::None, &why, &plans[t], &c, &stats);
        if (!a.inst.program || !a.faithful || !classify(plans[t], a.inst).count(c.name)) continue;
        ++ran;
        run(a, i, t, rank, Perturb::None);
      }
    }
  std::string contradiction;
  for (const auto& p : plans)
    for (const auto& c : p.classes) {
      auto it = fired_classes.find(c.name);
      rep.coverage.push_back({c.name, c.reachable, c.why, it == fired_classes.end() ? 0 : it->second, c.hint});
      if (!c.reachable && it != fired_classes.end() && contradiction.empty())
        contradiction = c.name + " fired although the coverage analysis says it is unreachable (" + c.why + ")";
    }
  rep.ms = ms_since(start);
  if (refuted) return rep;
  // A class claimed unreachable that fired: the reachability rule is wrong, and the classes it removed
  // from the requirement cannot be trusted either. A bug in ptir, never a pass.
  if (!contradiction.empty()) {
    rep.status = Status::Error;
    rep.detail = "internal error: " + contradiction + "\n";
    return rep;
  }
  // The sweep (ProveOptions::sweep_factor): more instances of the same kind, each run through the real
  // pattern and compared by the interpreter only. Z3 proves the sampled instances exactly, but a wrong
  // rule may fire rarely or break only some shapes (a result type that does not fit, a helper's
  // attribute out of bounds): the prover fuzzer found such rules PROVED on 16 sampled instances.
  if (rep.fired > 0 && o.sweep_factor > 0) {
    const int n = o.sweep_factor * o.instances;
    for (int k = 0; k < n; ++k) {
      const int i = 200000 + k;  // instance ids past the main loop's and the shrinker's
      std::string w;
      // Each template in turn, at each root rank its coverage plan finds reachable.
      const int t = k % T;
      const auto& ranks = plans[t].ranks;
      const int rank = ranks.empty() ? k % (o.max_rank + 1) : ranks[(k / T) % ranks.size()];
      Attempt a = generate(s, matchers[t], o, i, t, rank, o.max_dim, Perturb::None, &w, &plans[t], nullptr, nullptr,
                           /*small_flagged=*/false);
      if (!a.inst.program) continue;
      // The instance as generated, then the same instance in a function that has nnan and ninf too: a
      // rule fires in every function whose flags include its assumptions, and a target that computes
      // elements no output reads (sqrt before a broadcast to an empty result, before a slice) can have
      // UB there that the source does not have. The flagged instances of the main loop are few and small,
      // so an instance of that shape with those flags can be missing there (a rule from StableHLO was
      // once PROVED that way); the interpreter decides it on the same inputs here.
      std::string why;
      std::optional<Program> src_shown, tgt_shown;
      for (int pass = 0; pass < 2 && why.empty(); ++pass) {
        Program src(*a.inst.program);
        if (pass == 1) {
          FastMath& fm = src.body(src.entry()).fastmath;
          const FastMath before = fm;
          fm.set(FastMathFlag::NNaN), fm.set(FastMathFlag::NInf);
          if (fm.bits == before.bits) break;
        }
        Program tgt(src);
        const Applied g = apply_once(tgt, one);
        if (g.error.empty() && !g.changed) continue;
        why = g.error;
        if (why.empty()) {
          bool refuted = false;
          const std::string d = campaign(src, tgt, o.sweep_runs, mix(o.seed, i), &refuted);
          if (refuted) why = d;
          // Too large to run: the sweep could not check it, so the row cannot be PROVED.
          if (!refuted && d.rfind("the source and the rewritten program compute", 0) == 0) {
            ++rep.unknown;
            if (unknown.size() < 3) unknown.push_back("sweep instance " + std::to_string(k) + ": " + d);
          }
        }
        if (!why.empty()) src_shown.emplace(std::move(src)), tgt_shown.emplace(std::move(tgt));
      }
      if (why.empty()) continue;
      rep.status = Status::Refuted;
      rep.detail = "sweep instance " + std::to_string(k) + " (the " + std::to_string(rep.fired) +
                   " sampled instances it fired on were checked by Z3; this one by the interpreter):\n" +
                   print_program(*src_shown) + "rewritten by " + s.name + " to:\n" + print_program(*tgt_shown) + why;
      rep.ms = ms_since(start);
      return rep;
    }
    // The near-miss sweep: near misses built from outside the template, per template `instances` / T
    // + 1 shared among the kinds that apply (a constraint failing, an op swapped for a sibling, an
    // attribute changed, operands swapped, a shared subterm copied), but every mutation made at least
    // once, and as long as a kind has at most 96 instances, every mutation at each root dtype in turn
    // (steered there; code can be wrong outside its template on one dtype only). Each is run through the
    // real pattern. A C++ pattern can fire outside the template it declares (on integers where the
    // template says is_float, on neg(abs(x)) where it says neg(neg(x))); where it fires, the instance is
    // checked like any other (Z3, then the interpreter campaign), so a wrong rewrite there is REFUTED
    // and an undecided one leaves the verdict UNKNOWN.
    for (int t = 0; t < T && !refuted; ++t) {
      const std::vector<Perturb> kinds = near_kinds[t].outside();
      if (kinds.empty()) continue;
      const int share = (o.instances / T + 1 + static_cast<int>(kinds.size()) - 1) / static_cast<int>(kinds.size());
      for (size_t kind = 0; kind < kinds.size() && !refuted; ++kind) {
        const Perturb pert = kinds[kind];
        // Every mutation at least once; each constraint failing at least four times (its near misses
        // are drawn, not built).
        const int each = pert == Perturb::Constraint ? 4 * static_cast<int>(matchers[t].without.size())
                                                     : static_cast<int>(mutations(*s.templates[t], pert, where_of(t)).size());
        const int reps = std::clamp(96 / std::max(each, 1), 1, kNumDTypes);
        const int n = std::max(share, each * reps);
        for (int k = 0; k < n && !refuted; ++k) {
          const int i = 300000 + (t * 8 + static_cast<int>(kind)) * 4096 + k;  // ids past the sweep's
          const auto& ranks = plans[t].ranks;
          const int rank = ranks.empty() ? k % (o.max_rank + 1) : ranks[(k / 2) % ranks.size()];
          std::string w;
          Attempt a = generate(s, matchers[t], o, i, t, rank, o.max_dim, pert, &w, &plans[t], nullptr, nullptr,
                               /*small_flagged=*/true, /*variant=*/k,
                               /*root_dtype=*/reps > 1 ? (k / std::max(each, 1)) % kNumDTypes : -1);
          if (!a.inst.program || a.faithful) continue;
          run(a, i, t, rank, pert);
        }
      }
    }
    if (refuted) {
      rep.ms = ms_since(start);
      return rep;
    }
  }
  if (fired_matching == 0) {
    // No instance at all is an ERROR (the generator could not build one), unless the coverage
    // analysis shows none can exist within the bounds (a literal rank-4 perm at --max-rank 3): that is
    // NOT EXERCISED, with the reason.
    const bool impossible = std::all_of(plans.begin(), plans.end(), [](const CoveragePlan& p) { return !p.unreachable.empty(); });
    rep.status = rep.instances == 0 && !impossible ? Status::Error : Status::NotExercised;
    if (rep.instances == 0 && !impossible) {
      rep.detail = "no well-typed instance could be generated (" + why + ")";
    } else {
      rep.detail = rep.fired == 0 ? "the pattern never fired on " + std::to_string(rep.instances) + " instances"
                                  : "the pattern never fired on an instance of its template: it fired only on " +
                                        std::to_string(rep.fired) + " near misses (each checked) of " +
                                        std::to_string(rep.instances) + " instances";
      std::string none;
      for (const auto& p : plans)
        if (!p.unreachable.empty()) none += (none.empty() ? "" : "; ") + p.prefix + p.unreachable;
      if (!none.empty()) {
        rep.detail += ": no instance of it can exist within the bounds: " + none;
      } else if (stats.tries > 0) {
        rep.detail += ": of " + std::to_string(stats.tries) + " unperturbed instances generated, ";
        if (rule || std::any_of(matchers.begin(), matchers.end(), [](const Matchers& m) { return m.source_only; }))
          rep.detail += "the source matched " + std::to_string(stats.source_matched) + " and the constraints held on " +
                        std::to_string(stats.matched);
        else
          rep.detail += std::to_string(stats.matched) + " matched the template";
        rep.detail += stats.matched == 0 ? (stats.source_matched > 0 ? " (the constraints never held)" : " (the source never matched)")
                                         : " (it matched, but the rewrite never applied)";
        std::set<std::string> hints;
        for (const auto& p : plans)
          for (const auto& c : p.classes)
            if (c.reachable && !c.hint.empty()) hints.insert(p.prefix + c.hint);
        for (const auto& h : hints) rep.detail += "; " + h;
      }
    }
    rep.detail += "\n";
    return rep;
  }
  const std::vector<std::string> missed = rep.classes_missed();
  if (rep.unknown > 0) {
    rep.status = Status::Unknown;
    for (const std::string& t : unknown) rep.detail += t + "\n";
  } else if (!missed.empty()) {
    rep.status = Status::Partial;
    rep.detail = std::to_string(missed.size()) + " reachable coverage class" + (missed.size() == 1 ? "" : "es") +
                 " never fired (after " + std::to_string(o.class_tries) + " directed tries each): ";
    for (size_t k = 0; k < missed.size(); ++k) rep.detail += (k ? ", " : "") + missed[k];
    rep.detail += "\n";
    if (budget_hit)
      rep.detail += "(the directed tries stopped at the budget of " + std::to_string(kGenerationBudget) +
                    " generated instances: the classes are rare among the instances the bounds allow)\n";
    for (const auto& c : rep.coverage)
      if (c.reachable && c.fired == 0 && !c.hint.empty()) rep.detail += c.name + ": " + c.hint + "\n";
    for (const std::string& t : tested) rep.detail += "TESTED " + t + "\n";
  } else if (rep.tested > 0) {
    rep.status = Status::Tested;
    for (const std::string& t : tested) rep.detail += t + "\n";
  } else {
    rep.status = Status::Proved;
  }
  return rep;
}

}  // namespace

allshape::Result prove_pattern_all_shapes(const Subject& s, const Populate& populate, const ProveOptions& o,
                                          const allshape::Options& ao) {
  allshape::Result res;
  if (!s.rule) {
    res.verdict = allshape::Verdict::BoundedOnly;
    res.why = "a C++ pattern: there is no rule text to prove for all shapes (bounded proof only)";
    return res;
  }
  FrozenPatternSet one = single(populate, s.name, s.origin);
  if (one.size() != 1) {
    res.verdict = allshape::Verdict::Unknown;
    res.why = one.size() == 0 ? "no pattern of that name" : "several patterns share this name and origin";
    return res;
  }
  uint64_t n = 0;
  auto replay = [&](const Program& inst) {
    allshape::Replay r;
    Checked c = check_instance(inst, one, o, mix(o.seed, 900000 + n++));
    r.fired = c.outcome != Outcome::NotFired;
    r.refuted = c.outcome == Outcome::Refuted;
    if (r.fired && c.rewritten) r.detail = "rewritten by " + s.name + " to:\n" + print_program(*c.rewritten) + c.detail;
    return r;
  };
  auto canary = [&](const Program& inst, int runs) {
    allshape::Replay r;
    Program tgt(inst);
    const Applied g = apply_once(tgt, one);  // one application, contract checked, as in check_instance
    if (!g.error.empty()) {
      r.fired = r.refuted = true;
      r.detail = g.error;
      return r;
    }
    if (!g.changed) return r;
    r.fired = true;
    bool refuted = false;
    (void)campaign(inst, tgt, runs, mix(o.seed, 700000 + n++), &refuted);
    r.refuted = refuted;
    if (refuted) r.detail = "rewritten to:\n" + print_program(tgt);
    return r;
  };
  allshape::Result out = allshape::prove_all_shapes(*s.rule, replay, canary, ao);
  // Out of memory is Z3's process-wide cap (or the process's): the other jobs' terms count, so the
  // outcome depends on what ran beside it (verify/smt/solver.h, nondeterministic events).
  if (out.verdict == allshape::Verdict::Unknown && out.why.find("out of memory") != std::string::npos)
    smt::note_nondeterministic_event();
  return out;
}

std::vector<Subject> subjects_of(const Populate& populate,
                                 const std::vector<std::pair<std::string, std::string>>& cpp_templates) {
  PatternSet set;
  populate(set);
  std::vector<Subject> out;
  for (const auto& p : set.patterns()) {
    Subject s;
    s.name = std::string(p->debug_name());
    s.origin = std::string(p->origin());
    if (const auto* r = dynamic_cast<const rules::RulePattern*>(p.get())) {
      s.templates.push_back(std::shared_ptr<const rules::Node>(r->file(), r->rule().source.get()));
      s.template_where.push_back(r->rule().where);
      s.rule = std::shared_ptr<const rules::Rule>(r->file(), &r->rule());
      s.rule_file = r->file();
      s.assumes = r->rule().assumes;
      s.dtype_hint = dtype_hint(r->rule().where);
    } else {
      for (const auto& [name, text] : cpp_templates) {
        if (name != s.name) continue;
        auto parsed = rules::load_template_text(text, "template of " + name);
        if (auto* e = std::get_if<rules::RuleError>(&parsed)) {
          s.error = e->format();
          break;
        }
        auto file = std::make_shared<rules::RuleFile>(std::move(std::get<rules::RuleFile>(parsed)));
        s.templates.push_back(std::shared_ptr<const rules::Node>(file, file->rules[0].source.get()));
        s.template_where.push_back(file->rules[0].where);
        for (DType d : dtype_hint(file->rules[0].where))
          if (std::find(s.dtype_hint.begin(), s.dtype_hint.end(), d) == s.dtype_hint.end()) s.dtype_hint.push_back(d);
        s.template_rules.push_back(file);
      }
      if (s.templates.empty() && s.error.empty())
        s.error = "C++ pattern without instance templates: declare the DAGs it must handle";
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ptir::prove
