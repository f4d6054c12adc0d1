// A plugin whose one pattern cannot be made: its constructor throws when the loader calls the factory.
#include <stdexcept>

#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

class NeedsAFile final : public ptir::Pattern {
 public:
  NeedsAFile() : Pattern("needs_a_file", ptir::kOnly<ptir::OpCode::Neg>, 1) {
    throw std::runtime_error("table.bin not found");
  }
  bool match_and_rewrite(ptir::InstId, ptir::ProgramRewriter&) const override { return false; }
};

}  // namespace

PTIR_PLUGIN("factory_throws", registry) { registry.add_pattern<NeedsAFile>(); }
