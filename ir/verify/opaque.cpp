// Verifier rules of the opaque ops: the quantize family and custom_call take and give any types (their
// meaning is a registered kernel); only their attributes are checked.
#include "ir/verify/check.h"

namespace ptir::verify_detail {

std::string verify_quantize(const Ctx& c) {
  const AttrValue* axis = c.attrs.find("axis");
  if (!axis) return {};
  return check_axis(c, "axis", axis->ints[0], c.operand(0).rank());
}

std::string verify_custom_call(const Ctx& c) {
  if (c.attrs.word("target").empty()) return c.fail("target[\"\"] is empty: custom_call needs a target name");
  return {};
}

}  // namespace ptir::verify_detail
