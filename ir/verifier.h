// The IR verifier: type and shape rules of every op, region signatures, SSA dominance, erased-value uses.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/intern_index.h"
#include "ir/program.h"

namespace ptir {

struct SourceMap;

/// Deepest chain of bodies a run may enter: a function (or a region run directly) and the regions it runs
/// through cond/while/scan, nested. The verifier rejects deeper programs; the interpreter refuses the
/// same depth (ir/interp.cpp), so a verified program never meets that limit at run time.
inline constexpr size_t kMaxRegionDepth = 128;
/// The same limit under the name the interpreter's guard uses.
inline constexpr size_t kMaxRegionNesting = kMaxRegionDepth;

/// One verifier failure. `message` names the op, the operand and the rule, e.g.
/// "transpose: perm[1, 1] is not a permutation of 0..1".
struct Diagnostic {
  BodyId body = kNone;
  InstId inst = kNone;  ///< kNone for body-level problems (signature, missing return)
  std::string message;
};

/// Checks one instruction's operand/result types and attributes against its op's rules.
/// Returns an empty string when the instruction is well formed.
std::string verify_inst(const Program& p, InstId i);

/// verify_inst with a memo of the signatures that passed: op, attribute set, operand and result types
/// (interned ids, stable for the life of the Program, so equal signatures are equal keys). verify_inst
/// reads nothing else of an instruction except for ops that read other bodies (region ops, `return`)
/// and opaque ops, which are always verified. Bound to one Program: use a memo with one Program only.
class VerifyMemo {
 public:
  /// verify_inst(p, i), answered from the memo when an instruction of its signature passed before
  /// (through this memo); a signature that passes now is remembered, a failure is not.
  std::string verify(const Program& p, InstId i);
  /// Whether `i` is well formed (verify(p, i) is "").
  bool passes(const Program& p, InstId i) { return verify(p, i).empty(); }

 private:
  std::vector<uint32_t> key_;  ///< scratch: op, attrs, operand count, operand and result type ids
  /// The signatures that passed, flat: `keys_` holds each key as its length then its words, and
  /// `index_` finds a key's position in it by hash (a few allocations per memo, not a hash-map node and
  /// a vector per signature).
  std::vector<uint32_t> keys_;
  InternIndex index_;
};

/// Verifies the whole program: every instruction, every body signature and return, region signatures
/// of cond/while/scan, SSA dominance (a use sees a definition earlier in the same body), no use of an
/// erased instruction's results, entry function present, no recursive regions, region nesting at most
/// kMaxRegionDepth bodies deep. Stops after `max_errors`
/// diagnostics (0: no limit). Linear in the program size; see docs/verifier.md for every rule.
std::vector<Diagnostic> verify_program(const Program& p, size_t max_errors = 1);

/// Formats a diagnostic as `FILE:LINE:COL: error: message` when a source map is given, else `error: message`.
std::string format_diagnostic(const Diagnostic& d, const Program& p, const SourceMap* sm);

}  // namespace ptir
