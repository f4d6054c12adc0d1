// `ptir synth`: print a random valid program from the fuzz generator, deterministic for a seed.
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/gen/generator.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "tools/commands.h"
#include "tools/common.h"

namespace ptir::tool {
namespace {

constexpr const char* kHelp =
    "usage: ptir synth [options]\n"
    "\n"
    "Prints a random, well-typed PTIR program (it parses and verifies) on stdout, from the generator the\n"
    "fuzzers use (docs/fuzzing.md). The same options and seed always give the same program.\n"
    "\n"
    "options:\n"
    "  --ops N             statements in @main, default 12 (regions of cond/while/scan come on top);\n"
    "                      0 to 100000\n"
    "  --seed S            seed of the generator's choices, default 1\n"
    "  --dtypes A,B,...    data dtypes to draw from (i1 si8 ui8 si16 ui16 si32 ui32 si64 ui64 bf16 f16\n"
    "                      f32 f64), default all; i1 predicates and si32/si64 indices may appear anyway\n"
    "  --profile P         random (default: every op), mlp, attention, conv, or control (cond/while/scan)\n"
    "  --seeded-patterns   also plant the source DAGs of known rewrites and their near misses (x*1,\n"
    "                      x+(-0.0), transpose pairs, cast round trips, slice of concat, ...)\n"
    "  --opaque            also generate custom_call/quantize/dequantize/requantize; 'ptir run' has no\n"
    "                      kernels for them (the fuzz harness registers its own), so off by default\n"
    "  --max-elements N    largest element count of any tensor, default 48 (1 to 1000000)\n"
    "\n"
    "Literals are biased to edge values (+-0, +-inf, NaN payloads, subnormals, largest finite, INT_MIN,\n"
    "-1, 0); shapes include rank 0, empty and size-1 dims. Exit codes: 0 success, 2 usage error (the bad\n"
    "option is named), 1 if the generator wrote an invalid program (a bug: please report it with the seed)\n"
    "or the output cannot be written.\n";

bool parse_dtypes(const std::string& s, std::vector<DType>& out) {
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    const std::string name = s.substr(b, e - b);
    auto d = parse_dtype(name);
    if (!d) {
      std::fprintf(stderr,
                   "ptir synth: --dtypes: unknown dtype '%s' (known: i1 si8 ui8 si16 ui16 si32 ui32 si64 "
                   "ui64 bf16 f16 f32 f64)\n",
                   name.c_str());
      return false;
    }
    out.push_back(*d);
    b = e + 1;
  }
  return true;
}

}  // namespace

int cmd_synth(int argc, char** argv) {
  Args a = split_args(argc, argv, {"ops", "seed", "dtypes", "profile", "max-elements"});
  if (a.has("help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (!check_known(a, "synth", {"ops", "seed", "dtypes", "profile", "seeded-patterns", "opaque", "max-elements"}))
    return kExitUsage;
  if (!a.positional.empty()) {
    std::fprintf(stderr, "ptir synth: unexpected argument '%s' (see 'ptir synth --help')\n", a.positional[0].c_str());
    return kExitUsage;
  }
  fuzz::GenOptions o;
  o.opaque_ops = a.has("opaque");
  o.seeded_patterns = a.has("seeded-patterns");
  uint64_t seed = 1;
  if (auto v = a.get("ops")) {
    auto n = parse_u64_option("synth", "ops", *v);
    if (!n) return kExitUsage;
    if (*n > 100000) {
      std::fprintf(stderr, "ptir synth: --ops %s is too large (at most 100000)\n", v->c_str());
      return kExitUsage;
    }
    o.num_ops = static_cast<int>(*n);
  }
  if (auto v = a.get("seed")) {
    auto n = parse_u64_option("synth", "seed", *v);
    if (!n) return kExitUsage;
    seed = *n;
  }
  if (auto v = a.get("max-elements")) {
    auto n = parse_u64_option("synth", "max-elements", *v);
    if (!n) return kExitUsage;
    if (*n < 1 || *n > 1000000) {
      std::fprintf(stderr, "ptir synth: --max-elements %s is out of range (1 to 1000000)\n", v->c_str());
      return kExitUsage;
    }
    o.max_elements = static_cast<int64_t>(*n);
  }
  if (auto v = a.get("dtypes"); v && !parse_dtypes(*v, o.dtypes)) return kExitUsage;
  if (auto v = a.get("profile"); v && !fuzz::parse_profile(*v, &o.profile)) {
    std::fprintf(stderr, "ptir synth: --profile: unknown profile '%s' (known: random mlp attention conv control)\n",
                 v->c_str());
    return kExitUsage;
  }
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
