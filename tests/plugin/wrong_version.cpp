// A plugin that claims to be built against ptir 0.4.0: refused, naming both versions.
#include "patterns/plugin.h"

static void register_nothing(ptir::PluginRegistry&) {}

extern "C" const ptir::PluginInfo* ptir_plugin_info() {
  static const ptir::PluginInfo info{ptir::kPluginApiVersion, "0.4.0", PTIR_PLUGIN_CXX_ABI, "old_plugin",
                                     &register_nothing};
  return &info;
}
