// `--load-plugin` (tools/plugin.h).
#include "tools/plugin.h"

#include <cstdio>
#include <filesystem>
#include <set>

namespace ptir::tool {

bool load_plugins(const Args& a, std::vector<std::shared_ptr<const Plugin>>& out) {
  std::set<std::filesystem::path> seen;
  for (const std::string& path : a.all("load-plugin")) {
    // The same library twice would register every pattern twice (dlopen hands back the loaded one).
    std::error_code ec;
    if (!seen.insert(std::filesystem::weakly_canonical(path, ec)).second) {
      std::fprintf(stderr, "%s: error: this plugin is already loaded (--load-plugin names it twice)\n", path.c_str());
      return false;
    }
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
