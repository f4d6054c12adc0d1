// The fuzz_parse check, header-only so the parser target links only ptir_ir: any bytes give a located
// error, or a program that prints, re-parses to the same text and verifies without crashing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/text.h"
#include "ir/verifier.h"

namespace ptir::fuzz {

/// "" when the bytes behave, else what went wrong.
inline std::string fuzz_parse_case(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseResult r = parse_program(text, "fuzz.ptir");
  if (!r.ok()) return r.error.rfind("fuzz.ptir:", 0) == 0 ? "" : "error without a location: " + r.error;
  std::string printed = print_program(*r.program);
  ParseResult again = parse_program(printed, "printed.ptir");
  if (!again.ok()) return "the printed program does not parse: " + again.error + "\n" + printed;
  if (print_program(*again.program) != printed) return "print(parse(print(p))) != print(p):\n" + printed;
  (void)verify_program(*r.program, 4);
  return "";
}

}  // namespace ptir::fuzz
