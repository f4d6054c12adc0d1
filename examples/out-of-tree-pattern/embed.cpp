// Embedding ptir as a library (the other half of the package): a compiler links ptir::patterns to run
// ptir's canonicalization on its own programs, and ptir::verify to have Z3 check the result.
//   example_embed FILE   prints the optimized program and the verdict; exit 0 only when PROVED.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ir/text.h"
#include "ir/version.h"
#include "patterns/passes.h"
#include "rewriter/pipeline.h"
#include "verify/refine.h"
#include "verify/report.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: example_embed FILE\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  ptir::ParseResult parsed = ptir::parse_program(text.str(), argv[1]);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", parsed.error.c_str());
    return 1;
  }
  ptir::Program& program = *parsed.program;
  const ptir::Program before = program;

  // The default pipeline (canonicalize with ptir's pattern library, CSE, DCE), as `ptir opt` runs it.
  ptir::PassRegistry registry = ptir::default_pass_registry();
  ptir::PassManager pm;
  if (std::string err = ptir::parse_pipeline(ptir::kDefaultPipeline, registry, pm.top()); !err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  if (ptir::PipelineResult r = pm.run(program); !r.ok) {
    std::fprintf(stderr, "%s\n", r.error.c_str());
    return 1;
  }
  std::fputs(ptir::print_program(program).c_str(), stdout);

  const ptir::verify::ProgramVerdict v = ptir::verify::check_program_refinement(before, program);
  std::printf("// ptir %s: %s\n", ptir::kVersionString, ptir::verify::program_summary_line(v).c_str());
  return v.kind() == 0 ? 0 : 1;
}
