// Test helpers for the rewriter tests: parse a snippet, print it, find instructions by result name.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "ir/text.h"
#include "ir/verifier.h"

namespace ptir::testing {

/// Parses `text`; fails the test (and returns nullptr) on a parse error.
inline std::unique_ptr<Program> parse(std::string_view text) {
  ParseResult r = parse_program(text, "<test>");
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.program);
}

inline std::string print(const Program& p) { return print_program(p); }

/// The instruction defining the value named `name` in any body; kNone if absent.
inline InstId inst_named(const Program& p, std::string_view name) {
  for (BodyId b = 0; b < p.num_bodies(); ++b) {
    InstId found = kNone;
    p.for_each_inst(b, [&](InstId i) {
      for (uint32_t k = 0; k < p.num_results(i); ++k)
        if (p.name(p.result(i, k)) == name) found = i;
    });
    if (found != kNone) return found;
  }
  return kNone;
}

/// The value named `name` (parameter or result) in body `b`.
inline ValueId value_named(const Program& p, BodyId b, std::string_view name) {
  for (ValueId v : p.body(b).params)
    if (p.name(v) == name) return v;
  ValueId found = kNone;
  p.for_each_inst(b, [&](InstId i) {
    for (uint32_t k = 0; k < p.num_results(i); ++k)
      if (p.name(p.result(i, k)) == name) found = p.result(i, k);
  });
  return found;
}

/// The first error of verify_program, or "" when the program verifies.
inline std::string verify_error(const Program& p) {
  auto d = verify_program(p);
  return d.empty() ? std::string() : d[0].message;
}

/// Number of live instructions with op `op` in all bodies.
inline int count_op(const Program& p, OpCode op) {
  int n = 0;
  for (BodyId b = 0; b < p.num_bodies(); ++b)
    p.for_each_inst(b, [&](InstId i) { n += p.op(i) == op; });
  return n;
}

}  // namespace ptir::testing
