// Helpers shared by the verifier tests: parse a program from text and return the verifier's first message.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "ir/text.h"
#include "ir/verifier.h"

namespace ptir::testing_verifier {

/// The first verifier message of a program that must parse, or "" when it verifies.
inline std::string first_error(std::string_view text) {
  ParseResult r = parse_program(text, "t.ptir");
  if (!r.ok()) return "PARSE ERROR: " + r.error;
  std::vector<Diagnostic> d = verify_program(*r.program);
  return d.empty() ? "" : d[0].message;
}

/// Wraps one statement `%r = STMT` in `func @f(PARAMS) -> T { ... return %r }`, where T is the type
/// after the statement's last "->", and returns the first verifier message.
inline std::string op_error(std::string_view params, std::string_view stmt) {
  size_t arrow = stmt.rfind("->");
  std::string rtype(arrow == std::string_view::npos ? std::string_view("?") : stmt.substr(arrow + 2));
  std::string text = "func @f(" + std::string(params) + ") -> " + rtype + " {\n  %r = " + std::string(stmt) +
                     "\n  return %r\n}\n";
  return first_error(text);
}

}  // namespace ptir::testing_verifier
