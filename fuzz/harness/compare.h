// Helpers the fuzz cases share (harness.cpp, equiv_case.cpp): the interpreter options of every fuzz run
// and the comparison of one source run with one target run.
#pragma once
#include <string>
#include <vector>

#include "ir/interp.h"

namespace ptir::fuzz {

/// fuzz_kernels() for the opaque ops, while loops bounded at 4,096 iterations.
InterpOptions interp_options();

/// Compares one run of each side; "" when the target refines the source on this input (a source
/// with UB or at the loop bound requires nothing; a source Error is a finding).
std::string compare(const RunResult& s, const RunResult& t, const std::vector<Tensor>& in);

/// The inputs, one literal a line, for a finding.
std::string show_inputs(const std::vector<Tensor>& in);

}  // namespace ptir::fuzz
