// `ptir synth`: print a random valid program from the fuzz generator, deterministic for a seed.
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/gen/generator.h"
#if PTIR_HAVE_MLIR
#include "fuzz/mlir/export_profile.h"
#endif
#include "ir/text.h"
#include "ir/verifier.h"
#include "tools/commands.h"
#include "tools/common.h"

namespace ptir::tool {

int cmd_synth(const Args& a) {
  fuzz::GenOptions o;
  o.opaque_ops = a.has("opaque");
  o.seeded_patterns = a.has("seeded-patterns");
  o.num_ops = static_cast<int>(*a.u64("ops"));
  o.max_elements = static_cast<int64_t>(*a.u64("max-elements"));
  const uint64_t seed = *a.u64("seed");
  // The table lists the accepted dtypes and profiles (tests/tools checks they are those the parsers take).
  for (const std::string& d : a.list("dtypes")) {
    auto t = parse_dtype(d);
    if (!t) {
      std::fprintf(stderr, "ptir synth: --dtypes: the option table accepts '%s', parse_dtype does not\n", d.c_str());
      return kExitBadInput;
    }
    o.dtypes.push_back(*t);
  }
  if (!fuzz::parse_profile(*a.get("profile"), &o.profile)) {
    std::fprintf(stderr, "ptir synth: --profile: the option table accepts '%s', fuzz::parse_profile does not\n",
                 a.get("profile")->c_str());
    return kExitBadInput;
  }
#if PTIR_HAVE_MLIR
  if (const auto d = a.get("exportable")) {
    if (a.has("opaque") || a.has("seeded-patterns")) {
      std::fprintf(stderr, "ptir synth: --exportable cannot be combined with --opaque or --seeded-patterns "
                           "(export spells neither opaque ops nor every seeded template)\n");
      return kExitUsage;
    }
    o = fuzz::exportable_options(*d == "tosa" ? mlirfe::ExportDialect::Tosa : mlirfe::ExportDialect::Arith, o);
    if (o.dtypes.empty()) {
      std::fprintf(stderr, "ptir synth: --dtypes: none of them can be exported (export writes i1, si8..si64, "
                           "bf16, f16, f32, f64)\n");
      return kExitUsage;
    }
  }
#endif
  fuzz::PrngChoices c(seed);
  fuzz::Generated g = fuzz::generate(c, o);
  if (!g.program) {
    std::fprintf(stderr, "ptir synth: generator bug (seed %llu): %s\n", static_cast<unsigned long long>(seed),
                 g.error.c_str());
    return kExitBadInput;
  }
  if (auto d = verify_program(*g.program, 1); !d.empty()) {
    std::fprintf(stderr, "ptir synth: generator bug (seed %llu): %s\n", static_cast<unsigned long long>(seed),
                 d[0].message.c_str());
    return kExitBadInput;
  }
  std::fputs(print_program(*g.program).c_str(), stdout);
  return kExitOk;
}

}  // namespace ptir::tool
