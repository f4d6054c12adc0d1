// A generator of random well-typed PTIR programs (see docs/fuzzing.md). One library for the RapidCheck
// properties, the libFuzzer targets and `ptir synth`: every decision comes from a Choices object, so a
// seed, a shrinkable RapidCheck value or the fuzzer's bytes decide the program.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/gen/choices.h"
#include "ir/dtype.h"
#include "ir/interp.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ptir::fuzz {

/// Which ops the generator favours.
enum class Profile : uint8_t {
  Random,     ///< every op of the op table, evenly
  Mlp,        ///< dot_general, bias adds, relu/gelu pieces, reductions
  Attention,  ///< batched dot_general, softmax pieces (reduce_max, exp, div), transposes, masks
  Conv,       ///< extract_patches, reduce_window, pad, dot_general, reshapes
  Control,    ///< cond, while and scan regions
};

/// Parses "random", "mlp", "attention", "conv", "control".
bool parse_profile(std::string_view s, Profile* out);
const char* profile_name(Profile p);

/// What to generate. Built with designated initializers.
struct GenOptions {
  int num_ops = 12;                ///< statements in the entry function (regions come on top)
  std::vector<DType> dtypes = {};  ///< data dtypes to draw from; empty: all 13. i1 predicates and index
                                   ///< operands (si32/si64) appear even when not listed
  Profile profile = Profile::Random;
  bool seeded_patterns = false;  ///< plant the source DAGs of known rewrites and their near misses
  bool opaque_ops = true;        ///< custom_call/quantize/dequantize/requantize (run with fuzz_kernels())
  bool effects = true;           ///< rng_uniform / rng_normal
  bool regions = true;           ///< cond / while / scan
  bool transcendentals = true;   ///< exp log tanh erf rsqrt (uninterpreted in SMT)
  int max_rank = 3;
  int64_t max_elements = 48;  ///< per tensor
  int max_params = 6;
  int max_region_depth = 2;
  int max_results = 4;
  // A target's restrictions (fuzz/mlir/export_profile.h sets them from MLIR export's table; the defaults
  // restrict nothing).
  std::vector<OpCode> only_ops = {};  ///< non-empty: draw only these ops (seeded templates are not drawn)
  bool literal_indices = false;       ///< take/gather indices, dynamic-slice starts and segment ids are
                                      ///< in-range literals, never parameters or computed values
  bool interior_pad = true;           ///< pad may have interior padding
  bool float_to_int_cast = true;      ///< cast may go from a float to a number dtype (to i1 stays)
  bool int_accum_change = true;       ///< an integer reduce_* may name another accumulation dtype
  bool transposing_dot = true;        ///< dot_general dims in any order; false: lhs [batch, free, contract],
                                      ///< rhs [batch, free, contract], batch and contract pairs in order
};

/// A generated program: its text (what the generator wrote) and the parsed program.
struct Generated {
  std::string text;
  std::unique_ptr<Program> program;  ///< nullptr only when the generator wrote something the parser
                                     ///< rejects: a generator bug, `error` says what
  std::string error;
  std::vector<std::string> templates;  ///< names of the seeded templates planted (seeded mode)
};

/// Generates one program. Deterministic for the same decisions and options.
Generated generate(Choices& c, const GenOptions& opts = {});
/// The same, leaving `program` null and `error` empty: the text only (parse_generated parses it later).
/// fuzz_pipeline looks its text up among the programs already checked before paying for the parse.
Generated generate_text(Choices& c, const GenOptions& opts = {});
/// Parses `g.text` into `g.program` (or `g.error`), as generate() does.
void parse_generated(Generated& g);

/// Kernels for the opaque ops the generator writes (custom_call targets "fuzz.*", quantize, dequantize,
/// requantize): a deterministic hash of the operands' values (NaNs hashed as one value, +0 and -0 apart,
/// as in the SMT encoding's uninterpreted functions) and the attributes, so any two equal calls agree.
const KernelRegistry& fuzz_kernels();

}  // namespace ptir::fuzz
