// Proofs of conversion patterns (docs/rewriter.md, "Conversion"; `ptir convert --prove-patterns`): every
// pattern a target uses is applied to generated instances, one per root op (and compare direction) and
// per dtype the target converts, and each converted instance is checked to refine the instance.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "rewriter/conversion/conversion.h"

namespace ptir::prove {

struct ConversionInstanceResult {
  std::string instance;  ///< e.g. "add bf16" or "reduce_sum bf16 accum[f32]"
  std::string verdict;   ///< PROVED / REFUTED / UNKNOWN / NOT EXERCISED
  std::string note;      ///< e.g. "exhaustive, 2^32 cases", or the reason
  std::string report;    ///< REFUTED: the instance, the converted program and the counterexample
};

struct ConversionPatternReport {
  std::string pattern;
  std::string verdict;   ///< PROVED when every instance is PROVED; REFUTED if one is; else UNKNOWN
  std::vector<ConversionInstanceResult> instances;
};

/// Proves each pattern of `patterns` on the target's instances; `timeout_ms` per instance. A non-empty
/// `only` keeps the instances whose "PATTERN KIND" it lists (ConversionResult::fired_on, KIND as
/// conversion::conversion_kind).
std::vector<ConversionPatternReport> prove_conversion_patterns(
    const conversion::ConversionTarget& t, const std::vector<const conversion::ConversionPattern*>& patterns,
    unsigned timeout_ms, const std::set<std::string>& only = {});

}  // namespace ptir::prove
