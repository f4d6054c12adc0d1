// A plugin that adds a rule file read from disk when it loads (PluginRegistry::add_rule_file), at the
// path in PTIR_TEST_PLUGIN_RULE_FILE: the file can change while the plugin's library does not, and the
// verdict cache must see it (tests/verify/check_verdict_cache.sh, step 6).
#include <cstdlib>

#include "patterns/plugin.h"

PTIR_PLUGIN("rule_file_on_disk", registry) {
  const char* path = std::getenv("PTIR_TEST_PLUGIN_RULE_FILE");
  registry.add_rule_file(path ? path : "PTIR_TEST_PLUGIN_RULE_FILE.rules");
}
