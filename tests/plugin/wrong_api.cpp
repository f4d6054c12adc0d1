// A plugin of a future plugin API version: refused after reading only api_version.
#include "patterns/plugin.h"

extern "C" const ptir::PluginInfo* ptir_plugin_info() {
  static const ptir::PluginInfo info{ptir::kPluginApiVersion + 98, nullptr, nullptr, nullptr, nullptr};
  return &info;
}
