// The SMT encoding of PTIR programs (docs/semantics.md): a body run on symbolic tensors gives symbolic
// results, the condition under which it has undefined behaviour, and the condition under which a while
// loop would still be running at the unroll bound. It works on the same Program the interpreter runs.
#pragma once
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/program.h"
#include "verify/smt/expr.h"

namespace ptir::verify {

/// A tensor of symbolic elements in row-major order.
struct SymTensor {
  TensorType type;
  std::vector<smt::Expr> elems;
};

/// Options of the encoding.
struct EncodeOptions {
  int while_unroll = 16;  ///< iterations of a while loop that are unrolled
};

/// A body encoded on given inputs.
struct BodyEncoding {
  std::vector<SymTensor> results;
  smt::Expr ub;          ///< true exactly on the inputs where the run has undefined behaviour
  smt::Expr unfinished;  ///< true where a while loop is still running at the unroll bound
};

/// An op the encoder cannot handle (malformed program): the check is UNKNOWN, never PROVED.
struct EncodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Encodes body `b` on `inputs` (one per parameter, of the parameter types). Throws EncodeError.
BodyEncoding encode_body(const Program& p, BodyId b, std::span<const SymTensor> inputs,
                         const EncodeOptions& opts = {});

/// The free inputs of a body: parameter k's element i is read from the variable `bits[k][i]` (the IEEE
/// bit pattern for floats, so a model gives exact input bits, NaN payload included).
struct SymInputs {
  std::vector<SymTensor> tensors;
  std::vector<std::vector<smt::Expr>> bits;
};
SymInputs symbolic_inputs(const Program& p, BodyId b);

/// A concrete tensor as numerals.
SymTensor constant_tensor(const Tensor& t);
/// A tensor of numerals read back (floats through to_ieee_bv); nullopt if an element is not a numeral.
std::optional<Tensor> read_numerals(const SymTensor& s);

}  // namespace ptir::verify
