// `--load-plugin LIB` for `ptir opt` and `ptir prove`: loads every plugin named on the command line
// (patterns/plugin.h) and reports a failure the same way in both commands.
#pragma once
#include <memory>
#include <vector>

#include "patterns/plugin.h"
#include "tools/common.h"

namespace ptir::tool {

/// Loads the plugins of every `--load-plugin` in order. On failure (or a plugin named twice) prints the
/// loader's one-line error ("LIB: error: ...") and returns false.
bool load_plugins(const Args& a, std::vector<std::shared_ptr<const Plugin>>& out);

}  // namespace ptir::tool
