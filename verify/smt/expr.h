// The SMT value type: one small class over Z3 terms, so formulas read like arithmetic (`a + b`,
// `a.isNaN()`). This header and verify/smt/*.cpp are the only code that knows Z3 exists.
//
// Every Expr lives in the Z3 context of the thread that made it: an smt::Context object makes itself
// the current context of its thread for its lifetime (Z3 contexts are not thread-safe, so each worker
// thread owns one). Terms are hash-consed by Z3; the commutative builders below also order their
// operands by term id, so `x + y` and `y + x` are the same term before any solver sees them. That is
// sound for every builder marked "commutative" because the SMT operation is commutative on every input
// (SMT-LIB floats have a single NaN, and our result equality ignores NaN payloads).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

typedef struct _Z3_context* Z3_context;
typedef struct _Z3_ast* Z3_ast;
typedef struct _Z3_func_decl* Z3_func_decl;

namespace ptir::smt {

/// A Z3 context, current for the constructing thread until destroyed. Not copyable.
///
/// Z3 does not stop every phase of a check when its timeout or an interrupt asks it to (bit-blasting,
/// its simplifier and the SAT solver's inprocessing can each run for seconds on a large formula). So
/// a check does not run on the context's thread but on its solver host, a second thread that only
/// runs checks of this context while the owning thread waits; the owning thread waits only as long
/// as the check's budget allows. A check that does not stop in time is abandoned: the context is
/// handed to the host, which finishes the check on its own, deletes the context and is joined later
/// (at the latest when the process exits). The Context is then dead: its terms' reference counting
/// does nothing (their memory goes with the Z3 context) and making terms throws ContextAbandoned.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  /// Stops a running check of this context and any Z3 call of its thread; safe to call from any
  /// thread. Z3 keeps an interrupted context cancelled, so a check that was running when the
  /// interrupt came ends the context (as an abandoned check does): interrupt only to stop.
  void interrupt();
  Z3_context raw() const { return ctx_; }
  /// The context was handed to an abandoned check: no more Z3 work in it.
  bool dead() const { return dead_.load(); }

  struct Host;  ///< verify/smt/solver.cpp

 private:
  friend class Solver;
  std::shared_ptr<Host> host();  ///< the solver host, started on first use
  void abandon();                ///< hands the context to the host, which is still running a check
  void stop_host();              ///< ends the host thread (the destructor)
  bool take_pooled();            ///< under ContextReuse: a pooled Z3 context and host (verify/smt/solver.cpp)
  bool give_to_pool();           ///< under ContextReuse: pools this one if it is clean; false: delete it

  Z3_context ctx_;
  Z3_context prev_;
  Context* prev_obj_;
  std::mutex host_m_;  ///< guards host_
  std::shared_ptr<Host> host_;
  std::atomic<uint64_t> interrupts_{0};  ///< interrupt() calls so far
  std::atomic<bool> dead_{false};
  uint64_t rlimit_seen_ = 0;  ///< Z3's resource counter of this context after the last check (Solver)

 public:
  /// The float terms registered by live Pow2Divisor guards (Expr::operator/ reads them).
  std::vector<Z3_ast> pow2_divisors;
  /// Expr::simplifyMemo's table: term -> Z3_simplify of it, both referenced (released with the context,
  /// or when the table is full and starts again).
  std::unordered_map<Z3_ast, Z3_ast> simplify_memo;
  /// Expr::setOrigin's table: term -> (source term, tag), both referenced (released with the context).
  std::unordered_map<Z3_ast, std::pair<Z3_ast, uint32_t>> origins;
  /// Expr::setLeaves's table: term -> (tag, leaves), all referenced (released with the context).
  std::unordered_map<Z3_ast, std::pair<uint32_t, std::vector<Z3_ast>>> fold_leaves;
  size_t fold_leaves_total = 0;  ///< leaves recorded in fold_leaves
};

