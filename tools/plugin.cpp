// `--load-plugin` (tools/plugin.h).
#include "tools/plugin.h"

#include <cstdio>

namespace ptir::tool {

bool load_plugins(const Args& a, std::vector<std::shared_ptr<const Plugin>>& out) {
  for (const std::string& path : a.all("load-plugin")) {
    auto loaded = load_plugin(path);
    if (auto* err = std::get_if<std::string>(&loaded)) {
      std::fprintf(stderr, "%s\n", err->c_str());
      return false;
    }
    out.push_back(std::get<std::shared_ptr<const Plugin>>(std::move(loaded)));
  }
  return true;
}

}  // namespace ptir::tool
