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
/// The report of a whole-program check. A program with one function prints exactly that function's
/// report; several functions print a first line with the program verdict and each function's verdict,
/// then one section per function. Every report ends with a `checked:` line naming its scope.
std::string format_program_text(const ProgramVerdict& v, const Program& src, const ReportOptions& ro = {});
/// The same as one JSON object: {"verdict", "time_ms", "scope", "errors", "functions": [{"name", ...}]}.
std::string format_program_json(const ProgramVerdict& v, const Program& src, const ReportOptions& ro = {});
/// One line per program: "PROVED: 3 functions (41.0 ms)", "REFUTED: @f: query 4 ...".
std::string program_summary_line(const ProgramVerdict& v);
/// The scope sentence: which functions were checked, out of how many.
std::string program_scope(const ProgramVerdict& v);

/// `s` as a JSON string literal (quotes, backslashes and control bytes escaped).
std::string json_quote(const std::string& s);

/// The multi-index text "[1, 2]" of flat element `e` of a tensor of type `t`.
std::string element_index(const TensorType& t, int64_t e);

}  // namespace ptir::verify