/// While one is alive on a thread, the Z3 contexts that thread makes are reused: a Context destroyed
/// there hands its Z3 context and solver host to a small process-wide pool (at most 4) when it was never
/// interrupted, never abandoned and holds no term of its own any more (its memo tables are released
/// first), and the next Context made on such a thread takes one from the pool instead of making a new
/// one. Making a Z3 context costs 0.7 ms natively and 11 ms under ASan (Z3 allocates two 8 MB tables,
/// which ASan maps afresh each time); the fuzz targets check thousands of small pairs per minute.
/// Off by default, and only the fuzz harness turns it on: in a reused context terms are numbered after
/// the history of the context, and Z3's run time (so an answer near the budget) can depend on the
/// numbering, so `ptir check` and `ptir prove`, whose budgets are deterministic and whose verdicts are
/// cached, always use fresh contexts. A verdict itself does not depend on it: Z3 answers the same
/// formula the same way in any context, only maybe with other resource use. Nests; not copyable.
class ContextReuse {
 public:
  ContextReuse();
  ~ContextReuse();
  ContextReuse(const ContextReuse&) = delete;
  ContextReuse& operator=(const ContextReuse&) = delete;

 private:
  bool prev_;
};

/// Contexts in the pool of ContextReuse now (for tests).
int pooled_contexts();

/// Thrown when a term is made in a dead context (see Context).
struct ContextAbandoned : std::runtime_error {
  ContextAbandoned() : std::runtime_error("smt: the Z3 context was abandoned to a check that overran its budget") {}
};

/// The current thread's context (nullptr when none).
Z3_context current();
/// The current thread's Context object (nullptr when none).
Context* current_context();
/// The current context if it is alive (reference counting in a dead context does nothing).
Z3_context live_context();

/// An IEEE format in Z3's convention: exponent bits and significand bits including the hidden bit.
struct FPFormat {
  unsigned ebits = 8, sbits = 24;
  bool operator==(const FPFormat&) const = default;
};

/// The sort of a term: Bool, BitVec(width) or FloatingPoint(format).
struct Sort {
  enum Kind : uint8_t { Bool, BV, FP, Int } kind = Bool;
  unsigned width = 0;  ///< BV width
  FPFormat fp;
  static Sort boolean() { return {Bool, 0, {}}; }
  static Sort bv(unsigned w) { return {BV, w, {}}; }
  static Sort floating(FPFormat f) { return {FP, 0, f}; }
  /// Mathematical integers: the symbolic sizes, indices and attributes of all-shape proofs.
  static Sort integer() { return {Int, 0, {}}; }
  bool operator==(const Sort&) const = default;
};

/// A reference-counted Z3 term of the current context.
struct Application;

class Expr {
 public:
  Expr() = default;
  Expr(const Expr& o);
  Expr(Expr&& o) noexcept : a_(o.a_) { o.a_ = nullptr; }
  Expr& operator=(const Expr& o);
  Expr& operator=(Expr&& o) noexcept;
  ~Expr();

  bool valid() const { return a_ != nullptr; }
  Z3_ast raw() const { return a_; }
  /// Wraps a raw term (takes a new reference).
  static Expr wrap(Z3_ast a);

  // ---- leaves ----
  static Expr boolean(bool b);
  static Expr bv(uint64_t value, unsigned width);
  /// The bit-vector of width `width` (<= 127) holding (-1)^negative * magnitude modulo 2^width.
  static Expr bvInt(bool negative, uint64_t magnitude, unsigned width);
  /// The float whose IEEE bit pattern is `bits` (a numeral; every NaN pattern is the one SMT NaN).
  static Expr fpBits(uint64_t bits, FPFormat f);
  static Expr nan(FPFormat f);
  static Expr inf(FPFormat f, bool negative);
  static Expr zero(FPFormat f, bool negative);
  /// A free variable of the given sort.
  static Expr var(std::string_view name, Sort s);
  /// Reinterprets an IEEE bit-vector as a float of format `f` (every NaN pattern is the SMT NaN).
  static Expr fromIEEE(const Expr& bits, FPFormat f);

  // ---- sorts ----
  Sort sort() const;
  bool isBool() const;
  bool isBV() const;
  bool isFP() const;
  unsigned width() const;     ///< BV width
  FPFormat format() const;    ///< FP format

  // ---- Boolean ----
  Expr operator!() const;
  Expr operator&&(const Expr& b) const;  ///< commutative
  Expr operator||(const Expr& b) const;  ///< commutative
  Expr implies(const Expr& b) const;
  static Expr ite(const Expr& c, const Expr& t, const Expr& e);
  static Expr all(std::span<const Expr> xs);
  static Expr any(std::span<const Expr> xs);

  /// SMT equality (commutative): for floats, the identity of values, so all NaNs are one value and
  /// +0 differs from -0 — exactly the spec's result equality.
  Expr operator==(const Expr& b) const;
  Expr operator!=(const Expr& b) const { return !(*this == b); }

