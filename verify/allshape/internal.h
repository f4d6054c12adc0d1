// What the parts of the all-shape prover share (verify/allshape/, docs/verification.md "All-shape
// proofs", "Where the code lives"): the symbolic values the encoder computes, the two ways a
// configuration can stop (Infeasible, Outside), the facts read off a rule's text, and the declarations
// of the fragment gate (fragment.cpp) and the permutation-word premise (words.cpp). Not installed.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ir/ops.h"
#include "rewriter/rules/ast.h"
#include "verify/smt/expr.h"

namespace ptir::allshape::detail {

/// This configuration is not an instance (ill-typed, a constraint false): skipped.
struct Infeasible {
  std::string why;
};
/// The rule is outside the fragment, or a premise of the rank argument fails.
struct Outside {
  std::string why;
};

/// An element at a symbolic index: its value and its UB condition.
struct Elem {
  smt::Expr v;
  smt::Expr ub;
};

/// A symbolic tensor: dtype, per-axis sizes (Int terms) and its element at a symbolic index.
struct SVal {
  DType dtype = DType::F32;
  std::vector<smt::Expr> dims;
  std::function<Elem(const std::vector<smt::Expr>&)> at;
  int cnode = -1;  ///< the source node it came from (concretization), -1 for target values
};

/// A source node as concretization needs it: evaluated in a model, it is the instance.
struct CNode {
  enum Kind : uint8_t { Param, Splat, Scalar, Literal, Op } kind = Param;
  OpCode op = OpCode::Constant;
  DType dtype = DType::F32;
  std::vector<smt::Expr> dims;
  std::vector<int> operands;
  std::vector<std::pair<std::string, std::vector<smt::Expr>>> ints;  ///< per-axis integer attributes
  std::vector<std::pair<std::string, std::vector<int64_t>>> cints;
  std::vector<std::pair<std::string, std::string>> words;
  uint64_t bits = 0;  ///< Splat
  smt::Expr scalar;   ///< Scalar (a const($c) splat): its element
  std::string capture;
  std::shared_ptr<smt::Func> uf;  ///< Param of rank > 0; Literal (a const($c) of any content)
};

/// A symbolic type: dtype and per-axis sizes.
using TypeV = std::pair<DType, std::vector<smt::Expr>>;

/// The accumulation of a reduction bound by `as %r` (exact_accum reads it).
struct ReduceAccum {
  DType elem;
  bool has_accum;
  DType acc;
};

/// The n-th permutation of 0..r-1 in lexicographic order.
inline std::vector<int64_t> nth_perm(int r, int n) {
  std::vector<int64_t> p(r);
  std::iota(p.begin(), p.end(), 0);
  for (int k = 0; k < n; ++k) std::next_permutation(p.begin(), p.end());
  return p;
}
inline int factorial(int r) { return r <= 1 ? 1 : r * factorial(r - 1); }

inline bool is_identity_perm(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

/// The IR verifier's dtype rule of an op (ir/verifier.cpp check_op_rule): a configuration that breaks
/// it is not an instance (source) or a rule that builds an invalid instruction (target).
bool dtype_valid(OpCode op, DType t);
/// check_accum: an accumulation dtype of the element's kind (float or integer), never i1.
inline bool accum_valid(DType elem, DType acc) { return acc != DType::I1 && is_float(acc) == is_float(elem); }

/// A capture of a source attribute.
struct AttrB {
  bool concrete = true;
  std::vector<int64_t> c;       ///< concrete integer list (perm)
  std::vector<smt::Expr> sym;   ///< per-axis integers
  std::string word;
  bool is_word = false;
};

enum class Side : uint8_t { Src, Tgt };

/// What a rule's positive constraints say about its captures, found once on its text.
struct RuleFacts {
  std::set<std::string> scalar_caps;      ///< rank_is(%x, 0)
  std::map<std::string, int> rank_of;     ///< rank_is(%x, N), N > 0
  std::set<std::string> splat_lits;       ///< is_splat($c) / is_pow2($c)
  std::set<std::pair<std::string, std::string>> same_shape;  ///< same_type / same_shape (a, b)
  /// same_type / same_dtype (a, b), both orders: "%x" for a value capture, "$T" for a captured type. A
  /// configuration where the two dtypes differ is not an instance (the constraint is false).
  std::set<std::pair<std::string, std::string>> same_dtype;
};

// ---- the fragment (fragment.cpp), decided on the rule's text ----

RuleFacts facts_of(const rules::Rule& r);
/// "" when node `n` (of the source, or of the result when `result`) and its operands are in the
/// fragment; otherwise why not.
std::string check_node(const rules::Node& n, const rules::Rule& r, const RuleFacts& f, bool result);

// ---- integer expressions (int_exprs.cpp) ----

/// Whether the rule has integer constraints, computed attribute lists or computed result dims.
bool has_int_exprs(const rules::Rule& r);
/// "" when every integer expression of the rule is per-axis (docs/verification.md "Integer
/// expressions"): indices are bound variables or captured concat axes, axes are compared only by == and
/// !=, bounds are rank(X), no `all` inside an if's condition, and no op moves axes; else why not.
std::string int_exprs_gate(const rules::Rule& r);

// ---- the permutation-word premise (words.cpp) ----

/// One step of a read's axis word: a permutation variable (or its inverse), or an opaque axis-moving op.
struct Tok {
  std::string name;
  bool inv = false;
  /// The broadcast_to, reshape or reduction node an opaque letter stands for (else null): only the
  /// identity check of a one-frame constraint reads it (words.cpp); words compare by name and inv.
  const rules::Node* node = nullptr;
  bool operator==(const Tok& o) const { return name == o.name && inv == o.inv; }
};
/// The words (leaf to root) of every capture occurrence under `n`; `path` holds the words of the nodes
/// above it. Keys: "%x" values and `type(%x)`, "$T" types, "$s" attributes; `anon` numbers the
/// permutations that are not captures.
/// `free_order`: the positive keeps_free_order($p, $b, $c) constraints as (p, b, c); a dot_general side
/// whose lists are permute_axes($p, $b) and permute_axes($p, $c) under one of them reads its operand
/// through p, then the side's own letter with lists $b, $c.
using FreeOrderFacts = std::set<std::vector<std::string>>;
void collect_words(const rules::Node& n, std::vector<std::vector<Tok>>& path,
                   std::map<std::string, std::vector<std::vector<Tok>>>& out, int& anon,
                   const FreeOrderFacts* free_order = nullptr);
/// "" when every capture is read through one permutation word on both sides (after the identities the
/// constraints state and free reduction); else why not.
/// `every_capture`: also each capture's own words (rules with a transpose, whose permutation words
/// can agree at small ranks only); else only the one-frame constraints' arguments.
std::string perm_words_premise(const rules::Rule& r, const RuleFacts& f, bool every_capture);

}  // namespace ptir::allshape::detail
