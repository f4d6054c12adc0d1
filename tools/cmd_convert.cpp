// `ptir convert`: the dialect-conversion driver (docs/rewriter.md, "Conversion") for a target
// (patterns/targets/NAME.target, or a target file of the user's).
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "ir/text.h"
#include "ir/verifier.h"
#include "patterns/conversion/conversion_patterns.h"
#include "rewriter/conversion/conversion.h"
#include "tools/commands.h"
#include "tools/common.h"
#include "tools/targets.h"
#include "verify/prove/conversion.h"
#include "verify/refine.h"
#include "verify/report.h"

namespace ptir::tool {
namespace {

using conversion::ConversionTarget;

}  // namespace

int cmd_convert(const Args& a) {
  const bool from_file = a.has("target-file");
  if (from_file == a.has("target")) {
    std::fprintf(stderr, "ptir convert: give one of --target=NAME and --target-file FILE\n");
    return kExitUsage;
  }
  std::optional<ConversionTarget> target = load_conversion_target("convert", *a.get(from_file ? "target-file" : "target"), from_file);
  if (!target) return kExitBadInput;
  std::vector<const conversion::ConversionPattern*> patterns;
  if (!conversion_patterns_of("convert", *target, patterns)) return kExitBadInput;
  if (a.has("prove-patterns")) {
    const unsigned per = static_cast<unsigned>(*a.u64("validate-timeout-ms"));
    if (patterns.empty()) {  // as `ptir prove --target`: nothing proved is not a pass
      std::fprintf(stderr, "ptir convert: target %s has no conversion pattern: nothing to prove\n", target->name.c_str());
      return kExitBadInput;
    }
    std::vector<prove::ConversionPatternReport> reps = prove::prove_conversion_patterns(*target, patterns, per);
    bool ok = true;
    std::printf("target %s: %zu conversion pattern%s\n", target->name.c_str(), reps.size(), reps.size() == 1 ? "" : "s");
    for (const prove::ConversionPatternReport& r : reps) {
      std::printf("%-28s %s\n", r.pattern.c_str(), r.verdict.c_str());
      for (const prove::ConversionInstanceResult& in : r.instances)
        std::printf("  %-36s %s%s\n", in.instance.c_str(), in.verdict.c_str(), in.note.empty() ? "" : (" (" + in.note + ")").c_str());
      for (const prove::ConversionInstanceResult& in : r.instances)
        if (!in.report.empty()) std::printf("%s", in.report.c_str());
      ok = ok && r.verdict == "PROVED";
    }
    return ok ? kExitOk : kExitBadInput;
  }
  const std::string mode_s = *a.get("mode");
  const conversion::Mode mode = mode_s == "full" ? conversion::Mode::Full
                                : mode_s == "analysis" ? conversion::Mode::Analysis : conversion::Mode::Partial;
  const bool validate = a.has("validate");
  const unsigned timeout = static_cast<unsigned>(*a.u64("validate-timeout-ms"));
  auto loaded = load_program(input_path(a));
  if (!loaded) return kExitBadInput;
  Program& p = loaded->program();
  std::unique_ptr<Program> before;
  if (validate) before = std::make_unique<Program>(p);
  conversion::ConversionResult r = conversion::apply_conversion(p, *target, patterns, mode);
  if (!r.error.empty()) {
    std::fprintf(stderr, "ptir convert: %s\n", r.error.c_str());
    return kExitBadInput;
  }
  auto list_illegal = [&](const char* head) {
    for (const conversion::Illegal& il : r.still_illegal)
      std::fprintf(stderr, "%s: @%s: %s\n    %s\n", head, il.function.c_str(), il.text.c_str(), il.reason.c_str());
  };
  if (mode == conversion::Mode::Analysis) {
    std::printf("target %s: %d illegal instruction%s, %zu would become legal, %zu would stay illegal\n",
                target->name.c_str(), r.illegal_before, r.illegal_before == 1 ? "" : "s", r.would_convert.size(),
                r.still_illegal.size());
    for (const std::string& w : r.would_convert) std::printf("  converts: %s\n", w.c_str());
    for (const conversion::Illegal& il : r.still_illegal)
      std::printf("  stays illegal: @%s: %s\n    %s\n", il.function.c_str(), il.text.c_str(), il.reason.c_str());
    return kExitOk;
  }
  if (!r.ok) {
    list_illegal("ptir convert: error: stays illegal");
    std::fprintf(stderr,
                 "ptir convert: full conversion for target %s failed: %zu instruction%s illegal; the program "
                 "is unchanged\n",
                 target->name.c_str(), r.still_illegal.size(), r.still_illegal.size() == 1 ? " stays" : "s stay");
    return kExitBadInput;
  }
  if (auto d = verify_program(p, 1); !d.empty()) {
    std::fprintf(stderr, "ptir convert: internal error: the converted program does not verify: %s\n",
                 d[0].message.c_str());
    return kExitBadInput;
  }
  std::string out = print_program(p);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::string fired;
  for (const auto& [n, c] : r.fired) fired += (fired.empty() ? "" : ", ") + n + " " + std::to_string(c);
  std::fprintf(stderr, "convert: target %s: %d converted%s, %zu still illegal\n", target->name.c_str(), r.converted,
               fired.empty() ? "" : (" (" + fired + ")").c_str(), r.still_illegal.size());
  list_illegal("convert: still illegal");
  int code = kExitOk;
  if (a.has("certify")) {
    // The certificate: each kind that fired (ConversionResult::fired_on), proved on its instance.
    std::vector<prove::ConversionPatternReport> reps = prove::prove_conversion_patterns(
        *target, patterns, static_cast<unsigned>(*a.u64("validate-timeout-ms")), r.fired_on);
    // Every kind that fired needs an instance of exactly that kind that converted and was PROVED: a kind
    // the target's convert lines generate no instance of (a pattern that fires on a dtype no `convert`
    // line names, say) was not proved, so it is NOT CERTIFIED, never passed over.
    bool certified = true;
    std::string lines;
    std::set<std::string> checked;
    for (const prove::ConversionPatternReport& rep : reps)
      for (const prove::ConversionInstanceResult& in : rep.instances) {
        if (in.verdict == "NOT FIRED") continue;
        certified = certified && in.verdict == "PROVED";
        checked.insert(rep.pattern + " " + in.instance);
        lines += "  " + rep.pattern + " on " + in.instance + ": " + in.verdict + (in.note.empty() ? "" : " (" + in.note + ")") + "\n";
      }
    for (const std::string& k : r.fired_on) {
      if (checked.count(k)) continue;
      certified = false;
      const size_t sp = k.find(' ');
      lines += "  " + k.substr(0, sp) + " on " + k.substr(sp + 1) +
               ": NOT PROVED (the target generates no instance of this kind: no `convert` line gives its dtype, "
               "or the pattern did not fire on the instance)\n";
    }
    std::fprintf(stderr, "certify: %s: %zu kind%s of conversion fired\n%s",
                 certified ? "CERTIFIED" : "NOT CERTIFIED", r.fired_on.size(), r.fired_on.size() == 1 ? "" : "s",
                 lines.c_str());
    if (!certified) code = kExitBadInput;
  }
  if (validate) {
    verify::CheckOptions co;
    co.timeout_ms = timeout;
    verify::ProgramVerdict v = verify::check_program_refinement(*before, p, co);
    std::fprintf(stderr, "validate: %s\n", verify::program_summary_line(v).c_str());
    if (!v.proved()) {
      if (v.kind() == 1) std::fputs(verify::format_program_text(v, *before, {}).c_str(), stderr);
      code = kExitBadInput;
    }
  }
  return code;
}

}  // namespace ptir::tool
