// `ptir check-equiv` and `ptir dot`: placeholders until the SMT layer lands (issue 4).
#include <cstdio>

#include "tools/commands.h"

namespace ptir::tool {
int cmd_check_equiv(int, char**) {
  std::fprintf(stderr, "ptir check-equiv: not built yet\n");
  return 3;
}
int cmd_dot(int, char**) {
  std::fprintf(stderr, "ptir dot: not built yet\n");
  return 2;
}
}  // namespace ptir::tool
