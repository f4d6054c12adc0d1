// libFuzzer target: any bytes -> parser. Must never crash, hang or trip a sanitizer; an accepted
// program must print, re-parse to the same text (fixed point) and verify without crashing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/text.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ptir::ParseResult r = ptir::parse_program(text, "fuzz.ptir");
  if (!r.ok()) {
    if (r.error.rfind("fuzz.ptir:", 0) != 0) __builtin_trap();  // every error is located
    return 0;
  }
  std::string printed = ptir::print_program(*r.program);
  ptir::ParseResult again = ptir::parse_program(printed, "printed.ptir");
  if (!again.ok()) __builtin_trap();
  if (ptir::print_program(*again.program) != printed) __builtin_trap();
  (void)ptir::verify_program(*r.program, 4);
  return 0;
}
