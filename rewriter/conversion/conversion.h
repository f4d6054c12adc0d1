// The dialect-conversion driver (docs/rewriter.md, "Conversion"): MLIR's conversion target, type converter,
// conversion patterns and partial / full / analysis modes, in ptir's terms. A conversion rewrites every
// instruction the target calls illegal with the conversion patterns until none is left (or none applies);
// a full conversion that leaves an illegal op restores the program exactly as it was.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/rewriter.h"

namespace ptir::conversion {

/// The dtype an instruction computes in: its accumulation dtype for reductions and dot_general (the
/// `accum` attribute, else the default of docs/semantics.md), the operands' dtype for compare, the
/// result's for the other arithmetic ops; nullopt for ops that only move or convert elements (casts,
/// select, shape and data-movement ops, constants), which are legal in every dtype.
std::optional<DType> compute_dtype(const Program& p, InstId i);

/// What a target says about one instruction: legal, or illegal with the reason.
using LegalityFn = std::function<std::optional<std::string>(const Program& p, InstId i)>;

/// Which ops and dtypes a backend runs. An instruction is legal when its op is not illegal, its dynamic
/// callback (if any) accepts it, and, when it computes (compute_dtype), it computes in a legal dtype and
/// reads only legal dtypes.
class ConversionTarget {
 public:
  std::string name;
  std::set<DType> legal_dtypes;                   ///< dtypes arithmetic may compute in
  std::map<OpCode, std::string> illegal_ops;      ///< op -> why (illegal in every dtype)
  std::map<OpCode, LegalityFn> dynamic;           ///< op -> callback ("dynamically legal")
  std::map<DType, DType> type_map;                ///< the type converter: narrow dtype -> compute dtype
  std::vector<std::string> patterns;              ///< names of the conversion patterns it uses
  std::vector<int> pattern_lines;                 ///< the file line that names each of `patterns`
  bool accepts_accum_change = false;              ///< a narrow accumulation may be widened (not exact)
  std::string source;                             ///< where it was read from

  /// nullopt: legal; else why not.
  std::optional<std::string> illegal_reason(const Program& p, InstId i) const;
};

/// Parses a target file (docs/rewriter.md, "Target files"). On error returns nullopt with `err` set
/// ("FILE:LINE: error: ...").
std::optional<ConversionTarget> parse_target(std::string_view text, std::string_view file, std::string& err);

/// The type converter of a target: the dtype an illegal dtype is computed in, and the casts
/// (materializations) that bridge converted and unconverted values.
class TypeConverter {
 public:
  explicit TypeConverter(const ConversionTarget& t) : t_(t) {}
  /// The dtype `d` is converted to (d itself when the target leaves it).
  DType convert(DType d) const;
  /// `v` as dtype `d`: v itself when it already is, else a `cast` inserted before `at` (a target
  /// materialization when widening into the compute dtype, a source materialization when narrowing back).
  ValueId materialize(ProgramRewriter& rw, InstId at, ValueId v, DType d) const;

 private:
  const ConversionTarget& t_;
};

/// The operands of the matched instruction, already converted to the compute dtype (MLIR's adaptor).
struct Adaptor {
  std::vector<ValueId> original;   ///< as the instruction reads them
  std::vector<ValueId> converted;  ///< materialized in the converted dtype (same values where unchanged)
};

/// A conversion pattern: sees the instruction and its converted operands; on success it has replaced the
/// instruction (and returns true); on failure it returns false with `why` set and has changed nothing.
class ConversionPattern {
 public:
  virtual ~ConversionPattern() = default;
  virtual std::string_view name() const = 0;
  /// The ops it converts.
  virtual std::vector<OpCode> roots() const = 0;
  /// The ops its result may contain that a target may still call illegal (the legalization graph's
  /// edges): the root op re-created in a dtype the type converter made legal is not one of them.
  virtual std::vector<OpCode> generates() const = 0;
  /// Whether the rewrite is exact (refinement holds); an inexact one is used only when the target
  /// accepts what it changes (e.g. accum_change) and `--validate` then refutes it.
  virtual bool exact() const { return true; }
  /// May it apply? Decided before any operand is materialized; `why` on failure.
  virtual bool match(const Program& p, InstId i, const ConversionTarget& t, std::string& why) const = 0;
  virtual void rewrite(ProgramRewriter& rw, InstId i, const Adaptor& a, const ConversionTarget& t,
                       const TypeConverter& tc) const = 0;
};

enum class Mode { Partial, Full, Analysis };

/// One instruction the target calls illegal that stayed (or would stay) illegal.
struct Illegal {
  std::string function;  ///< the body's name
  std::string text;      ///< the instruction, printed on one line
  std::string reason;    ///< why it is illegal, and why no pattern converted it
};

struct ConversionResult {
  bool ok = true;                         ///< false: full mode failed (program restored), or a setup error
  std::string error;                      ///< setup error (a cycle in the legalization graph, ...)
  int illegal_before = 0;                 ///< illegal instructions found at the start
  int converted = 0;                      ///< instructions rewritten by a pattern
  std::vector<Illegal> still_illegal;     ///< what stayed illegal
  std::vector<std::string> would_convert; ///< analysis: "@f: TEXT -> legal by PATTERN"
  std::map<std::string, int> fired;       ///< pattern -> count
  /// What fired, as "PATTERN KIND" (conversion_kind of the instruction), for certificates.
  std::set<std::string> fired_on;
  bool restored = false;                  ///< full mode failed and the program was restored
};

/// The kind of one conversion, as a certificate and `ptir prove --target` name it: the op, a compare's
/// `dir[D]`, the dtype of its first operand, and for a reduction or dot_general its written accumulation,
/// `accum[A]` or `no accum` ("reduce_sum bf16 accum[f32]", "compare dir[lt] bf16", "add bf16"). A
/// certificate holds a kind only when an instance of exactly that kind was proved.
std::string conversion_kind(OpCode op, DType elem, std::string_view dir, std::optional<DType> accum);
/// conversion_kind of instruction `i` of `p`.
std::string conversion_kind_of(const Program& p, InstId i);

/// Checks the legalization graph of `patterns` (pattern -> pattern whose root it may generate) for
/// cycles with Boost.Graph: "" or a description of one cycle.
std::string legalization_cycle(const std::vector<const ConversionPattern*>& patterns);

/// Converts every function of `p` for target `t` with `patterns` (tried in order on each illegal
/// instruction; the instructions a rewrite creates are checked, and converted in turn when illegal).
ConversionResult apply_conversion(Program& p, const ConversionTarget& t,
                                  const std::vector<const ConversionPattern*>& patterns, Mode mode);

/// One line for an instruction ("%r = add %a, %b -> tensor<bf16, 4>").
std::string inst_text(const Program& p, InstId i);

}  // namespace ptir::conversion
