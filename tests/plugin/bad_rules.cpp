// A plugin carrying a malformed rule file: the load fails with PLUGIN(FILE):LINE:COL: error: ...
#include "patterns/plugin.h"

PTIR_PLUGIN("bad_rules", registry) {
  registry.add_rule_text("bad.rules", "// fine\nrule ok : neg(neg(%x)) => %x\nrule typo : abs(%x) => %y\n");
}
