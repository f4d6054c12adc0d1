// ExpensiveChecks: fingerprints, verification after each mutation, interpreter replay of each rewrite.
#include "rewriter/checks.h"

#include <algorithm>

#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/describe.h"

namespace ptir {
namespace {

/// The edge values of a dtype, as bit patterns, most telling first.
std::vector<uint64_t> edge_values(DType t) {
  if (t == DType::I1) return {0, 1};
  if (is_float(t)) {
    const DTypeInfo& d = dtype_info(t);
    uint64_t s = sign_mask(t), inf = float_inf(t, false);
    uint64_t max_sub = (uint64_t{1} << d.frac_bits) - 1;
    return {s,                 // -0.0
            0,                 // +0.0
            canonical_nan(t),  // NaN
            inf,               // +inf
            inf | s,           // -inf
            double_to_float(t, 1.0),
            double_to_float(t, -1.0),
            1,                 // smallest subnormal
            max_sub | s,       // largest subnormal, negative
            inf - 1,           // largest finite
            (inf - 1) | s};
  }
  uint64_t mask = bits_mask(t);
  uint64_t min = static_cast<uint64_t>(int_min(t)) & mask, max = int_max_bits(t);
  return {0, 1, mask /* -1, or MAX for unsigned */, min, max, 2};
}

std::string describe_inputs(const Program& p, BodyId b, const std::vector<Tensor>& in) {
  std::string s;
  const Body& body = p.body(b);
  for (size_t k = 0; k < in.size(); ++k) {
    std::string_view n = k < body.params.size() ? p.name(body.params[k]) : std::string_view();
    s += "\n    %" + (n.empty() ? "arg" + std::to_string(k) : std::string(n)) + " = " + print_literal(in[k]);
  }
  return s.empty() ? "\n    (no parameters)" : s;
}

std::string body_label(const Program& p, BodyId b) {
  return (p.body(b).is_region ? "^" : "@") + p.body(b).name;
}

std::string describe_run(const RunResult& r, size_t k) {
  if (r.status != RunStatus::Ok) return "no result: " + r.message;
  return k < r.results.size() ? print_literal(r.results[k]) : "(missing)";
}

}  // namespace

Tensor edge_tensor(const TensorType& t, uint64_t rotation) {
  Tensor out(t);
  std::vector<uint64_t> vals = edge_values(t.dtype);
  for (int64_t k = 0, n = out.size(); k < n; ++k) out.set_bits(k, vals[(k + rotation) % vals.size()]);
  return out;
}

ExpensiveChecks::ExpensiveChecks(ProgramRewriter& rw, CheckOptions opts) : rw_(rw), opts_(std::move(opts)) {}
ExpensiveChecks::~ExpensiveChecks() = default;

void ExpensiveChecks::fail(std::string message) {
  if (!report_.empty()) return;
  report_ = "expensive checks: " + message;
  rw_.report_error(report_);
}

void ExpensiveChecks::touch(InstId i) {
  BodyId b = rw_.body_of(i);
  if (std::find(touched_.begin(), touched_.end(), b) == touched_.end()) touched_.push_back(b);
}

void ExpensiveChecks::verify_one(InstId i, const char* what) {
  touch(i);
  if (!opts_.verify || failed()) return;
  std::string err = verify_inst(rw_.program(), i);
  if (!err.empty())
    fail("instruction " + std::string(what) + " by '" + pattern_ + "' does not verify: " + err + "\n  " +
         describe_inst(rw_.program(), i));
}

void ExpensiveChecks::notify_inserted(InstId i) { verify_one(i, "inserted"); }
void ExpensiveChecks::notify_modified(InstId i) { verify_one(i, "modified"); }
void ExpensiveChecks::notify_erased(InstId i) { touch(i); }

void ExpensiveChecks::notify_replaced(InstId i, std::span<const ValueId> with) {
  touch(i);
  const Program& p = rw_.program();
  for (uint32_t k = 0; k < with.size() && k < p.num_results(i); ++k)
    if (p.type_id(p.result(i, k)) != p.type_id(with[k]))
      fail("'" + pattern_ + "' replaces result " + std::to_string(k) + " of " + describe_inst(p, i) +
           " by a value of type " + to_string(p.type_of(with[k])));
}

void ExpensiveChecks::notify_pattern_begin(std::string_view name, InstId root) {
  const Program& p = rw_.program();
  pattern_ = std::string(name);
  root_ = root;
  touched_.clear();
  in_rewrite_ = true;
  fp_before_ = program_fingerprint(p);
  // The shadow follows the program from one rewrite to the next; an edit made outside any bracket
  // (a pass editing without brackets) shows up as a fingerprint mismatch and refreshes it.
  if (!shadow_ || fp_before_ != shadow_fp_) {
    shadow_ = std::make_unique<Program>(p);
    shadow_fp_ = fp_before_;
  }
}

void ExpensiveChecks::notify_pattern_end(std::string_view name, InstId root, bool success) {
  if (!in_rewrite_) return;
  in_rewrite_ = false;
  if (failed()) return;
  const Program& p = rw_.program();
  uint64_t fp_after = program_fingerprint(p);
  std::string where = " on " + describe_inst(*shadow_, root) + " in " + body_label(*shadow_, shadow_->inst(root).body);
  if (opts_.fingerprints && success && fp_after == fp_before_)
    return fail("'" + pattern_ + "' reported success but did not change the IR" + where);
  if (opts_.fingerprints && !success && fp_after != fp_before_)
    return fail("'" + pattern_ + "' reported failure but changed the IR" + where);
  if (!success) return;
  if (opts_.verify) {
    auto diags = verify_program(p, 1);
    if (!diags.empty())
      return fail("the IR does not verify after '" + pattern_ + "'" + where + ": " + diags[0].message);
  }
  if (opts_.replay) {
    ++replayed_;
    for (BodyId b : touched_) {
      replay_body(b);
      if (failed()) return;
    }
  }
  *shadow_ = p;
  shadow_fp_ = fp_after;
}

std::vector<std::vector<Tensor>> ExpensiveChecks::inputs_for(const Program& p, BodyId b) const {
  std::vector<std::vector<Tensor>> out;
  for (int t = 0; t < opts_.random_trials; ++t) out.push_back(random_inputs(p, b, opts_.seed * 7919 + t, 0.25));
  const auto& params = p.body(b).params;
  for (int t = 0; t < opts_.edge_trials; ++t) {
    std::vector<Tensor> in;
    for (size_t k = 0; k < params.size(); ++k) in.push_back(edge_tensor(p.type_of(params[k]), t + 3 * k));
    out.push_back(std::move(in));
  }
  return out;
}

void ExpensiveChecks::replay_body(BodyId b) {
  const Program& after = rw_.program();
  for (const std::vector<Tensor>& in : inputs_for(*shadow_, b)) {
    RunResult src = run_body(*shadow_, b, in, opts_.interp);
    ++runs_;
    if (src.status != RunStatus::Ok) continue;  // UB (or no kernel, or a bound) before: nothing to keep
    RunResult tgt = run_body(after, b, in, opts_.interp);
    ++runs_;
    size_t bad = SIZE_MAX;
    if (tgt.status != RunStatus::Ok || tgt.results.size() != src.results.size()) {
      bad = 0;
    } else {
      for (size_t k = 0; k < src.results.size() && bad == SIZE_MAX; ++k)
        if (!results_equal(src.results[k], tgt.results[k])) bad = k;
    }
    if (bad == SIZE_MAX) continue;
    return fail("rewrite '" + pattern_ + "' changed the results of " + body_label(after, b) + "\n  root: " +
                describe_inst(*shadow_, root_) + "\n  input:" + describe_inputs(*shadow_, b, in) +
                "\n  before: result " + std::to_string(bad) + " = " + describe_run(src, bad) +
                "\n  after:  result " + std::to_string(bad) + " = " + describe_run(tgt, bad));
  }
}

}  // namespace ptir