  // ---- arithmetic: bit-vectors wrap, floats are IEEE round-to-nearest-even ----
  Expr operator+(const Expr& b) const;  ///< commutative
  Expr operator-(const Expr& b) const;
  Expr operator*(const Expr& b) const;  ///< commutative
  Expr operator/(const Expr& b) const;  ///< floats only (BV: sdiv/udiv)
  Expr operator-() const;               ///< float: flips the sign bit (NaN stays NaN); BV: wraps
  Expr sdiv(const Expr& b) const;
  Expr udiv(const Expr& b) const;

  // ---- bit-vector comparisons and resizing ----
  Expr slt(const Expr& b) const;
  Expr sle(const Expr& b) const;
  Expr ult(const Expr& b) const;
  Expr ule(const Expr& b) const;
  Expr sext(unsigned extra) const;  ///< numerals stay numerals
  Expr zext(unsigned extra) const;
  Expr extract(unsigned hi, unsigned lo) const;

  // ---- floats ----
  Expr isNaN() const;
  Expr isInf() const;
  Expr isZero() const;
  Expr isNeg() const;  ///< sign bit set and not NaN
  Expr abs() const;
  Expr sqrt() const;
  /// fp.fma(RNE, this, b, c): this * b + c rounded once.
  Expr fma(const Expr& b, const Expr& c) const;
  /// IEEE comparisons: false when either side is NaN; -0 == +0.
  Expr feq(const Expr& b) const;
  Expr flt(const Expr& b) const;
  Expr fle(const Expr& b) const;
  Expr roundTowardZero() const;        ///< roundToIntegral(RTZ)
  Expr toFP(FPFormat f) const;         ///< float -> float, RNE
  Expr sbvToFP(FPFormat f) const;      ///< signed BV -> float, RNE
  Expr ubvToFP(FPFormat f) const;      ///< unsigned BV -> float, RNE
  Expr toSBV(unsigned w) const;        ///< float -> signed BV, RTZ; only meaningful in range
  Expr toUBV(unsigned w) const;        ///< float -> unsigned BV, RTZ; only meaningful in range
  Expr toIEEE() const;                 ///< float -> its IEEE bit-vector (NaN: some NaN pattern)

  // ---- mathematical integers (Sort::Int; all-shape proofs: sizes, indices, attributes) ----
  static Expr intVal(int64_t v);
  bool isInt() const;
  Expr iadd(const Expr& b) const;
  Expr isub(const Expr& b) const;
  Expr imul(const Expr& b) const;  ///< nonlinear when neither side is a numeral
  Expr imod(const Expr& b) const;  ///< SMT-LIB mod (b != 0: 0 <= r < |b|)
  Expr idiv(const Expr& b) const;  ///< SMT-LIB div (floor for b > 0)
  Expr ilt(const Expr& b) const;
  Expr ile(const Expr& b) const;
  /// The value of an Int numeral; nullopt when the term is not one or does not fit.
  std::optional<int64_t> intNumeral() const;

