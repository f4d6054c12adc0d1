// Benchmark programs shaped like real exported model graphs, and structure stress tests, as text.
//
// realistic_program: repeated transformer blocks (layer norm, attention, MLP) over small tensors, with
// what exporters leave behind: named values (`%l12_ln1_mean`), per-layer constants, dead values,
// duplicate subexpressions, foldable constant chains, identity ops (x*1, x+(-0.0), no-op casts,
// transpose pairs). realistic_program_mlir is the same graph in MLIR (func/arith/math/tensor dialects)
// for comparing against `mlir-opt --canonicalize --cse`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptir::bench {

/// About `num_ops` instructions (whole blocks; the return included) of PTIR text.
std::string realistic_program(size_t num_ops);
/// The same program (same blocks, ops and dataflow) in MLIR text; see the file comment of realistic.cpp
/// for how ops without an arith/tensor equivalent are spelled.
std::string realistic_program_mlir(size_t num_ops);
/// Instructions per transformer block of realistic_program.
size_t realistic_ops_per_block();

/// `text` with every numbered value `%tN` renamed `%gA_sB` (A = N / 16, B = N % 16), as exporters name
/// values: the same program, only the spelling of its names differs.
std::string named_values(std::string_view text);

/// `n` small functions (@f0 ... and @main last): stresses per-function tables.
std::string many_functions_program(size_t n);
/// Registers the benchmarks of bench_realistic.cpp with Google Benchmark.
void register_text_benchmarks();

/// A chain of `depth` regions, each running the next through a `cond` (^r0 -> ^r1 -> ...).
std::string region_chain_program(size_t depth);

}  // namespace ptir::bench
