// The SMT encoding of PTIR programs (docs/semantics.md): a body run on symbolic tensors gives symbolic
// results, the condition under which it has undefined behaviour, and the condition under which a while
// loop would still be running at the unroll bound. It works on the same Program the interpreter runs.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
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

/// The sign of one zero result element under nsz with EncodeOptions::ZeroSign::Any: true = -0.
struct ZeroSignVar {
  InstId inst;
  int64_t element;
  bool in_region;  ///< the instruction is in a region (encoded once per run of the region)
  smt::Expr var;
};

/// Under nsz with EncodeOptions::ZeroSign::Default: where a governed op's float result element is a zero,
/// whose sign the side may choose (a choice point of its nondeterminism; EncodeOptions::zero_choices).
struct ZeroChoice {
  InstId inst;
  smt::Expr is_zero;
};

/// Under contract with EncodeOptions::Contract::Any: the Bool choosing the fused alternative k (the mul
/// at operand position k) of a contract site; the first true one of a site wins, none: unfused.
struct ContractVar {
  InstId inst;
  uint32_t k;
  bool in_region;  ///< the site is in a region (encoded once per run of the region)
  smt::Expr var;
};

/// Under contract with EncodeOptions::Contract::Default: the fused alternative k of a contract site of
/// the body encoded (not of its regions), which the encoding itself leaves unfused.
struct ContractAlt {
  InstId inst;
  uint32_t k;
  std::vector<smt::Expr> elems;  ///< the fused result, element by element
};

/// Options of the encoding.
struct EncodeOptions {
  int while_unroll = 16;  ///< iterations of a while loop that are unrolled
  /// Fold concrete instructions before Z3: an instruction whose operands are all concrete (literals,
  /// or results of folded instructions) is evaluated by the reference interpreter and its results
  /// encoded as numerals, unless its SMT semantics is uninterpreted (a transcendental, opaque or rng
  /// op, or a region op whose regions hold one: both sides must keep treating those alike) or the
  /// interpreter does not return Ok (UB, the loop bound, an error: then it is encoded as usual, so UB
  /// stays UB). Sound because the encoding and the interpreter implement the same semantics
  /// (tests/verify/encode_agreement_test.cpp); it spares Z3 whole chains of float operations on
  /// constants (e.g. quantizing a literal weight matrix).
  bool fold_concrete = true;
  int64_t fold_max_elements = 65536;  ///< no folding when an operand or a result has more elements
  int64_t fold_max_while_iterations = 4096;  ///< a folded while that runs longer is encoded as usual
  /// Budgets of every interpreter run that folding makes (InterpOptions::deadline, max_bytes): nested
  /// literal loops can run for hours. A run stopped by one is not Ok, so the instruction is encoded.
  std::chrono::steady_clock::time_point fold_deadline = std::chrono::steady_clock::time_point::max();
  uint64_t fold_max_bytes = 0;  ///< 0: no cap
  const std::atomic<bool>* stop = nullptr;  ///< when set to true, encoding stops with EncodeStopped
  /// The fast-math flags in force (docs/semantics.md "Fast-math flags"); nullopt: those of the body
  /// encoded (Program::fastmath_of). Regions are encoded with the flags of their caller.
  std::optional<FastMath> fastmath{};
  /// Under nsz, whether a zero result of a governed op keeps the IEEE default sign (the interpreter's
  /// choice) or may take either sign: one fresh Bool per result element, appended to `zero_signs`.
  enum class ZeroSign : uint8_t { Default, Any } zero_sign = ZeroSign::Default;
  std::vector<ZeroSignVar>* zero_signs = nullptr;  ///< receives the fresh variables (ZeroSign::Any)
  std::string zero_sign_prefix = "nsz";                    ///< name prefix of those variables
  /// ZeroSign::Default only: receives, for every float result element of a governed op under nsz (regions
  /// included, once per encoded run of the region), the condition that it is a zero. Governed ops and
  /// region ops are then not folded, so that every such zero is a term here.
  std::vector<ZeroChoice>* zero_choices = nullptr;
  /// Under contract, whether an add/sub site (ptir::contract_operands) is encoded unfused (the
  /// interpreter's choice; its fused alternatives of the function body go to `contract_alts` if set) or
  /// may take any of its alternatives (fresh Bools per site, appended to `contract_vars`). Sites are
  /// never folded to numerals under contract.
  enum class Contract : uint8_t { Default, Any } contract = Contract::Default;
  std::vector<ContractVar>* contract_vars = nullptr;  ///< receives the fresh choices (Contract::Any)
  std::string contract_prefix = "contract";           ///< name prefix of those variables
  std::vector<ContractAlt>* contract_alts = nullptr;  ///< receives the function body's fused alternatives
};


/// Adds the fast-math meaning of instruction `i` under `fm` to its encoding: nnan/ninf UB on float
/// operand and result elements of a governed op (ORed into `ub`), and with ZeroSign::Any a free sign
/// for every zero result element. `results` are the op's results, rewritten in place.
void apply_fastmath(const Program& p, InstId i, FastMath fm, std::span<const SymTensor> args,
                    std::vector<SymTensor>& results, smt::Expr& ub, const EncodeOptions& opts);

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

/// EncodeOptions::stop was set (the check ran out of time or already has a verdict).
struct EncodeStopped : EncodeError {
  EncodeStopped() : EncodeError("stopped") {}
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
/// `stop`: when set to true, making the inputs stops with EncodeStopped (a large input takes seconds).
SymInputs symbolic_inputs(const Program& p, BodyId b, const std::atomic<bool>* stop = nullptr);

/// A concrete tensor as numerals.
SymTensor constant_tensor(const Tensor& t);
/// A tensor of numerals read back (floats through to_ieee_bv); nullopt if an element is not a numeral.
std::optional<Tensor> read_numerals(const SymTensor& s);

}  // namespace ptir::verify
