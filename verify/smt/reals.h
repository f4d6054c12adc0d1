// Real-number terms and the check behind the LICENSED verdicts of `ptir prove` (docs/verification.md
// "Licences: afn and reassoc over the reals"): two expressions over real variables, with + - * /, neg,
// abs, max, min and exp, log, tanh, erf, sqrt as real functions, compared by Z3 (nonlinear real
// arithmetic). The functions are uninterpreted, with sound facts instantiated on the terms present
// (RealTerms::equal_over_reals lists them). Z3 stays inside verify/smt: this file is its only interface
// for reals.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptir::smt {

/// A DAG of real-valued terms: nodes are numbered in creation order, operands come first.
class RealTerms {
 public:
  enum class Op : uint8_t { Var, Num, Add, Sub, Mul, Div, Neg, Abs, Max, Min, Exp, Log, Tanh, Erf, Sqrt };
  struct Node {
    Op op = Op::Var;
    int a = -1, b = -1;  ///< operands (node numbers), -1 when absent
    std::string text;    ///< Var: its name; Num: the exact value as "P/Q" or "P" (decimal integers)
  };

  /// A real variable (the same name gives the same node).
  int var(const std::string& name);
  /// The exact value of a finite double.
  int num(double v);
  int op(Op o, int a, int b = -1);
  const std::vector<Node>& nodes() const { return nodes_; }

  enum class Answer : uint8_t { Holds, NotShown, Unknown };
  /// Whether `tgt` equals `src` for every real value of the variables on which `src` is defined
  /// (every log argument > 0, sqrt argument >= 0, divisor != 0), and `tgt` is defined there too.
  /// Holds: Z3 found no counterexample (unsat) under the facts; NotShown: Z3 found a model of the
  /// negation, which the facts do not exclude (not a proof of anything: the functions are
  /// uninterpreted beyond the facts); Unknown: Z3 gave up within `budget_ms` (deterministic units,
  /// smt::kRlimitPerMs per ms, plus a wall-clock net). `why` receives the solver's text.
  Answer equal_over_reals(int src, int tgt, unsigned budget_ms, std::string* why = nullptr) const;

 private:
  std::vector<Node> nodes_;
};

}  // namespace ptir::smt