  // ---- inspection ----
  unsigned id() const;
  bool same(const Expr& b) const { return a_ == b.a_; }
  bool isTrue() const;
  bool isFalse() const;
  Expr simplify() const;
  /// simplify(), remembered per context: the same term (Z3 terms are hash-consed) is simplified once.
  /// For callers that simplify many small terms again and again (the all-shape encoder's index terms,
  /// which every configuration builds anew with the same names).
  Expr simplifyMemo() const;
  /// Records, for the current context, that this term stands in relation `tag` to `src` (the caller
  /// defines the relation; verify/encode/scalar.cpp: "this term is the exact widening of src"). Both
  /// terms stay referenced until the context goes. The first record of a term is kept; past 2^20
  /// records none is added (the table only speeds terms up).
  void setOrigin(const Expr& src, uint32_t tag) const;
  /// What setOrigin recorded for this term in the current context, if anything.
  std::optional<std::pair<Expr, uint32_t>> origin() const;
  /// Records, for the current context, that this term is a fold with tag `tag` (the caller defines the
  /// tag; verify/encode/scalar.cpp: "this term is the maximum (minimum) of these leaves in dtype D") of
  /// `leaves`. All terms stay referenced until the context goes. The first record of a term is kept;
  /// past 2^22 recorded leaves in all none is added (the table only speeds terms up).
  void setLeaves(std::span<const Expr> leaves, uint32_t tag) const;
  /// The leaves setLeaves recorded for this term with `tag` in the current context (empty: none).
  std::vector<Expr> leaves(uint32_t tag) const;
  /// The term with its free constants renamed to canonical ones in order of first occurrence (depth
  /// first). Terms equal up to a renaming of free constants usually map to the same term, so a query
  /// answer (sat or unsat) carries over; different results only cost a missed reuse.
  Expr canonical() const;
  /// The disjuncts of a (nested) disjunction; {*this} when it is not one.
  std::vector<Expr> disjuncts() const;
  /// The conjuncts of a (nested) conjunction; {*this} when it is not one.
  std::vector<Expr> conjuncts() const;
  /// True when some subterm (the term included) has a bit-vector or floating-point sort.
  bool mentionsBitsOrFloats() const;
  /// True when a floating-point (or rounding-mode) term occurs in it.
  bool mentionsFloats() const;
  /// Ids of the free constants (uninterpreted, arity 0) the term mentions, sorted.
  std::vector<unsigned> constants() const;
  /// The term with every application of an uninterpreted function of arity > 0 replaced by a fresh
  /// constant (equal applications by the same one). It has more models than the term (congruence is
  /// dropped), so an unsat answer for it is an unsat answer for the term. Returns the term itself when
  /// it applies no such function.
  Expr abstractFunctions() const;
  /// The distinct applications of uninterpreted functions of arity > 0 in the term (each once).
  std::vector<Application> applications() const;
  /// The same for float arithmetic (add, sub, mul, div, sqrt, fma, rem, roundToIntegral) and
  /// bit-vector multiplication, division and remainder: each outermost such application becomes a fresh
  /// constant (equal applications the same one). More models again: unsat carries over. It decides the
  /// goals that hold whatever those operations compute (a quotient that is zero on both sides).
  Expr abstractArithmetic() const;
  /// The bits of a numeral: Bool 0/1, BV value, FP IEEE pattern (read through to_ieee_bv; the one SMT
  /// NaN, which has no bits, reads as the quiet NaN). nullopt if the term is not a numeral.
  std::optional<uint64_t> numeral() const;
  std::string str() const;

 private:
  Z3_ast a_ = nullptr;
};

/// One application of an uninterpreted function of arity > 0 (Expr::applications): the function's
/// name, the term, its arguments.
struct Application {
  std::string name;
  Expr term;
  std::vector<Expr> args;
};

/// An uninterpreted function. Same name and signature in one context: the same function.
class Func {
 public:
  Func(std::string_view name, std::span<const Sort> domain, Sort range);
  Func(const Func&) = delete;
  Func& operator=(const Func&) = delete;
  ~Func();
  Expr operator()(std::span<const Expr> args) const;

 private:
  Z3_func_decl d_ = nullptr;
};

/// `c` is a finite nonzero power of two (either sign) whose reciprocal is finite and exact (normal or
/// subnormal): the IEEE bit pattern is a normal number with a zero fraction, or the one subnormal
/// 2^-bias (a one-bit fraction at its top bit; every smaller one-bit subnormal has a reciprocal that
/// overflows). Built from the bits only, no division (natives.cpp `is_pow2`; tests/verify/
/// smt_expr_test.cpp checks it against the definition with a division for every f16 and bf16 and every
/// power of two of f32 and f64).
Expr pow2_with_exact_reciprocal(const Expr& c);
/// The reciprocal of `c` built from its bits, no division: equal to 1 / c wherever
/// pow2_with_exact_reciprocal(c) holds (and unspecified elsewhere).
Expr pow2_reciprocal_term(const Expr& c);

/// While it lives, a division `x / c` built in the current context (Expr::operator/) is built as
/// `x * pow2_reciprocal_term(c)`: the caller guarantees that every query whose terms are built meanwhile
/// asserts pow2_with_exact_reciprocal(c), and in every model of that assertion the two terms are equal
/// (x / 2^k and x * 2^-k round the same real number). The all-shape encoder registers a rule literal
/// constrained by `is_pow2` (verify/allshape/native_specs.cpp), so the query has no float divider to
/// bit-blast. Guards nest and may be destroyed in any order.
class Pow2Divisor {
 public:
  explicit Pow2Divisor(const Expr& c);
  ~Pow2Divisor();
  Pow2Divisor(const Pow2Divisor&) = delete;
  Pow2Divisor& operator=(const Pow2Divisor&) = delete;

 private:
  Context* ctx_;
  Expr c_;
};

}  // namespace ptir::smt
