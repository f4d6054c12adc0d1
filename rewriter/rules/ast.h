// The declarative rule language: what a parsed, type-checked rule file holds (docs/rules.md).
//
// A rule is data: a source DAG to match, constraints through named native predicates, a result DAG
// that reuses the source's captures, a benefit, labels and assumptions. The driver runs this data
// (rewriter/rules/pattern.cpp) and the prover generates instances from the same data (verify/prove/),
// so there is no second copy of a rule to drift.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/ops.h"

namespace ptir::rules {

/// A position in a rule file, for FILE:LINE:COL diagnostics.
struct Loc {
  uint32_t line = 0, col = 0;
};

/// The value of a number written in a rule: its text, which number_bits reads exactly (a 64-bit integer
/// or a decimal past double precision keeps every digit), and the nearest double, for code that only
/// needs an approximation (a NaN test, the termination check's comparison).
struct NumberValue {
  std::string text;  ///< e.g. "9223372036854775807", "-0.0", "1e3", "inf", "-nan"
  double approx = 0;
  operator double() const { return approx; }
};

/// A number written in a rule (`1`, `-0.0`, `0.5`, `inf`, `nan`). `is_float` is true when it was
/// written with a `.`, an exponent, or as inf/nan: such a number matches only float dtypes.
struct Number {
  NumberValue value;
  bool is_float = false;
  std::string text;  ///< as written, for messages
};

/// An integer expression (docs/rules.md "Integer constraints"): integer literals, `dim(X, k)`,
/// `rank(X)` (X is `%x` or `$T`), `at($a, k)` (entry k of an integer-list attribute or element k of an
/// integer literal), a bare `$a` (a one-integer attribute or a one-element integer literal), a bound
/// variable of `all` or of a per-axis list, `+ - *`, `min(a, b)`, `max(a, b)`, `if(C, a, b)`.
struct IntCond;
struct IntExpr {
  enum class Kind : uint8_t { Lit, Var, Dim, Rank, At, Cap, Add, Sub, Mul, Min, Max, If } kind = Kind::Lit;
  int64_t lit = 0;           ///< Lit
  std::string name;          ///< Var: the variable; Dim/Rank/At/Cap: the capture name (no sigil)
  bool value_sigil = false;  ///< Dim/Rank: `%x` (true) or `$T`
  std::vector<std::shared_ptr<const IntExpr>> kids;  ///< Dim/At: {index}; Add..Max: {lhs, rhs}; If: {then, else}
  std::shared_ptr<const IntCond> cond;               ///< If: `if(C, E, F)`
  Loc loc;
};

/// An integer condition: comparisons of integer expressions joined by `and` / `or`, and the bounded
/// quantifier `all i < E: C`.
struct IntCond {
  enum class Kind : uint8_t { Cmp, And, Or, All } kind = Kind::Cmp;
  enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge } cmp = Cmp::Eq;
  std::shared_ptr<const IntExpr> lhs, rhs;  ///< Cmp; All: rhs is the bound E
  std::string var;                          ///< All: the bound variable
  std::vector<std::shared_ptr<const IntCond>> kids;  ///< And/Or: operands; All: {body}
  Loc loc;
};

/// How a node's result type is given in a result DAG.
struct TypeRef {
  enum class Kind : uint8_t { Inferred, OfCapture, TypeCapture, Dims } kind = Kind::Inferred;
  std::string name;  ///< capture name (without sigil) for OfCapture (`type(%x)`) / TypeCapture (`$T`) / Dims
  /// Dims: `dims(%x, [i < E: F])` (or `dims($T, ...)`): the dtype of %x / $T, dims F for i in 0..E-1.
  bool value_sigil = false;
  std::string var;
  std::shared_ptr<const IntExpr> count, elem;
};

