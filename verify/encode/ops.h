// Internal interface of the encoder: what one op's encoder receives, the row-major helpers the families
// share, and one encoder per op of ir/ops.def (verify/encode/<family>.cpp, same stems as ir/interp/). Index
// arithmetic of data-movement ops is their index map, run by verify/encode/index_exec.h over the index
// terms of verify/smt/index_terms.h.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "verify/encode/encode.h"
#include "verify/encode/scalar.h"

namespace ptir::verify::enc {

using smt::Expr;
using Results = std::vector<SymTensor>;

/// One instruction being encoded.
struct OpEnv {
  const Program& p;
  InstId inst;
  const AttrSet& attrs;
  std::span<const SymTensor> args;
  std::vector<TensorType> result_types;
  const EncodeOptions& opts;
  Expr ub;          ///< OR of the op's undefined-behaviour conditions
  Expr unfinished;  ///< OR of the op's "loop still running at the bound" conditions

  OpCode op() const { return p.op(inst); }
  const TensorType& out(size_t k = 0) const { return result_types[k]; }
  DType dtype(size_t k = 0) const { return result_types[k].dtype; }
  void add_ub(const Expr& c) { ub = ub || c; }
  /// An empty result tensor of result type k, to be filled.
  SymTensor make(size_t k = 0) const;
  [[noreturn]] void fail(std::string_view what) const;
  /// Throws EncodeStopped once the check has run out of time: called inside the loops of encoders
  /// whose work grows faster than their output (dynamic windows, scatters, top_k ranks).
  void check_stop() const {
    if (opts.stop && opts.stop->load(std::memory_order_relaxed)) throw EncodeStopped();
  }
};

// ---- row-major index helpers ----
std::vector<int64_t> strides(const std::vector<int64_t>& dims);
std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims);
int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims);

/// The uninterpreted function of an opaque or transcendental op's key, applied to `args`.
Expr apply_uf(const std::string& key, std::span<const Expr> args, smt::Sort range);

#define PTIR_OP(E, M, MIN, MAX, NRES, TR) Results encode_##E(OpEnv& env);
#include "ir/ops.def"
#undef PTIR_OP

}  // namespace ptir::verify::enc
