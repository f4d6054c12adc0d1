// A plugin that claims another C++ standard library (std::string and std::vector cross the boundary):
// refused, naming both.
#include "patterns/plugin.h"

static void register_nothing(ptir::PluginRegistry&) {}

extern "C" const ptir::PluginInfo* ptir_plugin_info() {
  static const ptir::PluginInfo info{ptir::kPluginApiVersion, PTIR_VERSION_STRING, "libc++ (pretend)", "other_abi",
                                     &register_nothing};
  return &info;
}
