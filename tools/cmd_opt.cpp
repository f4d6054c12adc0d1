// `ptir opt`: placeholder until the rewrite engine lands (issue 3).
#include <cstdio>

#include "tools/commands.h"

namespace ptir::tool {
int cmd_opt(int, char**) {
  std::fprintf(stderr, "ptir opt: not built yet\n");
  return 2;
}
}  // namespace ptir::tool
