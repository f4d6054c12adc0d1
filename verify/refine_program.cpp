// Whole-program refinement: every function of the source against its namesake in the target
// (docs/semantics.md, "Programs"). The program verdict is the weakest function verdict.
#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "verify/refine.h"

namespace ptir::verify {
namespace {

using clock = std::chrono::steady_clock;

double ms_since(clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); }

/// Function names to bodies, in program order (regions excluded).
std::vector<std::pair<std::string_view, BodyId>> functions_of(const Program& p) {
  std::vector<std::pair<std::string_view, BodyId>> fs;
  for (BodyId b = 0; b < p.num_bodies(); ++b)
    if (!p.body(b).is_region) fs.emplace_back(p.body(b).name, b);
  return fs;
}

/// Rank of a verdict kind from strongest to weakest: PROVED 0, UNKNOWN 1, REFUTED 2, ERROR 3.
int weakness(int kind) {
  switch (kind) {
    case 0: return 0;
    case 2: return 1;
    case 1: return 2;
    default: return 3;
  }
}

}  // namespace

int ProgramVerdict::kind() const {
  if (!errors.empty() || functions.empty()) return 3;
  int worst = 0;
  for (const FunctionVerdict& f : functions) {
    const int k = static_cast<int>(f.verdict.v.index());
    if (weakness(k) > weakness(worst)) worst = k;
  }
  return worst;
}

const char* verdict_word(const ProgramVerdict& v) {
  switch (v.kind()) {
    case 0: return "PROVED";
    case 1: return "REFUTED";
    case 2: return "UNKNOWN";
    default: return "ERROR";
  }
}

ProgramVerdict check_program_refinement(const Program& src, const Program& tgt, const CheckOptions& opts,
                                        const std::string& only_function, const FunctionProgress& on_function) {
  const auto start = clock::now();
  ProgramVerdict pv;
  pv.only = only_function;
  const auto sf = functions_of(src);
  const auto tf = functions_of(tgt);
  pv.src_functions = sf.size();
  std::unordered_map<std::string_view, BodyId> tgt_by_name;
  for (const auto& [name, b] : tf) tgt_by_name.emplace(name, b);
  std::unordered_map<std::string_view, BodyId> src_by_name;
  for (const auto& [name, b] : sf) src_by_name.emplace(name, b);

  // Which functions to check; names on one side only make the programs incomparable.
  std::vector<std::pair<std::string_view, BodyId>> todo;
  if (!only_function.empty()) {
    auto s = src_by_name.find(only_function);
    if (s == src_by_name.end()) pv.errors.push_back("the source has no function @" + only_function);
    if (!tgt_by_name.count(only_function)) pv.errors.push_back("the target has no function @" + only_function);
    if (s != src_by_name.end()) todo.emplace_back(s->first, s->second);
  } else {
    if (sf.empty()) pv.errors.push_back("the source defines no function");
    for (const auto& [name, b] : sf)
      if (!tgt_by_name.count(name)) pv.errors.push_back("function @" + std::string(name) + " is missing from the target");
    for (const auto& [name, b] : tf)
      if (!src_by_name.count(name))
        pv.errors.push_back("the target defines @" + std::string(name) + ", which the source does not");
    todo = sf;
  }
  if (!pv.errors.empty()) {
    pv.ms = ms_since(start);
    return pv;
  }

  for (size_t k = 0; k < todo.size(); ++k) {
    const auto [name, sb] = todo[k];
    const BodyId tb = tgt_by_name.at(name);
    // An equal share of what is left of the budget, so early functions cannot starve later ones and
    // the whole check ends within opts.timeout_ms (plus the solver host's stop latency).
    const double left = std::max(0.0, opts.timeout_ms - ms_since(start));
    CheckOptions o = opts;
    o.timeout_ms = static_cast<unsigned>(std::max(1.0, left / static_cast<double>(todo.size() - k)));
    FunctionVerdict fv{std::string(name), sb, tb, {}};
    if (on_function) on_function(k, todo.size(), fv.name, nullptr);
    if (left < 1.0) {
      fv.verdict.v = Unknown{"the time budget of the whole program ran out before this function"};
    } else {
      fv.verdict = check_refinement(src, sb, tgt, tb, o);
    }
    if (on_function) on_function(k, todo.size(), fv.name, &fv.verdict);
    pv.functions.push_back(std::move(fv));
  }
  pv.ms = ms_since(start);
  return pv;
}

}  // namespace ptir::verify
