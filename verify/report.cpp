// Text and JSON reports of a verdict.
#include "verify/report.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "ir/text.h"

namespace ptir::verify {
namespace {

std::string fmt_ms(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", ms);
  return b;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

const char* status_word(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::UB: return "undefined behaviour";
    case RunStatus::Bound: return "loop bound";
    case RunStatus::Error: return "error";
  }
  return "?";
}

std::string input_name(const Program& p, BodyId b, size_t k) {
  std::string_view n = p.name(p.body(b).params[k]);
  return n.empty() ? "#" + std::to_string(k) : "%" + std::string(n);
}

/// The query log, with the per-element queries of query 4 folded into one line.
std::string format_log(const Verdict& v) {
  std::string s;
  std::map<std::string, int64_t> counts;
  double ms4 = 0;
  int64_t n4 = 0;
  bool printed4 = false;
  auto flush4 = [&] {
    if (!n4 || printed4) return;
    s += "  4 values equal: " + std::to_string(n4) + " element" + (n4 == 1 ? "" : "s") + ":";
    bool first = true;
    for (auto& [what, n] : counts) s += (first ? " " : ", ") + std::to_string(n) + " " + what, first = false;
    s += " (" + fmt_ms(ms4) + ")\n";
    printed4 = true;
  };
  for (const QueryLog& q : v.log) {
    if (q.number == 4) {
      n4 += q.count, counts[q.outcome] += q.count, ms4 += q.ms;
      continue;
    }
    if (q.number == 5) flush4();
    s += "  " + std::to_string(q.number) + " " + q.name + ": " + q.outcome;
    if (q.ms >= 0.05) s += " (" + fmt_ms(q.ms) + ")";
    s += "\n";
  }
  flush4();
  return s;
}

/// Element i of a and b is equal in the spec's sense (all NaNs equal, +0 and -0 differ).
bool same_elem(const Tensor& a, const Tensor& b, int64_t i) {
  const uint64_t x = a.bits(i), y = b.bits(i);
  return x == y || (is_float(a.dtype()) && float_is_nan(a.dtype(), x) && float_is_nan(a.dtype(), y));
}

bool printed_in_full(const Tensor& t, const ReportOptions& ro) {
  return ro.full || t.splat || t.size() <= ro.max_elements;
}

/// A tensor as a literal, or (large) as "TYPE: N elements; first K: a, b, ... (--full prints all)".
std::string show_tensor(const Tensor& t, const ReportOptions& ro) {
  if (printed_in_full(t, ro)) return print_literal(t);
  std::string s = to_string(t.type) + ": " + std::to_string(t.size()) + " elements; first " +
                  std::to_string(std::min(ro.shown, t.size())) + ":";
  for (int64_t i = 0; i < std::min(ro.shown, t.size()); ++i) s += (i ? ", " : " ") + format_elem(t.dtype(), t.bits(i));
  return s + " (--full prints all)";
}

/// A target result next to its source result: in full, or the count of differing elements and the first few.
std::string show_target(const Tensor& t, const Tensor* src, const ReportOptions& ro) {
  if (printed_in_full(t, ro) || !src || src->type != t.type) return show_tensor(t, ro);
  int64_t count = 0;
  std::string first;
  for (int64_t i = 0, n = t.size(); i < n; ++i) {
    if (same_elem(*src, t, i)) continue;
    if (count++ < ro.shown)
      first += "\n    " + element_index(t.type, i) + ": source " + format_elem(t.dtype(), src->bits(i)) + ", target " +
               format_elem(t.dtype(), t.bits(i));
  }
  return to_string(t.type) + ": " + std::to_string(t.size()) + " elements, " + std::to_string(count) +
         " differ from the source" + (count ? "; first " + std::to_string(std::min(count, ro.shown)) + ":" : "") +
         first + (count ? "\n    (--full prints all)" : " (--full prints all)");
}

std::string refuted_head(const Refuted& r, const Program& src) {
  std::string s = "REFUTED: the target does not refine the source: query " + std::to_string(r.query) + " \"" +
                  r.query_name + "\" fails";
  if (r.result >= 0)
    s += " at result " + std::to_string(r.result) + " element " +
         element_index(r.src.results[r.result].type, r.element);
  else
    s += ": the target has undefined behaviour where the source has none";
  return s + " (found by " + r.found_by + ")";
}

}  // namespace

std::string json_quote(const std::string& s) { return json_str(s); }

std::string element_index(const TensorType& t, int64_t e) {
  std::vector<int64_t> idx(t.dims.size(), 0);
  for (int k = static_cast<int>(t.dims.size()) - 1; k >= 0; --k) {
    if (t.dims[k] == 0) break;
    idx[k] = e % t.dims[k];
    e /= t.dims[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

std::string summary_line(const Verdict& v) {
  if (const auto* r = std::get_if<Refuted>(&v.v)) {
    std::string s = "REFUTED: query " + std::to_string(r->query) + " \"" + r->query_name + "\"";
    if (r->result >= 0)
      s += " at result " + std::to_string(r->result) + " element " +
           element_index(r->src.results[r->result].type, r->element);
    return s + " (" + fmt_ms(v.ms) + ")";
  }
  if (const auto* u = std::get_if<Unknown>(&v.v)) return "UNKNOWN: " + u->reason + " (" + fmt_ms(v.ms) + ")";
  if (const auto* i = std::get_if<Invalid>(&v.v)) return "ERROR: " + i->reason;
  const auto& p = std::get<Proved>(v.v);
  return "PROVED (" + fmt_ms(v.ms) + ")" + (p.note.empty() ? "" : ": " + p.note);
}

std::string format_text(const Verdict& v, const Program& src, BodyId sb, const ReportOptions& ro) {
  std::string s;
  const std::string stats = std::to_string(v.solver_calls) + " solver call" + (v.solver_calls == 1 ? "" : "s") +
                            ", " + fmt_ms(v.ms);
  if (const auto* r = std::get_if<Refuted>(&v.v)) {
    s += refuted_head(*r, src) + "\n";
    for (size_t k = 0; k < r->inputs.size(); ++k)
      s += "input " + input_name(src, sb, k) + ": " + show_tensor(r->inputs[k], ro) + "\n";
    for (size_t k = 0; k < r->src.results.size(); ++k)
      s += "source result " + std::to_string(k) + ": " + show_tensor(r->src.results[k], ro) + "\n";
    if (r->tgt.status == RunStatus::Ok) {
      for (size_t k = 0; k < r->tgt.results.size(); ++k)
        s += "target result " + std::to_string(k) + ": " +
             show_target(r->tgt.results[k], k < r->src.results.size() ? &r->src.results[k] : nullptr, ro) + "\n";
    } else {
      s += "target: " + std::string(status_word(r->tgt.status)) + ": " + r->tgt.message + "\n";
    }
    if (r->result >= 0) {
      const Tensor& a = r->src.results[r->result];
      const Tensor& b = r->tgt.results[r->result];
      s += "differs at result " + std::to_string(r->result) + " element " + element_index(a.type, r->element) +
           ": source " + format_elem(a.dtype(), a.bits(r->element)) + ", target " +
           format_elem(b.dtype(), b.bits(r->element)) + "\n";
    }
  } else if (const auto* u = std::get_if<Unknown>(&v.v)) {
    s += "UNKNOWN: " + u->reason + " (" + stats + ")\n";
  } else if (const auto* i = std::get_if<Invalid>(&v.v)) {
    s += "ERROR: " + i->reason + "\n";
  } else {
    const auto& p = std::get<Proved>(v.v);
    s += "PROVED: the target refines the source (" + stats + ")" + (p.note.empty() ? "" : ": " + p.note) + "\n";
  }
  return s + format_log(v);
}

std::string format_json(const Verdict& v, const Program& src, BodyId sb, const ReportOptions& ro) {
  std::string s = "{\"verdict\": " + json_str(verdict_word(v));
  char b[64];
  std::snprintf(b, sizeof b, ", \"time_ms\": %.3f, \"solver_calls\": %d", v.ms, v.solver_calls);
  s += b;
  if (const auto* r = std::get_if<Refuted>(&v.v)) {
    s += ", \"query\": " + std::to_string(r->query) + ", \"query_name\": " + json_str(r->query_name) +
         ", \"found_by\": " + json_str(r->found_by) + ", \"inputs\": [";
    for (size_t k = 0; k < r->inputs.size(); ++k)
      s += std::string(k ? ", " : "") + "{\"name\": " + json_str(input_name(src, sb, k)) +
           ", \"value\": " + json_str(show_tensor(r->inputs[k], ro)) + "}";
    s += "], \"source_results\": [";
    for (size_t k = 0; k < r->src.results.size(); ++k) s += (k ? ", " : "") + json_str(show_tensor(r->src.results[k], ro));
    s += "], \"target_status\": " + json_str(status_word(r->tgt.status));
    if (r->tgt.status != RunStatus::Ok) s += ", \"target_message\": " + json_str(r->tgt.message);
    s += ", \"target_results\": [";
    for (size_t k = 0; k < r->tgt.results.size(); ++k)
      s += (k ? ", " : "") +
           json_str(show_target(r->tgt.results[k], k < r->src.results.size() ? &r->src.results[k] : nullptr, ro));
    s += "]";
    if (r->result >= 0) {
      const Tensor& a = r->src.results[r->result];
      const Tensor& t = r->tgt.results[r->result];
      s += ", \"result\": " + std::to_string(r->result) + ", \"element\": " + element_index(a.type, r->element) +
           ", \"source_element\": " + json_str(format_elem(a.dtype(), a.bits(r->element))) +
           ", \"target_element\": " + json_str(format_elem(t.dtype(), t.bits(r->element)));
    }
  } else if (const auto* u = std::get_if<Unknown>(&v.v)) {
    s += ", \"reason\": " + json_str(u->reason);
  } else if (const auto* i = std::get_if<Invalid>(&v.v)) {
    s += ", \"reason\": " + json_str(i->reason);
  } else {
    s += ", \"note\": " + json_str(std::get<Proved>(v.v).note);
  }
  s += ", \"queries\": [";
  for (size_t k = 0; k < v.log.size(); ++k) {
    const QueryLog& q = v.log[k];
    std::snprintf(b, sizeof b, "%.3f", q.ms);
    s += std::string(k ? ", " : "") + "{\"number\": " + std::to_string(q.number) + ", \"name\": " + json_str(q.name) +
         ", \"subject\": " + json_str(q.subject) + ", \"outcome\": " + json_str(q.outcome) + ", \"ms\": " + b +
         (q.count != 1 ? ", \"count\": " + std::to_string(q.count) : std::string()) + "}";
  }
  return s + "]}\n";
}

}  // namespace ptir::verify

namespace ptir::verify {

std::string program_scope(const ProgramVerdict& v) {
  const size_t n = v.src_functions;
  const std::string of = std::to_string(n) + " function" + (n == 1 ? "" : "s");
  if (!v.only.empty())
    return "function @" + v.only + " only, by request (the program has " + of +
           (n > 1 ? "; the others were not checked)" : ")") + ", at the shapes and dtypes its signature declares";
  if (v.functions.empty()) return "no function";
  std::string s = n == 1 ? "function " : "all " + of + ": ";
  for (size_t k = 0; k < v.functions.size(); ++k) s += (k ? ", @" : "@") + v.functions[k].name;
  return s + (n == 1 ? ", at the shapes and dtypes its signature declares"
                     : ", at the shapes and dtypes their signatures declare");
}

std::string program_summary_line(const ProgramVerdict& v) {
  if (!v.errors.empty()) {
    std::string s = "ERROR: ";
    for (size_t k = 0; k < v.errors.size(); ++k) s += (k ? "; " : "") + v.errors[k];
    return s;
  }
  if (v.functions.size() == 1) return summary_line(v.functions[0].verdict) + " [" + program_scope(v) + "]";
  const int kind = v.kind();
  for (const FunctionVerdict& f : v.functions)
    if (static_cast<int>(f.verdict.v.index()) == kind && kind != 0)
      return "@" + f.name + ": " + summary_line(f.verdict) + " [" + program_scope(v) + "]";
  return std::string(verdict_word(v)) + " (" + fmt_ms(v.ms) + ") [" + program_scope(v) + "]";
}

std::string format_program_text(const ProgramVerdict& v, const Program& src, const ReportOptions& ro) {
  const std::string scope = "checked: " + program_scope(v) + "\n";
  if (!v.errors.empty()) {
    std::string s;
    for (const std::string& e : v.errors) s += "ERROR: " + e + "\n";
    return s + "the programs are not comparable: a program refines another only when both define the same "
               "functions (by name)\n";
  }
  if (v.functions.size() == 1) {
    const FunctionVerdict& f = v.functions[0];
    return format_text(f.verdict, src, f.src, ro) + scope;
  }
  std::string head = std::string(verdict_word(v)) + ": the program verdict is the weakest of " +
                     std::to_string(v.functions.size()) + " functions:";
  for (size_t k = 0; k < v.functions.size(); ++k)
    head += std::string(k ? ", @" : " @") + v.functions[k].name + " " + verdict_word(v.functions[k].verdict);
  std::string s = head + " (" + fmt_ms(v.ms) + ")\n" + scope;
  for (const FunctionVerdict& f : v.functions) s += "\n== function @" + f.name + "\n" + format_text(f.verdict, src, f.src, ro);
  return s;
}

std::string format_program_json(const ProgramVerdict& v, const Program& src, const ReportOptions& ro) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v.ms);
  std::string s = "{\"verdict\": " + json_str(verdict_word(v)) + ", \"time_ms\": " + b +
                  ", \"scope\": " + json_str(program_scope(v)) + ", \"errors\": [";
  for (size_t k = 0; k < v.errors.size(); ++k) s += (k ? ", " : "") + json_str(v.errors[k]);
  s += "], \"functions\": [";
  for (size_t k = 0; k < v.functions.size(); ++k) {
    const FunctionVerdict& f = v.functions[k];
    std::string one = format_json(f.verdict, src, f.src, ro);
    while (!one.empty() && one.back() == '\n') one.pop_back();
    s += std::string(k ? ", " : "") + "{\"name\": " + json_str(f.name) + ", " + one.substr(1);
  }
  return s + "]}\n";
}

}  // namespace ptir::verify
