// A plugin declaring an instance template for a pattern it does not add: refused when loaded.
#include "patterns/plugin.h"

PTIR_PLUGIN("bad_template", registry) { registry.add_template("no_such_pattern", "neg(%x)"); }