/// An attribute of an op node: `{perm = $p}` (capture or, in a result, a native helper call) or
/// `{perm = [1, 0]}` / `{direction = eq}` (a constant).
struct AttrExpr {
  std::string name;
  /// List: `[i < E: F]` (result only), one integer per i in 0..E-1; WithAt: `with_at($a, k, E)`
  /// (result only), the list $a with entry k replaced by E.
  enum class Kind : uint8_t { Capture, Ints, Word, Call, List, WithAt } kind = Kind::Capture;
  std::string capture;               ///< Capture: `$p` -> "p"; Call: helper name; WithAt: the list `$a`
  std::vector<int64_t> ints;         ///< Ints
  std::string word;                  ///< Word
  std::vector<std::string> args;     ///< Call: attribute capture names (`$p`)
  std::string var;                   ///< List: the bound variable
  std::shared_ptr<const IntExpr> count, elem;  ///< List: E and F; WithAt: k and E
  Loc loc;
};

/// One node of a source or result DAG.
struct Node {
  enum class Kind : uint8_t {
    Value,   ///< `%x`: any value (source: binds or, when bound, must be the same value)
    Op,      ///< `op(operands...) {attrs} : $T`
    Splat,   ///< `splat(N)`: a constant whose every element is N in its dtype
    Const,   ///< `const($c)`: any constant, its literal bound to $c (source); result: a helper's literal
  } kind = Kind::Value;
  std::string name;                  ///< Value: capture name; Const: literal capture name
  OpCode op = OpCode::Constant;      ///< Op
  std::vector<std::unique_ptr<Node>> operands;
  std::vector<AttrExpr> attrs;
  Number number;                     ///< Splat
  std::string type_capture;          ///< source `: $T` binds/compares the node's type; "" if none
  TypeRef type;                      ///< result nodes: how the result type is found
  std::string as_name;               ///< source `... as %r`: also bind the node's value to %r
  std::string helper;                ///< result Const: `helper($c)` producing a literal
  std::vector<std::string> helper_args;
  /// result Const: per helper argument, the integer expression written there (`int_lit(dim(%x, 0))`);
  /// null for a `$` capture argument.
  std::vector<std::shared_ptr<const IntExpr>> helper_exprs;
  Loc loc;
};

/// A constraint `pred(args...)`; arguments are `%value`, `$capture` or a dtype class word.
struct Constraint {
  std::string pred;
  struct Arg {
    enum class Kind : uint8_t { Value, Capture, Word, Int } kind = Kind::Value;
    std::string name;
    int64_t i = 0;
  };
  std::vector<Arg> args;
  bool negated = false;  ///< `not pred(...)`
  Loc loc;
  /// An integer constraint (`dim(%x, 0) == 1`, `all i < rank(%x): ...`): `pred` is empty, `text` is
  /// the constraint as written.
  std::shared_ptr<const IntCond> cond;
  std::string text;
};

/// Fast-math assumptions a rule needs; the rule fires only in functions that carry them.
enum Assume : uint8_t { kNNaN = 1, kNInf = 2, kNSZ = 4, kReassoc = 8, kContract = 16, kAFn = 32 };

/// A rule as written and checked.
struct Rule {
  std::string name;
  std::string comment;  ///< the `//` lines just above the rule (its identity)
  std::unique_ptr<Node> source;
  std::vector<Constraint> where;
  std::unique_ptr<Node> result;
  int benefit = -1;     ///< -1: the number of ops the source matches
  std::vector<std::string> labels;
  uint8_t assumes = 0;  ///< Assume bits
  bool bounded = false; ///< declared bounded: may apply to its own output (exempt from the cycle check)
  std::string file;
  Loc loc;
};

/// A parsed file: its rules in order.
struct RuleFile {
  std::string path;
  std::vector<Rule> rules;
  /// The bytes the rules were parsed from. `ptir prove`'s verdict cache keys a rule by them, wherever the
  /// file came from (`--rules`, a plugin's rule file read from disk at load time, the library).
  std::string text;
};

/// A load-time error: `file:line:col: error: message`, then the source line and a caret under the
/// column (when the text is known). A file with several errors reports them all: the first here, the
/// others in `more`, in file order.
struct RuleError {
  std::string file;
  Loc loc;
  std::string message;
  std::string line_text;         ///< the source line `loc` points into ("" when unknown)
  std::vector<RuleError> more;   ///< the file's further errors
  /// Every error, each as `file:line:col: error: message` followed by the source line and a caret.
  std::string format() const;
};

}  // namespace ptir::rules
