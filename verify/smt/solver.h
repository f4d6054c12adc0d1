// One satisfiability query: a Z3 solver with a timeout, its result, and the model of a `sat` answer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "verify/smt/expr.h"

typedef struct _Z3_solver* Z3_solver;
typedef struct _Z3_model* Z3_model;

namespace ptir::smt {

/// A model of a satisfiable query. Evaluation completes unconstrained variables with a default.
class Model {
 public:
  explicit Model(Z3_model m);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();
  /// The value of `e` in this model, as a numeral term.
  Expr eval(const Expr& e) const;

 private:
  Z3_model m_;
};

enum class Result : uint8_t { Sat, Unsat, Unknown };

/// A solver for one query. `timeout_ms` bounds each check; a timeout is Result::Unknown.
class Solver {
 public:
  explicit Solver(unsigned timeout_ms);
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;
  ~Solver();

  void add(const Expr& e);
  Result check();
  /// The model of the last `Sat` check.
  std::unique_ptr<Model> model() const;
  /// Why the last check returned Unknown (timeout, canceled, ...).
  std::string reason_unknown() const;
  /// The assertions in SMT-LIB 2, followed by (check-sat).
  std::string to_smt2() const;

 private:
  Z3_solver s_;
};

}  // namespace ptir::smt
