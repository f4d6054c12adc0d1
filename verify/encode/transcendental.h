// What SMT knows about the transcendentals (docs/semantics.md "Elementwise ops"; docs/verification.md
// "Transcendentals"). `exp log tanh erf` stay uninterpreted functions per (op, dtype) - their exact
// values are libm's - but every query that applies one also gets ground facts about each application
// and each pair of applications of the same function: special values, signs, ranges, monotonicity,
// oddness. Each fact sits in one table with its SMT form and its concrete form side by side, and with
// its basis: the C standard's Annex F (special values every conforming libm returns, all float dtypes),
// or an exhaustive check of the f32 function over all 2^32 inputs (f32, and f16/bf16, which the
// interpreter computes through the f32 function and rounds once - rounding keeps every such fact),
// run by ctest against the interpreter's own code (tests/verify/transcendental_facts_test.cpp). f64
// gets the Annex F facts only: its 2^64 inputs cannot be checked. `rsqrt` is not uninterpreted at all:
// the semantics defines it as 1/sqrt in f64, or in f32 then rounded once, which SMT states exactly.
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"
#include "verify/smt/expr.h"

namespace ptir::smt {
class Model;
}

namespace ptir::verify::transc {

using smt::Expr;

/// Who guarantees a fact.
enum class Basis : uint8_t {
  AnnexF,        ///< C Annex F special values and the absence of domain errors: every float dtype
  ExhaustiveF32  ///< checked on every f32 input of the f32 function: f16, bf16, f32 (not f64)
};
bool applies(Basis b, DType t);

/// A fact about one application y = f(x), x and y elements of dtype t.
struct UnaryFact {
  OpCode op;
  Basis basis;
  std::string_view text;
  Expr (*smt)(const Expr& x, const Expr& y, DType t);
  bool (*holds)(double x, double y);  ///< the same fact on the decoded values (NaN as NaN)
};
/// A fact about two applications ya = f(a), yb = f(b) of one function.
struct PairFact {
  OpCode op;
  Basis basis;
  std::string_view text;
  Expr (*smt)(const Expr& a, const Expr& ya, const Expr& b, const Expr& yb, DType t);
  bool (*holds)(double a, double ya, double b, double yb);
};

std::span<const UnaryFact> unary_facts();
std::span<const PairFact> pair_facts();

/// The name of the uninterpreted function of `op` at dtype `t` ("exp.f32"), shared by every encoder.
std::string uf_name(OpCode op, DType t);

/// The ground facts for every application of a transcendental's uninterpreted function in `formulas`,
/// and for pairs of applications of one function whose arguments share an input (up to kMaxPairs pairs
/// per function). Adding them to a query removes models, never a real behaviour: each fact holds of the
/// interpreter.
std::vector<Expr> facts_for(std::span<const Expr> formulas);
inline constexpr size_t kMaxPairs = 512;

/// Ground lemmas at the points a model chose: for each application y = f(x) of exp log tanh erf in
/// `formulas` whose argument evaluates in `m` to a float c, `x = c => y = libm(c)`, the value the
/// interpreter computes (interp::float_unary). True of every real run. The refinement checker adds them
/// when a model's counterexample did not replay, together with blocking that model's inputs, so the
/// next model agrees with libm where this one did not; like every blocking constraint they rule out a
/// PROVED (an unsat with them is UNKNOWN), so they only make the search for a replayable counterexample
/// shorter, and the transcendentals stay uninterpreted functions for any proof (docs/verification.md).
std::vector<Expr> lemmas_at(std::span<const Expr> formulas, const smt::Model& m);

/// rsqrt, exactly (docs/semantics.md): f64 1/sqrt(x) in f64; otherwise x in f32, 1/sqrt in f32, rounded
/// once to t.
Expr rsqrt(const Expr& x, DType t);

}  // namespace ptir::verify::transc
