// Solver and Model over Z3's C API.
#include "verify/smt/solver.h"

#include <z3.h>

#include <stdexcept>

namespace ptir::smt {
namespace {
Z3_context C() {
  Z3_context c = current();
  if (!c) throw std::logic_error("smt: no Z3 context on this thread");
  return c;
}
}  // namespace

Model::Model(Z3_model m) : m_(m) { Z3_model_inc_ref(C(), m_); }
Model::~Model() {
  if (current()) Z3_model_dec_ref(current(), m_);
}
Expr Model::eval(const Expr& e) const {
  Z3_ast out = nullptr;
  if (!Z3_model_eval(C(), m_, e.raw(), true, &out) || !out) throw std::runtime_error("z3: model evaluation failed");
  return Expr::wrap(out).simplify();
}

Solver::Solver(unsigned timeout_ms) {
  s_ = Z3_mk_solver(C());
  Z3_solver_inc_ref(C(), s_);
  Z3_params p = Z3_mk_params(C());
  Z3_params_inc_ref(C(), p);
  Z3_params_set_uint(C(), p, Z3_mk_string_symbol(C(), "timeout"), timeout_ms ? timeout_ms : 1);
  Z3_solver_set_params(C(), s_, p);
  Z3_params_dec_ref(C(), p);
}
Solver::~Solver() {
  if (current()) Z3_solver_dec_ref(current(), s_);
}
void Solver::add(const Expr& e) { Z3_solver_assert(C(), s_, e.raw()); }

Result Solver::check() {
  switch (Z3_solver_check(C(), s_)) {
    case Z3_L_TRUE: return Result::Sat;
    case Z3_L_FALSE: return Result::Unsat;
    case Z3_L_UNDEF: break;
  }
  // An error (e.g. an interrupt) leaves the error code set; it is an Unknown, not a failure.
  Z3_get_error_code(C());
  return Result::Unknown;
}

std::unique_ptr<Model> Solver::model() const { return std::make_unique<Model>(Z3_solver_get_model(C(), s_)); }
std::string Solver::reason_unknown() const { return Z3_solver_get_reason_unknown(C(), s_); }
std::string Solver::to_smt2() const {
  std::string s = Z3_solver_to_string(C(), s_);
  return s + "(check-sat)\n";
}

}  // namespace ptir::smt
