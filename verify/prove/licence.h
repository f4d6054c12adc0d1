// The real-number licences of `ptir prove` (docs/verification.md "Licences: afn and reassoc over the
// reals"): a rule that assumes nnan, ninf, nsz and afn (or reassoc), and that the exact check does not
// prove, is LICENSED (afn) (or LICENSED (reassoc)) when its source and result are equal over the real
// numbers, with the transcendentals as real functions. Never a proof: a licence is what the flag lets a
// compiler do, not refinement.
#pragma once
#include <optional>
#include <string>

#include "rewriter/rules/ast.h"
#include "verify/prove/prove.h"

namespace ptir::prove {

/// The licence of rule `r`: Status::LicensedAFn, Status::LicensedReassoc, or nullopt (no licence: the
/// rule does not assume the flags, is not elementwise real arithmetic, may be instantiated on integers,
/// or Z3 did not show it; `why` says which). `budget_ms`: Z3's budget (deterministic units).
std::optional<Status> licence_of(const rules::Rule& r, unsigned budget_ms, std::string* why);

}  // namespace ptir::prove
