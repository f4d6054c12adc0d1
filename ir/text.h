// The PTIR text format: parser and printer (see docs/text-format.md).
#pragma once
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"

namespace ptir {

/// Where each instruction came from, for `FILE:LINE:COL:` diagnostics after parsing.
struct SourceMap {
  std::string filename;
  std::vector<uint32_t> line_starts;  ///< byte offset of each line
  std::vector<uint32_t> inst_offset;  ///< InstId -> byte offset of its statement (kNone if created later)
  std::vector<uint32_t> body_offset;  ///< BodyId -> byte offset of its header

  /// "FILE:LINE:COL" of a byte offset.
  std::string location(uint32_t offset) const;
  /// Location of an instruction, or of its body when the instruction has none.
  std::string inst_location(const Program& p, InstId i) const;
};

/// A parse result: a program, or one `FILE:LINE:COL: error: ...` message.
struct ParseResult {
  std::unique_ptr<Program> program;
  SourceMap source;
  std::string error;
  bool ok() const { return program != nullptr; }
};

/// Parses a whole file. Never throws, never crashes: malformed input gives `error`.
ParseResult parse_program(std::string_view text, std::string_view filename = "<input>");

/// Whether the parser reads `n` back as a value or function name after its sigil (`%`, `@`):
/// `[A-Za-z_][A-Za-z0-9_.]*` or digits only, at most 4096 characters. The printer prints any other
/// name a value was given as a fresh `%tN`.
bool is_readable_name(std::string_view n);

/// Prints a program in the canonical text form (a fixed point of parse+print).
std::string print_program(const Program& p);
/// The same text written to `out` as it is produced, in 64 KB pieces (memory independent of the program's
/// size). False when a write failed (the stream's error flag tells why).
bool print_program(const Program& p, std::FILE* out);
/// Prints one tensor as a literal: `dense<[1.0, 2.0]> : tensor<f32, 2>`.
std::string print_literal(const Tensor& t);
/// Prints just the `dense<...>` part.
std::string print_dense(const Tensor& t);
/// Parses a literal `dense<...> : tensor<...>` on its own (used for --inputs files and tests).
bool parse_literal(std::string_view text, Tensor* out, std::string* error);
/// Parses a type `tensor<...>` on its own.
bool parse_type(std::string_view text, TensorType* out, std::string* error);

}  // namespace ptir
