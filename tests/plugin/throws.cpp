// A plugin whose registration function throws: the load fails with the exception's message.
#include <stdexcept>

#include "patterns/plugin.h"

PTIR_PLUGIN("throws", registry) { throw std::runtime_error("cannot find my configuration"); }
