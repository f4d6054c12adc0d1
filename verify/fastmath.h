// Z3-free half of fast-math flags in the refinement check (docs/semantics.md "Fast-math flags",
// docs/verification.md): which source outputs may take either zero sign, when a counterexample found
// under the source's default zero signs and association order is a real one, the enumeration of the
// association orders of `reassoc` trees, and the interpreter campaign behind a TESTED verdict.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "ir/program.h"

namespace ptir::verify {

/// A maximal tree of governed float add (or mul) instructions of one body: every inner node's result
/// has exactly one use, by its parent, and the tree computes one op over `leaves`.
struct ReassocTree {
  BodyId body;
  InstId root;
  OpCode op;
  std::vector<InstId> nodes;    ///< every instruction of the tree, root first
  std::vector<ValueId> leaves;  ///< in the default (written) left-to-right order
};

/// What the flags of a source/target pair mean for one refinement check.
struct FastMathPlan {
  FastMath src, tgt;
  /// Per source result: under nsz, the result is computed by a governed op of the function body whose
  /// only use is the return, so each of its zero elements may be +0 or -0 (compared as equal).
  std::vector<bool> free_zero_result;
  /// Every source nsz choice that can matter is a free result's (else a counterexample found under the
  /// default signs may be answered by another choice of the source: UNKNOWN).
  bool src_signs_exact = true;
  /// Per source result, under contract: the contract site (ptir::contract_operands) of the function body
  /// that computes it and whose only use is the return, whose fused alternatives are allowed source
  /// values of that result; kNone otherwise.
  std::vector<InstId> contract_root;
  /// Under contract: the source's contract sites in the function body (their choices are enumerated on
  /// replay: confirm_difference).
  std::vector<InstId> src_sites;
  /// Source reassoc trees of >= 3 leaves in the function body (their orders are enumerated on replay).
  std::vector<ReassocTree> src_trees;
  /// Why counterexamples cannot be confirmed at all ("" if they can), e.g. a reassoc tree in a region.
  std::string no_refute;
  /// Why the check may not conclude PROVED ("" if it may): the target may reassociate.
  std::string no_proof;
};

/// Works out the plan for checking body `tb` of `tgt` against body `sb` of `src`.
FastMathPlan plan_fastmath(const Program& src, BodyId sb, const Program& tgt, BodyId tb);

/// The maximal reassoc trees (>= 2 leaves) of body `b` and every region it runs.
std::vector<ReassocTree> reassoc_trees(const Program& p, BodyId b);

/// Equal as outputs: bit-equal, both NaN, or (at a free result) both zeros.
bool same_output(const FastMathPlan& plan, size_t result, const Tensor& a, const Tensor& b, int64_t* first = nullptr);

/// The verdict on one input where the target run `tgt` is not the source's default-order,
/// default-sign run: whether some allowed source behaviour matches it.
enum class Confirm : uint8_t {
  Refutes,     ///< no allowed source behaviour is the target's: a real counterexample
  Allowed,     ///< some allowed source behaviour (an association order, or source UB) matches
  Undecided,   ///< the source's choices could not be enumerated (too many, in a region, a run stopped)
};

/// Decides a difference between the source and `tgt` (UB, or results differing per same_output) on
/// `inputs` under the source's nsz/reassoc nondeterminism; `why` receives the reason when not Refutes.
/// Enumerates every association order of every source tree (at most 6 leaves per tree and 4096
/// combinations in all) and, under nsz, every sign of every zero a governed op of the function body that
/// is not a free output makes on `inputs` (instruction by instruction, up to 4096 runs; a governed op in a
/// region is not enumerated: Undecided). Under contract, every choice of every contract site of the
/// function body (unfused, or fused with one of its mul operands; up to 4096 combinations; not combined
/// with reassoc orders or nsz signs, nor in a region: Undecided). A choice with UB, or with the target's
/// results, is Allowed.
Confirm confirm_difference(const FastMathPlan& plan, const Program& src, BodyId sb, const std::vector<Tensor>& inputs,
                           const RunResult& tgt, const InterpOptions& io, std::string* why);

/// Result of an interpreter campaign (the TESTED verdict of `ptir prove`).
struct Campaign {
  int inputs = 0;      ///< inputs run
  int allowed = 0;     ///< inputs where the target's behaviour was an allowed source behaviour
  int skipped = 0;     ///< inputs where the source was UB or could not run (they count for nothing)
  std::optional<std::vector<Tensor>> refuting;  ///< an input on which no allowed source behaviour matched
  std::string undecided;  ///< non-empty: some input could not be decided (too many orders, ...)
  /// TESTED: at least 1000 inputs, every one allowed or skipped, nothing undecided, no refutation.
  bool tested() const { return !refuting && undecided.empty() && inputs >= 1000 && allowed > 0; }
};

/// Runs both bodies on `runs` edge-biased random inputs and checks each target run against every
/// allowed source behaviour (confirm_difference).
Campaign reassoc_campaign(const Program& src, BodyId sb, const Program& tgt, BodyId tb, int runs = 1000,
                          uint64_t seed = 1, const KernelRegistry* kernels = nullptr);

}  // namespace ptir::verify
