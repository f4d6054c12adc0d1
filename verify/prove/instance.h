// Instances of a pattern's source DAG: small, well-typed programs `func @main(leaves) -> root` built
// top-down from the DAG (result type first, then each op's operand types from its shape rule), with
// random dtypes, ranks 0..R and dims 0..D (size 0 and 1 included), random attributes, splat constants
// with the value the rule names, and edge-biased literals for const($c). The prover runs the real
// pattern on each instance; a perturbation (a splat nudged to a neighbouring value, a repeated capture
// split into two inputs, an extra use of an inner value) makes a near miss.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ir/program.h"
#include "rewriter/rules/ast.h"

namespace ptir::prove {

/// The one change that turns an instance into a near miss.
enum class Perturb : uint8_t { None, Splat, SplitCapture, ExtraUse };

/// Bounds and choices of one instance.
struct InstanceOptions {
  int rank = 2;             ///< rank of the root's result
  int max_dim = 3;          ///< dims are drawn from 0..max_dim (operands may be larger where a shape rule needs)
  Perturb perturb = Perturb::None;
  uint8_t fastmath = 0;     ///< rules::Assume bits for the function
  /// Dtypes the rule's constraints name (dtype_is, is_float, ...): drawn half of the time, so rarely met
  /// constraints still get instances; the other half stays uniform over every dtype.
  std::vector<DType> dtype_hint{};
};

/// A generated instance, or why none could be made this time.
struct Instance {
  std::unique_ptr<Program> program;  ///< null when generation failed
  std::string why_not;               ///< e.g. "generator: no shape rule for gather"
  bool perturbed = false;            ///< a perturbation was actually applied
  std::string shape;                 ///< the root type, e.g. "tensor<f32, 2x0>"
  std::string dtype;                 ///< the root's dtype, e.g. "f32"
};

/// Builds one instance of `source` (an op node) with randomness from `rng`.
Instance make_instance(const rules::Node& source, const InstanceOptions& opts, std::mt19937_64& rng);

/// True when the generator has a shape rule for `op` (so a DAG using it can be instantiated).
bool generator_supports(OpCode op);

}  // namespace ptir::prove
