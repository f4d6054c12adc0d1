// Random rules of the rule language (docs/rules.md) for fuzzing the prover (docs/fuzzing.md, "The
// prover fuzzer"). A source DAG of 1-8 data-movement and elementwise ops with captured attributes reused
// across ops, constraints, fast-math assumptions, shared subterms (`... as %a`) and type captures; the
// result is a random MUTATION of the source (ops dropped, duplicated, reordered or replaced, operands
// swapped, attributes changed, an identity result), so many rules are wrong and some are right.
//
// Fuzz-level, not verify-level: every decision is one call on Choices (fuzz/gen/choices.h), so the same
// generator is driven by a seed (the ctest property, campaigns), RapidCheck or libFuzzer bytes
// (fuzz_prove). It writes rule TEXT only; the loader (rewriter/rules) is the one builder of rules.
#pragma once
#include <string>

#include "fuzz/gen/choices.h"

namespace ptir::fuzz {

struct RuleGenOptions {
  int min_ops = 1;  ///< op nodes in the source DAG
  int max_ops = 8;
  /// One rule in this many uses a captured attribute in two roles on purpose (e.g. a perm capture as
  /// slice starts): compile.cpp must reject it with a load error. 0: never.
  int role_conflict_one_in = 8;
};

struct GeneratedRule {
  std::string text;        ///< one rule, `rule NAME [...] : SOURCE where ... => RESULT`, with a comment line
  std::string name;
  std::string mutation;    ///< what the result's mutation did ("identity", "swap operands of sub", ...)
  bool role_conflict = false;  ///< a capture was planted in two attribute roles: loading must fail
  int source_ops = 0;
};

/// Writes one random rule named `name`.
GeneratedRule generate_rule(Choices& c, const RuleGenOptions& o = {}, const std::string& name = "fuzz_rule");

}  // namespace ptir::fuzz
