// Helpers for the interpreter tests: run PTIR text, build literals, read results as raw bits.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/interp.h"
#include "ir/text.h"

namespace ptir::test {

/// Parses a literal such as `dense<[1.0, -0.0]> : tensor<f32, 2>`; fails the test on a parse error.
inline Tensor lit(std::string_view text) {
  Tensor t;
  std::string err;
  EXPECT_TRUE(parse_literal(text, &t, &err)) << err;
  return t;
}

/// A tensor of `type` (e.g. "tensor<f16, 3>") holding exactly these element bit patterns.
inline Tensor from_bits(std::string_view type, const std::vector<uint64_t>& bits) {
  TensorType tt;
  std::string err;
  EXPECT_TRUE(parse_type(type, &tt, &err)) << err;
  Tensor t(tt);
  EXPECT_EQ(static_cast<size_t>(t.size()), bits.size());
  for (size_t i = 0; i < bits.size() && i < static_cast<size_t>(t.size()); ++i) t.set_bits(i, bits[i]);
  return t;
}

/// Raw bits of every element of `t`.
inline std::vector<uint64_t> bits(const Tensor& t) {
  std::vector<uint64_t> v;
  for (int64_t i = 0; i < t.size(); ++i) v.push_back(t.bits(i));
  return v;
}

/// Parses and runs the entry function of `text` on `inputs`.
inline RunResult run_text(std::string_view text, const std::vector<Tensor>& inputs = {},
                          const InterpOptions& opts = {}) {
  ParseResult pr = parse_program(text, "test.ptir");
  EXPECT_TRUE(pr.ok()) << pr.error << "\n" << text;
  if (!pr.ok()) return RunResult{RunStatus::Error, {}, pr.error, kNone};
  return run_program(*pr.program, inputs, opts);
}

/// Runs `%r = STMT -> RESULT` in a function whose parameters %a, %b, %c take the inputs' types.
inline RunResult run_op(std::string_view stmt, std::string_view result, const std::vector<Tensor>& inputs,
                        const InterpOptions& opts = {}) {
  std::string text = "func @main(";
  const char* names[] = {"%a", "%b", "%c", "%d"};
  for (size_t k = 0; k < inputs.size(); ++k)
    text += std::string(k ? ", " : "") + names[k] + ": " + to_string(inputs[k].type);
  text += ") -> " + std::string(result) + " {\n  %r = " + std::string(stmt) + " -> " + std::string(result) +
          "\n  return %r\n}\n";
  return run_text(text, inputs, opts);
}

/// The bits of the single result of a successful run (fails the test otherwise).
inline std::vector<uint64_t> ok_bits(const RunResult& r, size_t k = 0) {
  EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
  if (r.status != RunStatus::Ok || r.results.size() <= k) return {};
  return bits(r.results[k]);
}

using Bits = std::vector<uint64_t>;

/// The element bits of a literal written in the text format (the expected value of a test).
inline Bits lit_bits(std::string_view text) { return bits(lit(text)); }

}  // namespace ptir::test
