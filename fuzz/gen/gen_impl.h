// Internals of the program generator shared by its op-family files (not a public header).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/gen/generator.h"
#include "ir/ops.h"
#include "ir/tensor.h"

namespace ptir::fuzz::detail {

/// Which dtypes an operand may take.
enum class Cls : uint8_t { Any, Number, Float, Int, SignedInt };

/// A value the generator can use as an operand.
struct Val {
  std::string name;  ///< "%v3"
  TensorType type;
};

/// A function or region under construction.
struct BodyCtx {
  std::string name;  ///< "@main" or "^r2"
  bool is_func = true;
  int depth = 0;  ///< region nesting depth (0: the entry function)
  std::vector<Val> params;
  std::vector<Val> pool;  ///< every value usable so far (params and results)
  std::vector<int> uses;  ///< per pool entry, how often it was used
  std::string lines;
  /// A single-result statement, for duplicates: its text's place in `lines` and its result in `pool`.
  struct Stmt {
    size_t text_begin, text_size, result;
  };
  std::vector<Stmt> stmts;
  int next_id = 0;
  /// Room for a typical body (`lines` bytes; statements, values), so that emitting rarely reallocates.
  void reserve(size_t line_bytes, size_t values) {
    lines.reserve(line_bytes);
    pool.reserve(values);
    uses.reserve(values);
    stmts.reserve(values);
  }
};

/// The generator: its decisions, options and the regions written so far.
class Gen {
 public:
  Gen(Choices& c, const GenOptions& o) : c_(c), o_(o) {}
  Generated run();

  // ---- shared helpers (generator.cpp) ----
  Choices& c() { return c_; }
  const GenOptions& opts() const { return o_; }
  bool allowed(DType t) const;
  bool allowed(OpCode op) const;  ///< not excluded by GenOptions::only_ops
  std::optional<DType> pick_dtype(Cls cls);
  DType index_dtype();  ///< an integer dtype for indices (allowed one or si32/si64)
  /// index_dtype(), or si32/si64 where that one cannot hold the indices 0..count-1 (argmax, top_k).
  DType index_dtype_for(int64_t count);
  std::vector<int64_t> random_dims(int rank);
  std::vector<int64_t> random_dims() { return random_dims(static_cast<int>(c_.range(0, o_.max_rank))); }
  bool fits(const TensorType& t) const { return t.num_elements() <= o_.max_elements; }
  uint64_t edge_bits(DType t);                                           ///< an element biased to edge values
  std::string literal(const TensorType& t);                              ///< an edge-biased `dense<...> : tensor<...>`
  std::string int_literal(const TensorType& t, int64_t lo, int64_t hi);  ///< integer elements in [lo, hi]
  std::string fresh(BodyCtx& b);
  /// An operand of exactly type t: a pool value, an inline literal or a new parameter.
  std::string operand(BodyCtx& b, const TensorType& t, bool allow_literal = true);
  /// A pool value matching `ok` (chosen with a bias to unused ones), or a new one of a random type of class `cls`.
  std::optional<Val> input(BodyCtx& b, Cls cls, const std::function<bool(const TensorType&)>& ok, int min_rank = 0,
                           int max_rank = -1);
  /// Writes `%r = TEXT -> TYPE` and adds %r to the pool.
  Val emit(BodyCtx& b, const std::string& text, const TensorType& type);
  /// Writes `%r0, %r1 = TEXT -> (T0, T1)` and adds every result to the pool.
  std::vector<Val> emit_multi(BodyCtx& b, const std::string& text, const std::vector<TensorType>& types);
  /// A new region: builds its body with `fill`, writes it, returns "^name".
  std::string region(BodyCtx& outer, const std::vector<TensorType>& params, const std::vector<TensorType>& results,
                     const std::function<std::vector<std::string>(BodyCtx&)>& fill);
  /// Fills a region body with a few random statements and returns values of the requested types.
  std::vector<std::string> random_body(BodyCtx& b, const std::vector<TensorType>& results, int ops);
  /// One random statement of op `op` in body b; false when the op cannot be made here.
  bool gen_op(BodyCtx& b, OpCode op);
  /// One statement of some op drawn by the profile's weights (and, in seeded mode, templates).
  void gen_one(BodyCtx& b);
  std::vector<std::string>& templates() { return templates_; }

 private:
  Choices& c_;
  const GenOptions& o_;
  std::vector<std::string> regions_;
  std::vector<std::string> templates_;
  int next_region_ = 0;
};

/// Op families (one file each, same stems as ir/interp/).
bool gen_elementwise(Gen& g, BodyCtx& b, OpCode op);
bool gen_shape(Gen& g, BodyCtx& b, OpCode op);
bool gen_reduce(Gen& g, BodyCtx& b, OpCode op);
bool gen_index(Gen& g, BodyCtx& b, OpCode op);
bool gen_window(Gen& g, BodyCtx& b, OpCode op);
bool gen_control(Gen& g, BodyCtx& b, OpCode op);
bool gen_opaque(Gen& g, BodyCtx& b, OpCode op);
/// Plants one seeded template (seeded.cpp); false when none fits.
bool gen_seeded(Gen& g, BodyCtx& b);

/// "[1, 0, 2]"-style list text.
std::string list(const std::vector<int64_t>& v);
TensorType with_dtype(TensorType t, DType d);
TensorType with_dims(const TensorType& t, std::vector<int64_t> dims);
bool in_class(DType t, Cls cls);

}  // namespace ptir::fuzz::detail
