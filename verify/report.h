// How a verdict is shown to people and tools: the text of `ptir check-equiv` (first line starts with the
// verdict word), its --json form, and the one-line summary `ptir opt --validate` prints.
#pragma once
#include <string>

#include "verify/refine.h"

namespace ptir::verify {

/// How much of a counterexample to print.
struct ReportOptions {
  bool full = false;           ///< every tensor in full, however large
  int64_t max_elements = 64;   ///< larger tensors are summarised: type, differing elements, the first few
  int64_t shown = 8;           ///< elements (and differing elements) listed in a summary
};

/// The full text report. `src` names the inputs (parameter names of its entry function).
std::string format_text(const Verdict& v, const Program& src, BodyId sb, const ReportOptions& ro = {});
/// The same as one JSON object (summarised tensors are strings that do not start with "dense<").
std::string format_json(const Verdict& v, const Program& src, BodyId sb, const ReportOptions& ro = {});
/// One line: "PROVED (12.3 ms)", "REFUTED: query 4 ...", "UNKNOWN: reason".
std::string summary_line(const Verdict& v);
/// The multi-index text "[1, 2]" of flat element `e` of a tensor of type `t`.
std::string element_index(const TensorType& t, int64_t e);

}  // namespace ptir::verify
