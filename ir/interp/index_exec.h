// The interpreter's side of the index maps (ir/index_map.h): an op's map instantiated on the concrete
// operands, and the loops derived from it. A kernel checks its instance, instantiates the map and runs
// it; the geometry it runs is the map's and nothing else. Two derivations keep the kernels fast:
//  - affine_offset(): an access whose offset is c + sum_k coef_k * var_k (transpose, broadcast_to, slice,
//    reshape, dynamic_slice, reductions, dot_general, argmax, top_k) runs as strided loops;
//  - Plan: any other map is split into tables over the few variables each term depends on (pad, concat,
//    tile, take, gather, dynamic_update_slice, extract_patches, reduce_window, scatters), so a point
//    costs a few lookups, and a Move map whose innermost variable only meets tables of its own copies
//    runs of contiguous elements with memcpy.
#pragma once
#include <cstdint>

#include <boost/container/small_vector.hpp>
#include <optional>
#include <vector>

#include "ir/index_map.h"
#include "ir/interp/kernels.h"

namespace ptir::interp {

struct MapMemo;

/// An op's map on concrete operands (Sizes::Concrete: every Dim and Attr is a numeral). The map, the
/// extents and the types are a MapMemo's when the run has a PlanCache or an IndexMapCache (and the
/// extents read no element), else this run's own (the `own_` members); only `operands` is always the
/// run's. Not copyable: the spans may point into the run itself.
struct MapRun {
  const imap::IndexMap* m = nullptr;  ///< owned by `m_owner` or by `memo`
  std::shared_ptr<const imap::IndexMap> m_owner;
  std::span<const int64_t> space;  ///< extents of the iteration variables
  boost::container::small_vector<const Tensor*, 4> operands;
  std::span<const TensorType> operand_types, result_types;
  const AttrSet* attrs = nullptr;
  const MapMemo* memo = nullptr;  ///< the call's memo (see MapMemo), or nullptr
  std::shared_ptr<const MapMemo> memo_owner;  ///< keeps an IndexMapCache's memo alive for the run
  std::vector<int64_t> own_space;
  std::vector<TensorType> own_operand_types, own_result_types;

  MapRun() = default;
  MapRun(const MapRun&) = delete;
  MapRun& operator=(const MapRun&) = delete;

  imap::IntDomain domain(std::span<const int64_t> vars = {}) const {
    return imap::IntDomain{vars, std::span<const Tensor* const>(operands.data(), operands.size()), operand_types,
                           result_types, attrs};
  }
  int64_t eval(imap::ExprId e, std::span<const int64_t> vars = {}) const;
};

/// Builds the map of the call's instruction (after the kernel's own checks); an error names the op.
/// With a PlanCache the instruction's MapMemo is used, or made on its first run.
Status instantiate(const Call& c, const Out& out, MapRun& run);

/// The first failing UB check of the map, as the kernel's message (index / segment id out of range).
Status run_checks(const Call& c, const MapRun& run);

/// Per-variable coefficients, inline for up to 8 variables (an expression's affine form is computed per
/// node while a map is derived: a heap vector per node was a fifth of a small run's allocations).
using Coefs = boost::container::small_vector<int64_t, 8>;

/// c + sum_k coef[k] * var_k.
struct Affine {
  int64_t c = 0;
  Coefs coef;
};
/// The row-major offset of an access into its operand, when affine.
std::optional<Affine> affine_offset(const MapRun& run, const imap::Access& a);

/// Runs a Move map into `out` (the padding value of Otherwise::Value is the `value` attribute's bits).
Status run_move(const Call& c, const MapRun& run, Tensor& out);

/// An integer element as the maps read it (imap::index_element), with a typed load.
inline int64_t load_index(const Tensor& t, int64_t i) {
  const uint8_t* p = t.data.data();
  switch (t.dtype()) {
    case DType::SI8: return static_cast<int8_t>(p[i]);
    case DType::UI8: return p[i];
    case DType::SI16: { int16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case DType::UI16: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case DType::SI32: { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DType::UI32: { uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DType::SI64: { int64_t v; std::memcpy(&v, p + 8 * i, 8); return v; }
    default: return imap::index_element(t, i);
  }
}

/// A map split into tables (see the header comment). Values and conditions are sums / conjunctions of
/// tables over subsets of the variables (variables of extent 1 are constants); `Walk` keeps every
/// table's position while the space is walked in row-major order.
class Plan {
 public:
  struct Table {
    std::vector<int> vars;
    std::vector<int64_t> stride;  ///< per var in `vars`: stride into the table
    std::vector<int64_t> vals;
    const Tensor* direct = nullptr;  ///< values are this integer tensor's elements (times `weight`)
    int64_t weight = 1;
    std::vector<std::pair<imap::ExprId, int64_t>> dynamic;  ///< too large to tabulate: evaluated per point
    bool conj = false;  ///< the value is the conjunction of the pieces (0/1), not their weighted sum
  };
  struct Sum {
    int64_t base = 0;
    std::vector<int> tables;
  };
  struct All {
    bool holds = true;  ///< the constant conjuncts
    std::vector<int> tables;
  };

  explicit Plan(const MapRun& run);
  /// The flat offset of `a` into its operand, as a sum of tables.
  Sum offset(const imap::Access& a);
  /// The row-major offset of an index (one expression per axis of `dims`) as a sum of tables.
  Sum offset_of(const std::vector<imap::ExprId>& index, const std::vector<int64_t>& dims);
  Sum value(imap::ExprId e);
  All conjunction(const std::vector<imap::ExprId>& conjuncts);

  const std::vector<Table>& tables() const { return tables_; }
  const std::vector<std::pair<int, int64_t>>& per_var(size_t v) const { return per_var_[v]; }
  /// Whether table t moves with a variable in [v0, v1).
  bool touches(int t, int v0, int v1) const;
  /// The stride of table t along variable v (0 if it does not depend on v).
  int64_t stride_along(int t, int v) const;
  /// The value of a tabulated (not dynamic) table at position `pos`.
  int64_t at(int t, int64_t pos) const {
    const Table& tb = tables_[static_cast<size_t>(t)];
    if (tb.direct) return imap::wrap_mul(tb.weight, load_index(*tb.direct, pos));
    return tb.vals[static_cast<size_t>(pos)];
  }
  bool dynamic(int t) const { return !tables_[static_cast<size_t>(t)].dynamic.empty(); }
  std::span<const int64_t> dims() const { return run_.space; }
  const MapRun& run() const { return run_; }

  /// Row-major walk over the space: `idx` the point, `pos[t]` table t's position.
  struct Walk {
    const Plan& plan;
    std::vector<int64_t> idx, pos;
    explicit Walk(const Plan& p);
    /// The next point (row-major); false after the last (back at the origin).
    bool next() { return next_in(0, static_cast<int>(idx.size())); }
    /// The next point moving only the variables [v0, v1) (an odometer over them); false when they wrap.
    bool next_in(int v0, int v1) {
      const std::span<const int64_t> dims = plan.run_.space;
      for (int k = v1; k-- > v0;) {
        const auto& tv = plan.per_var_[static_cast<size_t>(k)];
        ++idx[static_cast<size_t>(k)];
        for (const auto& [t, s] : tv) pos[static_cast<size_t>(t)] += s;
        if (idx[static_cast<size_t>(k)] < dims[static_cast<size_t>(k)]) return true;
        for (const auto& [t, s] : tv) pos[static_cast<size_t>(t)] -= s * dims[static_cast<size_t>(k)];
        idx[static_cast<size_t>(k)] = 0;
      }
      return false;
    }
    int64_t get(int t) const {
      const Table& tb = plan.tables_[static_cast<size_t>(t)];
      if (!tb.vals.empty()) return tb.vals[static_cast<size_t>(pos[static_cast<size_t>(t)])];
      return slow(t);
    }
    int64_t slow(int t) const;
    int64_t sum(const Sum& s) const {
      int64_t v = s.base;
      for (int t : s.tables) v = imap::wrap_add(v, get(t));
      return v;
    }
    bool holds(const All& a) const {
      if (!a.holds) return false;
      for (int t : a.tables)
        if (get(t) == 0) return false;
      return true;
    }
  };

 private:
  int table(std::vector<std::pair<imap::ExprId, int64_t>> pieces, uint64_t deps, bool conj = false);
  void split(imap::ExprId e, int64_t w, int64_t& base, std::vector<std::pair<imap::ExprId, int64_t>>& out) const;
  uint64_t deps(imap::ExprId e) const { return deps_[static_cast<size_t>(e)] & live_; }

  const MapRun& run_;
  std::vector<uint64_t> deps_;
  uint64_t live_ = 0;  ///< variables of extent > 1
  std::vector<Table> tables_;
  std::vector<std::vector<std::pair<int, int64_t>>> per_var_;  ///< var -> (table, stride)
  friend struct Walk;
};

/// What run_move derives from a Move map and its extents: the plan, each case's condition and offset,
/// and for a row-by-row run each table's part and the row runs by case mask. Of a map that reads no
/// element none of it depends on the operands' values, and a MapMemo keeps it for later runs.
struct MovePrep {
  struct Part {
    std::vector<int> outer, mixed;
    std::vector<uint8_t> cin;  // inner conjunction at j
    std::vector<int64_t> tin;  // inner offset at j
  };
  /// `len` positions of a row from j0, of case c (-1: padding) at offset toff (plus the row's).
  struct Run {
    int64_t j0, len;
    int c;
    int64_t toff;
  };
  Plan plan;
  size_t nc = 0;
  std::vector<Plan::All> conds;
  std::vector<Plan::Sum> offs;
  Plan::Sum value;
  bool pointwise = false;  ///< point by point (a dynamic table, rank 0 or an index value); else row by row
  int L = -1;              ///< the innermost variable
  int64_t n = 0;           ///< its extent
  std::vector<Part> conds_p, offs_p;
  bool any_mixed = false;
  std::vector<std::vector<int64_t>> mixed_stride;  ///< per case: of its cond tables, of its offset tables
  std::vector<std::pair<uint64_t, std::vector<Run>>> row_runs;  ///< by case mask (without mixed tables)
  explicit MovePrep(const MapRun& run);
};

/// What walk_fold derives from a Fold map and its extents: the plan, and the case's condition and read
/// offsets split into the parts that move with the reduction variables and the rest.
struct FoldPrep {
  Plan plan;
  Plan::All cin, cout;
  std::vector<Plan::Sum> oin, oout;
  explicit FoldPrep(const MapRun& run) : plan(run) {
    const int nout = run.m->out_vars, nall = static_cast<int>(run.space.size());
    const imap::Case& c = run.m->cases[0];
    const Plan::All cond = plan.conjunction(c.when);
    std::vector<Plan::Sum> offs;
    for (const imap::Access& a : c.reads) offs.push_back(plan.offset(a));
    cin.holds = cout.holds = cond.holds;
    for (int t : cond.tables) (plan.touches(t, nout, nall) ? cin : cout).tables.push_back(t);
    oin.resize(offs.size());
    oout.resize(offs.size());
    for (size_t k = 0; k < offs.size(); ++k) {
      oout[k].base = offs[k].base;
      for (int t : offs[k].tables) (plan.touches(t, nout, nall) ? oin[k] : oout[k]).tables.push_back(t);
    }
  }
};

/// An op's map on its operand and result types with what follows from them alone, kept across runs:
/// by a PlanCache per instruction of an unchanged program (PlanCache::map_slot; a run of a small
/// program spent a seventh of its allocations building MapRuns, the map's cache key, copies of the
/// types, the extents, that every run rebuilt the same), and by an IndexMapCache per op, attributes and
/// types (IndexMapCache::memo: the expensive checks' replays evaluate instructions one at a time, with
/// no PlanCache). What depends on no operand's values is kept too: with `reads_data` false (the map has
/// no Read node) the affine offset of a single unconditional Move, run_move's MovePrep and walk_fold's
/// FoldPrep. A memo is used only for a call whose op, attributes and types are its own (checked on
/// every use), and it exists only for a map whose extents read no element.
struct MapMemo {
  OpCode op{};
  AttrSet attrs;  ///< a copy, compared by value: a pointer could match another program's set at the same address
  std::vector<TensorType> operand_types, result_types;
  std::shared_ptr<const imap::IndexMap> map;
  std::vector<int64_t> space;
  bool reads_data = true;
  /// The memo's own view of the map (no operands) that the kept plans are built on.
  MapRun proto;
  mutable std::optional<std::optional<Affine>> move_affine;  ///< run_move's, on its first use
  mutable std::unique_ptr<MovePrep> move;                     ///< run_move's, on its first use
  mutable std::unique_ptr<FoldPrep> fold;                     ///< walk_fold's, on its first use
  MapMemo() = default;
  MapMemo(const MapMemo&) = delete;
  MapMemo& operator=(const MapMemo&) = delete;
};

/// The memo of `map` (the map of `op` with these attributes and types): nullptr when an extent reads an
/// element or is negative (a call of that kind instantiates its map per run, which reports the
/// negative extent).
std::shared_ptr<MapMemo> make_memo(OpCode op, const AttrSet& attrs, std::span<const TensorType> operand_types,
                                   std::span<const TensorType> result_types,
                                   std::shared_ptr<const imap::IndexMap> map);

/// Walks a Fold map: for each result position `oi` in row-major order, `begin(oi)`, then `point(offs)`
/// for each real reduction point in fold order (offs: the offsets of the case's reads), then `end(oi)`.
/// Tables of the result variables only are read once per result position.
template <typename Begin, typename Point, typename End>
void walk_fold(const MapRun& run, Begin&& begin, Point&& point, End&& end) {
  const int nout = run.m->out_vars, nall = static_cast<int>(run.space.size());
  int64_t outs = 1, per = 1;
  for (int k = 0; k < nall; ++k) (k < nout ? outs : per) *= run.space[static_cast<size_t>(k)];
  if (outs == 0) return;
  if (per == 0) {
    for (int64_t oi = 0; oi < outs; ++oi) begin(oi), end(oi);
    return;
  }
  // Of a map that reads no element, the prep is the memo's (made on its first run).
  std::optional<FoldPrep> own;
  const FoldPrep* pp;
  if (run.memo && !run.memo->reads_data) {
    if (!run.memo->fold) run.memo->fold = std::make_unique<FoldPrep>(run.memo->proto);
    pp = run.memo->fold.get();
  } else {
    pp = &own.emplace(run);
  }
  const Plan& plan = pp->plan;
  const Plan::All &cin = pp->cin, &cout = pp->cout;
  const std::vector<Plan::Sum>&oin = pp->oin, &oout = pp->oout;  // one of each per read
  const size_t nreads = oin.size();
  std::vector<int64_t> at(nreads), base(nreads);
  Plan::Walk wk(plan);
  for (int64_t oi = 0; oi < outs; ++oi) {
    begin(oi);
    if (wk.holds(cout)) {
      for (size_t k = 0; k < nreads; ++k) base[k] = wk.sum(oout[k]);
      do {
        if (!wk.holds(cin)) continue;
        for (size_t k = 0; k < nreads; ++k) at[k] = base[k] + wk.sum(oin[k]);
        point(static_cast<const std::vector<int64_t>&>(at));
      } while (wk.next_in(nout, nall));
    }
    end(oi);
    wk.next_in(0, nout);
  }
}

/// Walks a Scatter map: `apply(target, src)` for each point of the space, in row-major order, whose case
/// holds (target: the offset in the result, src: the offset of the read).
template <typename Apply>
void walk_scatter(const MapRun& run, Apply&& apply) {
  for (int64_t n : run.space)
    if (n <= 0) return;
  Plan plan(run);
  const imap::Case& c = run.m->cases[0];
  const Plan::All cond = plan.conjunction(c.when);
  const Plan::Sum src = plan.offset(c.reads[0]);
  const Plan::Sum target = plan.offset_of(run.m->target, run.result_types[0].dims);
  Plan::Walk wk(plan);
  do {
    if (wk.holds(cond)) apply(wk.sum(target), wk.sum(src));
  } while (wk.next());
}

}  // namespace ptir::interp
