// The reference interpreter's driver: per-body execution plans (value slots, last uses), the one dispatch
// switch over OpCode, region nesting guards, and the public run_body/run_program/eval_inst entry points.
// Kernels live in ir/interp/*.cpp, one file per op family.
#include "ir/interp.h"
#include "ir/verifier.h"

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include "ir/index_map.h"
#include "ir/interp/index_exec.h"
#include "ir/interp/kernels.h"
#include "ir/interp/scalar.h"

namespace ptir::interp {

/// Deepest nesting of region runs (cond/while/scan inside regions) before a run is refused.
constexpr size_t kMaxRegionDepth = kMaxRegionNesting;  // the verifier enforces the same limit

/// One operand of a step: a frame slot, or a literal owned by the program.
struct BodyPlanOperand {
  uint32_t slot;
  const Tensor* lit;
};

/// One instruction of a body, with its operand slots, result slots and the slots dead after it.
struct BodyPlanStep {
  InstId inst;
  uint32_t first_arg, num_args;
  uint32_t first_res, num_res;
  uint32_t first_free, num_free;
};

/// How to run one body: built once per run and body, then reused by every iteration of a loop. (Not
/// "Plan": ir/interp/index_exec.h has an interp::Plan, and two classes of one name in one namespace
/// broke Debug builds: the linker kept one inline destructor for both.)
struct BodyPlan {
  Status error;  ///< a body that cannot run (operand defined later or elsewhere, no return)
  uint32_t num_slots = 0;
  std::vector<BodyPlanStep> steps;
  std::vector<BodyPlanOperand> operands;
  std::vector<uint32_t> frees;
  uint32_t ret_first = 0, ret_count = 0;  ///< the return's operands in `operands`
};

/// Dead tensors kept for their storage (the dims and data capacity): a result or an expanded splat
/// takes one and is refilled in place instead of allocating two buffers. One pool serves every depth
/// of a run (a loop body's results die one level up), and it is kept across runs with a PlanCache, so
/// a differential's runs of one program allocate almost no tensor storage after the first. Bounded:
/// at most kMax tensors of at most kMaxBytes of data capacity each (at most 512 KB, which the memory
/// budget does not count).
class TensorPool {
 public:
  static constexpr size_t kMax = 32;
  static constexpr size_t kMaxBytes = 16u << 10;
  /// Keeps `t`'s storage when the pool has room and it is small; `t` is left empty either way.
  void recycle(Tensor& t) {
    if (t.data.capacity() != 0 && t.data.capacity() <= kMaxBytes && spare_.size() < kMax) {
      if (spare_.capacity() == 0) spare_.reserve(kMax);
      spare_.push_back(std::move(t));
    }
    t = Tensor();
  }
  /// A dense tensor of type `t` with `bytes` bytes of data, zeroed (what Tensor(t) makes when `bytes`
  /// is its size), in the storage of the first spare large enough for its dims and data, else of the
  /// last one, else new (fresh()).
  Tensor take(const TensorType& t, size_t bytes) {
    if (spare_.empty()) return fresh(t, bytes);
    size_t k = spare_.size() - 1;
    for (size_t j = 0; j < spare_.size(); ++j)
      if (spare_[j].data.capacity() >= bytes && spare_[j].type.dims.capacity() >= t.dims.size()) {
        k = j;
        break;
      }
    Tensor r = std::move(spare_[k]);
    if (k + 1 != spare_.size()) spare_[k] = std::move(spare_.back());
    spare_.pop_back();
    r.type = t;
    r.splat = false;
    r.data.assign(bytes, 0);
    return r;
  }
  /// take() without a pool.
  static Tensor fresh(const TensorType& t, size_t bytes) {
    Tensor r;
    r.type = t;
    r.data.assign(bytes, 0);
    return r;
  }

 private:
  std::vector<Tensor> spare_;
};

/// The vectors of one frame depth, reused by every run of a body at that depth (each iteration of a
/// loop runs its cond and body regions one level deeper): a loop iteration then allocates only its
/// tensors. Frames at one depth never overlap (a nested region runs one level deeper).
struct FrameBuffers {
  std::vector<Tensor> slots;
  std::vector<const Tensor*> argp;
  std::vector<Tensor> scratch;
  std::vector<Tensor> out;
  TensorPool pool;  ///< used at depth 1 only: the pool of the whole run (see TensorPool)
};

struct Exec {
  const Program& p;
  const InterpOptions& opts;
  /// By BodyId, built on first use. A map, not a vector sized by the program: eval_inst on one instruction
  /// of a program with 100k functions must not cost 100k (expensive checks and folding call it per rewrite).
  std::unordered_map<BodyId, std::unique_ptr<BodyPlan>> plans;
  /// Bodies being run, outermost first (at most kMaxRegionDepth: inline, a run allocates nothing for it).
  struct Active {
    std::array<BodyId, kMaxRegionDepth> ids;
    size_t n = 0;
    size_t size() const { return n; }
    bool empty() const { return n == 0; }
    void push_back(BodyId b) { ids[n++] = b; }
    void pop_back() { --n; }
    const BodyId* begin() const { return ids.data(); }
    const BodyId* end() const { return ids.data() + n; }
  } active;
  FastMath fm{};                             ///< the flags in force (the run's function's)
  uint64_t live = 0;                         ///< bytes of the tensors held by every frame of the run
  /// Set while a contract site of InterpOptions::contracted runs: the mul's operands and its position.
  const Tensor* fma_x = nullptr;
  const Tensor* fma_y = nullptr;
  int fma_k = -1;
  std::vector<std::unique_ptr<FrameBuffers>> own_frames{};  ///< by depth - 1 (see FrameBuffers), without a PlanCache
  /// The frame buffers by depth - 1: the run's own, or the PlanCache's (kept across runs).
  std::vector<std::unique_ptr<FrameBuffers>>& frames() { return opts.plans ? opts.plans->frames() : own_frames; }
  uint32_t ticks = 0;                                 ///< instructions started (the deadline's clock reads)
};

const InterpOptions& options(const Exec& ex) { return ex.opts; }

namespace {

std::string body_label(const Program& p, BodyId b) {
  return (p.body(b).is_region ? "^" : "@") + p.body(b).name;
}

/// Value -> frame slot while a plan is built: open addressing over a table reused by every build on this
/// thread, so that building a plan allocates only the plan's own vectors (an unordered_map allocated a
/// node per value: a tenth of all allocations in fuzz_pipeline's differential runs).
class SlotTable {
 public:
  /// Empties the table, sized for `n` values.
  void reset(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    if (keys_.size() < cap) {
      keys_.assign(cap, kNone);
      slots_.resize(cap);
    } else {
      std::fill(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(cap), kNone);
    }
    mask_ = cap - 1;
  }
  void set(ValueId v, uint32_t slot) {
    size_t h = find(v);
    keys_[h] = v;
    slots_[h] = slot;
  }
  /// The slot of `v`, or kNone.
  uint32_t get(ValueId v) const {
    size_t h = find(v);
    return keys_[h] == v ? slots_[h] : kNone;
  }

 private:
  size_t find(ValueId v) const {
    size_t h = (static_cast<size_t>(v) * 0x9E3779B97F4A7C15ULL >> 32) & mask_;
    while (keys_[h] != kNone && keys_[h] != v) h = (h + 1) & mask_;
    return h;
  }
  std::vector<ValueId> keys_;
  std::vector<uint32_t> slots_;
  size_t mask_ = 0;
};

/// Resolves the operands of `i` into `pl.operands`; false (with pl.error set) for an unavailable value.
bool add_operands(const Program& p, InstId i, const SlotTable& slot, std::vector<uint32_t>& last_use, BodyPlan& pl) {
  for (uint32_t k = 0; k < p.num_operands(i); ++k) {
    ValueId v = p.operand(i, k);
    if (v < p.num_values() && p.value(v).kind == ValueKind::Literal) {
      pl.operands.push_back({kNone, &p.literal(p.value(v).def)});
      continue;
    }
    const uint32_t s = slot.get(v);
    if (s == kNone) {
      pl.error = Status::error(std::string(mnemonic(p.op(i))) + ": operand " + std::to_string(k) +
                               " is not defined earlier in " + body_label(p, p.inst(i).body));
      pl.error.at = i;
      return false;
    }
    pl.operands.push_back({s, nullptr});
    last_use[s] = static_cast<uint32_t>(pl.steps.size());
  }
  return true;
}

/// Turns the per-slot last uses into per-step free lists (slots read by the return are kept), in slot
/// order within a step: a counting sort by step.
void compute_frees(BodyPlan& pl, std::vector<uint32_t>& last_use) {
  for (uint32_t k = 0; k < pl.ret_count; ++k) {
    const BodyPlanOperand& o = pl.operands[pl.ret_first + k];
    if (!o.lit) last_use[o.slot] = kNone;
  }
  const size_t nsteps = pl.steps.size();
  for (BodyPlanStep& st : pl.steps) st.num_free = 0;
  size_t total = 0;
  for (uint32_t s = 0; s < pl.num_slots; ++s)
    if (last_use[s] != kNone && last_use[s] < nsteps) ++pl.steps[last_use[s]].num_free, ++total;
  uint32_t at = 0;
  for (BodyPlanStep& st : pl.steps) {
    st.first_free = at;
    at += st.num_free;
    st.num_free = 0;  // counts again while filling
  }
  pl.frees.resize(total);
  for (uint32_t s = 0; s < pl.num_slots; ++s)
    if (last_use[s] != kNone && last_use[s] < nsteps) {
      BodyPlanStep& st = pl.steps[last_use[s]];
      pl.frees[st.first_free + st.num_free++] = s;
    }
}

std::unique_ptr<BodyPlan> build_plan(const Program& p, BodyId b) {
  auto pl = std::make_unique<BodyPlan>();
  // Sizes first, so that every vector is allocated once.
  size_t num_insts = 0, num_values = p.body(b).params.size(), num_operands = 0;
  p.for_each_inst(b, [&](InstId i) {
    ++num_insts;
    num_values += p.num_results(i);
    num_operands += p.num_operands(i);
  });
  thread_local SlotTable slot;
  slot.reset(num_values);
  std::vector<uint32_t> last_use;  // by slot: the last step reading it (kNone: never read)
  last_use.reserve(num_values);
  pl->steps.reserve(num_insts);
  pl->operands.reserve(num_operands);
  for (ValueId v : p.body(b).params) {
    slot.set(v, pl->num_slots++);
    last_use.push_back(kNone);
  }
  bool has_return = false;
  p.for_each_inst(b, [&](InstId i) {
    if (!pl->error.ok() || has_return) return;
    uint32_t first_arg = static_cast<uint32_t>(pl->operands.size());
    if (!add_operands(p, i, slot, last_use, *pl)) return;
    if (p.op(i) == OpCode::Return) {
      has_return = true;
      pl->ret_first = first_arg;
      pl->ret_count = p.num_operands(i);
      return;
    }
    BodyPlanStep s{i, first_arg, p.num_operands(i), pl->num_slots, p.num_results(i), 0, 0};
    for (uint32_t r = 0; r < p.num_results(i); ++r) {
      slot.set(p.result(i, r), pl->num_slots++);
      last_use.push_back(static_cast<uint32_t>(pl->steps.size()));  // an unused result dies at once
    }
    pl->steps.push_back(s);
  });
  if (pl->error.ok() && !has_return) pl->error = Status::error(body_label(p, b) + " has no return");
  if (pl->error.ok()) compute_frees(*pl, last_use);
  return pl;
}

Status dispatch(const Call& c, Out& out) {
  switch (c.op) {
    case OpCode::Constant: return eval_constant(c, out);
    case OpCode::Neg:
    case OpCode::Abs:
    case OpCode::Exp:
    case OpCode::Log:
    case OpCode::Tanh:
    case OpCode::Erf:
    case OpCode::Rsqrt:
    case OpCode::Reciprocal:
    case OpCode::Sqrt:
    case OpCode::StopGradient: {
      Unary u{};
      unary_of(c.op, u);  // the one op -> Unary map (ir/interp/scalar.h)
      return eval_unary(c, out, u);
    }
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Maximum:
    case OpCode::Minimum: {
      Binary b{};
      binary_of(c.op, b);  // the one op -> Binary map (ir/interp/scalar.h)
      return eval_binary(c, out, b);
    }
    case OpCode::Compare: return eval_compare(c, out);
    case OpCode::Select: return eval_select(c, out);
    case OpCode::Cast: return eval_cast(c, out);
    case OpCode::Reshape: return eval_reshape(c, out);
    case OpCode::Transpose: return eval_transpose(c, out);
    case OpCode::BroadcastTo: return eval_broadcast(c, out);
    case OpCode::Slice: return eval_slice(c, out);
    case OpCode::Concat: return eval_concat(c, out);
    case OpCode::Pad: return eval_pad(c, out);
    case OpCode::Tile: return eval_tile(c, out);
    case OpCode::Iota: return eval_iota(c, out);
    case OpCode::DotGeneral: return eval_dot_general(c, out);
    case OpCode::ReduceSum: return eval_reduce(c, out, Fold::Sum);
    case OpCode::ReduceMax: return eval_reduce(c, out, Fold::Max);
    case OpCode::ReduceMin: return eval_reduce(c, out, Fold::Min);
    case OpCode::Argmax: return eval_argmax(c, out);
    case OpCode::Take: return eval_take(c, out);
    case OpCode::Gather: return eval_gather(c, out);
    case OpCode::ScatterReduce: return eval_scatter_reduce(c, out);
    case OpCode::ScatterAdd: return eval_scatter_add(c, out);
    case OpCode::DynamicSlice: return eval_dynamic_slice(c, out);
    case OpCode::DynamicUpdateSlice: return eval_dynamic_update_slice(c, out);
    case OpCode::ExtractPatches: return eval_extract_patches(c, out);
    case OpCode::ReduceWindow: return eval_reduce_window(c, out);
    case OpCode::TopK: return eval_top_k(c, out);
    case OpCode::SegmentReduce: return eval_segment_reduce(c, out);
    case OpCode::Cond: return eval_cond(c, out);
    case OpCode::While: return eval_while(c, out);
    case OpCode::Scan: return eval_scan(c, out);
    case OpCode::RngUniform: return eval_rng(c, out, Rng::Uniform);
    case OpCode::RngNormal: return eval_rng(c, out, Rng::Normal);
    case OpCode::Quantize:
    case OpCode::Dequantize:
    case OpCode::Requantize:
    case OpCode::CustomCall: return eval_opaque(c, out);
    case OpCode::Return:
      // Results of a return are its operands: this is what eval_inst gives for it.
      for (size_t k = 0; k < c.args.size(); ++k) out.push_back(c.args[k]);
      return Status::success();
  }
  return c.fail("unknown op");
}

uint64_t held_bytes(const Tensor& t) { return t.data.size(); }

std::string mb_text(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MB"; }

/// Whether `extra` more bytes fit the memory budget (over it: an error naming the budget).
/// `what` names the tensor: `prefix`, then `op`'s mnemonic and `suffix` when `op` is given. The words
/// are put together only when the budget is exceeded (a string built for every instruction of a
/// budgeted run was most of the fast pass's allocations).
Status fits(const Exec& ex, uint64_t extra, std::string_view prefix, std::optional<OpCode> op = std::nullopt,
            std::string_view suffix = {}) {
  const uint64_t cap = ex.opts.max_bytes;
  if (cap == 0 || (extra <= cap && ex.live <= cap - extra)) return Status::success();
  std::string what(prefix);
  if (op) what.append(mnemonic(*op)).append(suffix);
  return Status::error("memory budget of " + mb_text(cap) + " exceeded: " + what + " needs " + mb_text(extra) +
                       " with " + mb_text(ex.live) + " already held");
}

/// Points `argp` at the operands, expanding splats (kernels index raw data) into `scratch`.
Status dense_args(Exec& ex, InstId i, std::vector<const Tensor*>& argp, std::vector<Tensor>& scratch,
                  TensorPool* pool = nullptr) {
  uint64_t need = 0;
  for (const Tensor* t : argp)
    if (t->splat) need += t->dense_bytes();
  if (need == 0) return Status::success();
  if (Status st = fits(ex, need, "", ex.p.op(i), " expanding a splat operand"); !st.ok()) return st;
  scratch.clear();
  scratch.reserve(argp.size());
  for (const Tensor*& t : argp) {
    if (!t->splat) continue;
    Tensor& d = scratch.emplace_back(pool ? pool->take(t->type, 0) : Tensor());
    d = *t;  // into a spare's storage when pooled
    d.expand();
    t = &d;
  }
  ex.live += need;
  return Status::success();
}

/// Runs one instruction: preallocates its results and dispatches. `out` receives the results.
Status run_inst(Exec& ex, InstId i, Args args, Out& out, TensorPool* pool = nullptr) {
  const Program& p = ex.p;
  out.clear();
  // A constant's result is its literal (a splat stays one element).
  uint64_t need = 0;
  if (p.op(i) != OpCode::Constant)
    for (uint32_t r = 0; r < p.num_results(i); ++r) {
      const TensorType& t = p.type_of(p.result(i, r));
      need += static_cast<uint64_t>(t.num_elements()) * dtype_bytes(t.dtype);
    }
  // No budget (the default): no clock read. With one, the clock is read before every 32nd instruction
  // and before every instruction making 64 KB or more (a clock read cost 7% of a checker's fast pass
  // of small loops when it came before each instruction).
  if (ex.opts.deadline != std::chrono::steady_clock::time_point::max() &&
      ((++ex.ticks & 31) == 1 || need >= (64u << 10)) && std::chrono::steady_clock::now() > ex.opts.deadline) {
    Status st = Status::error("time budget exhausted before " + std::string(mnemonic(p.op(i))));
    st.at = i;
    return st;
  }
  if (Status st = fits(ex, need, "the result of ", p.op(i)); !st.ok()) {
    st.at = i;
    return st;
  }
  for (uint32_t r = 0; r < p.num_results(i); ++r) {
    const TensorType& t = p.type_of(p.result(i, r));
    // The literal of a constant, set by the kernel, is the result: no zeroed data first.
    const size_t bytes =
        p.op(i) == OpCode::Constant ? 0 : static_cast<size_t>(t.num_elements()) * dtype_bytes(t.dtype);
    out.push_back(pool ? pool->take(t, bytes) : TensorPool::fresh(t, bytes));
  }
  Call c{p, i, p.op(i), p.attrs_of(i), args, ex};
  const OpInfo& info = op_info(c.op);
  const bool governed = !ex.fm.none() && fastmath_governs(c.op);
  Status st;
  if (static_cast<int>(args.size()) < info.min_operands ||
      (info.max_operands >= 0 && static_cast<int>(args.size()) > info.max_operands))
    st = c.fail("wrong number of operands (" + std::to_string(args.size()) + ")");
  else if (info.num_results >= 0 && static_cast<int>(out.size()) != info.num_results)
    st = c.fail("wrong number of results (" + std::to_string(out.size()) + ")");
  else {
    if (governed) st = fastmath_operands(c, ex.fm);
    if (st.ok()) st = dispatch(c, out);
    if (st.ok() && ex.fma_k >= 0 && out.size() == 1 && args.size() == 2) {
      // A fused contract site: every element rounded once from its mul's operands and the other operand.
      Tensor& r = out[0];
      const bool sub = c.op == OpCode::Sub;
      const uint32_t k = static_cast<uint32_t>(ex.fma_k);
      const Tensor& z = args[1 - k];
      for (int64_t e = 0, n = r.size(); e < n; ++e)
        r.set_bits(e, contract_fused(r.dtype(), ex.fma_x->bits(e), ex.fma_y->bits(e), z.bits(e), sub, k));
    }
    if (st.ok() && governed) st = fastmath_results(c, ex.fm, ex.opts.zero_signs, out);
  }
  if (!st.ok() && st.at == kNone) st.at = i;
  return st;
}

Status check_inputs(const Program& p, BodyId b, std::span<const Tensor> inputs) {
  const Body& body = p.body(b);
  if (inputs.size() != body.params.size())
    return Status::error(body_label(p, b) + " takes " + std::to_string(body.params.size()) + " inputs, got " +
                         std::to_string(inputs.size()));
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].type != p.type_of(body.params[k]) || !inputs[k].well_formed())
      return Status::error(body_label(p, b) + ": input " + std::to_string(k) + " has type " +
                           to_string(inputs[k].type) + ", expected " + to_string(p.type_of(body.params[k])));
  return Status::success();
}

/// Runs body `b` on `inputs` (moved into the frame's slots), or, when `lent` is not empty, on `lent`
/// read in place: the run's own inputs, which the caller keeps (a copy of each was a third of a small
/// run's allocations). A lent input counts against the memory budget as if the frame held it.
Status run_frame(Exec& ex, BodyId b, std::vector<Tensor>&& inputs, std::vector<Tensor>& results,
                 std::span<const Tensor> lent = {}) {
  std::unique_ptr<BodyPlan>& plan = ex.opts.plans ? ex.opts.plans->slot(ex.p, b) : ex.plans[b];
  if (!plan) plan = build_plan(ex.p, b);
  const BodyPlan& pl = *plan;
  if (!pl.error.ok()) return pl.error;
  const uint32_t nlent = static_cast<uint32_t>(lent.size());
  if (Status st = check_inputs(ex.p, b, nlent ? lent : std::span<const Tensor>(inputs)); !st.ok()) return st;
  const size_t depth = std::max<size_t>(ex.active.size(), 1);
  std::vector<std::unique_ptr<FrameBuffers>>& frames = ex.frames();
  if (frames.size() < depth) frames.resize(depth);
  if (!frames[depth - 1]) frames[depth - 1] = std::make_unique<FrameBuffers>();
  FrameBuffers& fb = *frames[depth - 1];
  if (!frames[0]) frames[0] = std::make_unique<FrameBuffers>();
  // The pool pays when runs share it (a PlanCache's); one run alone mostly fills it for nothing.
  TensorPool* pool = ex.opts.plans ? &frames[0]->pool : nullptr;
  std::vector<Tensor>& slots = fb.slots;
  slots.resize(pl.num_slots);
  // Bytes held by this frame's slots, counted in ex.live while the frame runs; the slots are emptied
  // when it ends (the vectors keep their capacity for the next frame at this depth).
  uint64_t mine = 0;
  struct Release {
    Exec& ex;
    uint64_t& bytes;
    FrameBuffers& fb;
    TensorPool* pool;
    ~Release() {
      ex.live -= bytes;
      if (pool) {
        for (Tensor& t : fb.slots) pool->recycle(t);
        for (Tensor& t : fb.scratch) pool->recycle(t);
      }
      fb.slots.clear();
      fb.scratch.clear();
      fb.out.clear();
    }
  } release{ex, mine, fb, pool};
  for (size_t k = 0; k < inputs.size(); ++k) {
    slots[k] = std::move(inputs[k]);
    mine += held_bytes(slots[k]);
  }
  for (const Tensor& t : lent) mine += held_bytes(t);
  // The tensor of a slot: a lent input in place, else the frame's own.
  auto at = [&](uint32_t slot) -> const Tensor* { return slot < nlent ? &lent[slot] : &slots[slot]; };
  ex.live += mine;
  std::vector<const Tensor*>& argp = fb.argp;
  std::vector<Tensor>& scratch = fb.scratch;
  Out& out = fb.out;
  // Fused contract sites (InterpOptions::contracted) read their mul's operands: slots are then kept to
  // the end of the frame.
  const bool fusing = ex.opts.contracted && !ex.opts.contracted->empty() && !ex.p.body(b).is_region &&
                      ex.fm.has(FastMathFlag::Contract);
  for (const BodyPlanStep& s : pl.steps) {
    argp.clear();
    for (uint32_t k = 0; k < s.num_args; ++k) {
      const BodyPlanOperand& o = pl.operands[s.first_arg + k];
      argp.push_back(o.lit ? o.lit : at(o.slot));
    }
    if (Status st = dense_args(ex, s.inst, argp, scratch, pool); !st.ok()) {
      st.at = s.inst;
      return st;
    }
    uint64_t expanded = 0;
    for (const Tensor& t : scratch) expanded += held_bytes(t);
    ex.fma_k = -1;
    if (fusing)
      if (auto it = ex.opts.contracted->find(s.inst); it != ex.opts.contracted->end()) {
        const std::vector<uint32_t> ks = contract_operands(ex.p, s.inst);
        const InstId mul = std::find(ks.begin(), ks.end(), it->second) != ks.end()
                               ? ex.p.def_inst(ex.p.operand(s.inst, it->second)) : kNone;
        for (const BodyPlanStep& m : pl.steps) {
          if (mul == kNone || m.inst != mul || m.num_args != 2) continue;
          const BodyPlanOperand& x = pl.operands[m.first_arg], &y = pl.operands[m.first_arg + 1];
          ex.fma_x = x.lit ? x.lit : at(x.slot);
          ex.fma_y = y.lit ? y.lit : at(y.slot);
          ex.fma_k = static_cast<int>(it->second);
        }
      }
    Status st = run_inst(ex, s.inst, Args(argp.data(), argp.size()), out, pool);
    ex.fma_k = -1;
    ex.live -= expanded;
    if (pool)
      for (Tensor& t : scratch) pool->recycle(t);
    scratch.clear();
    if (!st.ok()) return st;
    for (uint32_t r = 0; r < s.num_res; ++r) {
      Tensor& slot = slots[s.first_res + r];
      const uint64_t before = held_bytes(slot), after = held_bytes(out[r]);
      slot = std::move(out[r]);
      mine += after - before, ex.live += after - before;
    }
    for (uint32_t f = 0; f < s.num_free && !fusing; ++f) {
      const uint32_t dead = pl.frees[s.first_free + f];
      if (dead < nlent) {  // a lent input is not freed, only no longer counted
        mine -= held_bytes(lent[dead]), ex.live -= held_bytes(lent[dead]);
        continue;
      }
      Tensor& slot = slots[dead];
      mine -= held_bytes(slot), ex.live -= held_bytes(slot);
      if (pool) pool->recycle(slot);
      else slot = Tensor();
    }
  }
  results.clear();
  results.reserve(pl.ret_count);
  for (uint32_t k = 0; k < pl.ret_count; ++k) {
    const BodyPlanOperand& o = pl.operands[pl.ret_first + k];
    bool read_again = false;
    for (uint32_t j = k + 1; j < pl.ret_count && !o.lit; ++j)
      read_again = read_again || pl.operands[pl.ret_first + j].slot == o.slot;
    if (o.lit) results.push_back(*o.lit);
    else if (o.slot < nlent) results.push_back(lent[o.slot]);
    else if (read_again) results.push_back(slots[o.slot]);
    else results.push_back(std::move(slots[o.slot]));
  }
  return Status::success();
}

RunResult to_result(Status st, std::vector<Tensor>&& results) {
  RunResult r;
  r.status = st.code;
  r.message = std::move(st.message);
  r.at = st.at;
  if (st.ok()) r.results = std::move(results);
  return r;
}

/// Runs `f` turning allocation failures (huge shapes from malformed programs) into an Error.
template <typename F>
RunResult guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return to_result(Status::error("out of memory"), {});
  } catch (const std::length_error&) {
    return to_result(Status::error("out of memory"), {});
  }
}

}  // namespace

Status run_region(Exec& ex, BodyId b, std::vector<Tensor> inputs, std::vector<Tensor>& results) {
  return run_region_lent(ex, b, std::move(inputs), {}, results);
}

Status run_region_lent(Exec& ex, BodyId b, std::vector<Tensor>&& inputs, std::span<const Tensor> lent,
                       std::vector<Tensor>& results) {
  if (b >= ex.p.num_bodies()) return Status::error("reference to a body that does not exist");
  if (ex.active.size() >= kMaxRegionDepth)
    return Status::error("regions nest deeper than " + std::to_string(kMaxRegionDepth));
  for (BodyId a : ex.active)
    if (a == b) return Status::error(body_label(ex.p, b) + " is entered recursively");
  const bool nested = !ex.active.empty();
  ex.active.push_back(b);
  Status st = run_frame(ex, b, std::move(inputs), results, lent);
  ex.active.pop_back();
  // Region results go to kernels that copy raw data (scan stacks them): no splats there.
  if (nested && st.ok())
    for (Tensor& t : results) {
      if (!t.splat) continue;
      if (Status f = fits(ex, t.dense_bytes(), "a region result"); !f.ok()) return f;
      t.expand();
    }
  return st;
}

}  // namespace ptir::interp

namespace ptir {

using interp::Exec;
using interp::Status;

RunResult run_body(const Program& p, BodyId b, std::span<const Tensor> inputs, const InterpOptions& opts) {
  return interp::guarded([&] {
    if (b >= p.num_bodies()) return interp::to_result(Status::error("no body to run"), {});
    Exec ex{p, opts, {}, {}};
    ex.fm = opts.fastmath ? *opts.fastmath : p.fastmath_of(b);
    std::vector<Tensor> results;
    // The inputs are read in place (a body with parameters; without any there is nothing to lend).
    Status st = interp::run_region_lent(ex, b, {}, inputs, results);
    return interp::to_result(std::move(st), std::move(results));
  });
}

RunResult run_program(const Program& p, std::span<const Tensor> inputs, const InterpOptions& opts) {
  BodyId e = p.entry();
  if (e == kNone) {
    RunResult r;
    r.status = RunStatus::Error;
    r.message = "the program has no function to run";
    return r;
  }
  return run_body(p, e, inputs, opts);
}

struct IndexMapCache::Entry {
  OpCode op;
  AttrSet attrs;
  std::vector<TensorType> operands, results;
  std::shared_ptr<const imap::IndexMap> map;
  std::shared_ptr<interp::MapMemo> memo;  ///< made on the first memo() request (may stay nullptr)
  bool memo_made = false;
};

PlanCache::PlanCache() : plans_(new std::unordered_map<BodyId, std::unique_ptr<interp::BodyPlan>>()) {}

PlanCache::~PlanCache() { delete plans_; }

void PlanCache::use(const Program& p) {
  if (program_ != &p || insts_ != p.num_inst_slots() || values_ != p.num_values()) {
    plans_->clear();
    maps_.clear();
    program_ = &p;
    insts_ = p.num_inst_slots();
    values_ = p.num_values();
  }
}

std::unique_ptr<interp::BodyPlan>& PlanCache::slot(const Program& p, BodyId b) {
  use(p);
  return (*plans_)[b];
}

std::shared_ptr<interp::MapMemo>& PlanCache::map_slot(const Program& p, InstId i) {
  use(p);
  if (maps_.size() <= i) maps_.resize(insts_ > i ? insts_ : size_t{i} + 1);
  return maps_[i];
}

IndexMapCache::IndexMapCache(size_t capacity)
    : capacity_(capacity), entries_(new std::unordered_multimap<size_t, Entry>()) {}

IndexMapCache::~IndexMapCache() { delete entries_; }

IndexMapCache::Entry* IndexMapCache::find_or_build(OpCode op, const AttrSet& attrs,
                                                   std::span<const TensorType> operands,
                                                   std::span<const TensorType> results, std::string* error) {
  size_t h = static_cast<size_t>(op) * 0x9E3779B97F4A7C15ull ^ hash_value(attrs);
  for (const TensorType& t : operands) h = h * 31 + hash_value(t);
  h = h * 131 + operands.size();
  for (const TensorType& t : results) h = h * 31 + hash_value(t);
  auto [b, e] = entries_->equal_range(h);
  for (auto it = b; it != e; ++it) {
    Entry& x = it->second;
    if (x.op == op && std::equal(x.operands.begin(), x.operands.end(), operands.begin(), operands.end()) &&
        std::equal(x.results.begin(), x.results.end(), results.begin(), results.end()) && x.attrs == attrs) {
      ++hits_;
      return &x;
    }
  }
  ++misses_;
  auto m = imap::index_map(op, attrs, operands, results, imap::Sizes::Concrete, error);
  if (!m) return nullptr;  // not kept: an error is reported again by the next run
  auto map = std::make_shared<const imap::IndexMap>(std::move(*m));
  if (entries_->size() >= capacity_) entries_->clear();  // a run holding a map or memo keeps its own reference
  auto it = entries_->emplace(
      h, Entry{op, attrs, {operands.begin(), operands.end()}, {results.begin(), results.end()}, std::move(map), {}, false});
  return &it->second;
}

std::shared_ptr<const imap::IndexMap> IndexMapCache::get(OpCode op, const AttrSet& attrs,
                                                         std::span<const TensorType> operands,
                                                         std::span<const TensorType> results, std::string* error) {
  Entry* x = find_or_build(op, attrs, operands, results, error);
  return x ? x->map : nullptr;
}

std::shared_ptr<interp::MapMemo> IndexMapCache::memo(OpCode op, const AttrSet& attrs,
                                                     std::span<const TensorType> operands,
                                                     std::span<const TensorType> results, std::string* error) {
  Entry* x = find_or_build(op, attrs, operands, results, error);
  if (!x) return nullptr;
  if (!x->memo_made) {
    x->memo = interp::make_memo(op, x->attrs, x->operands, x->results, x->map);
    x->memo_made = true;
  }
  return x->memo;
}

RunResult eval_inst(const Program& p, InstId i, std::span<const Tensor> operands, const InterpOptions& opts) {
  return interp::guarded([&] {
    if (i >= p.num_inst_slots()) return interp::to_result(Status::error("no such instruction"), {});
    std::string what(mnemonic(p.op(i)));
    if (operands.size() != p.num_operands(i))
      return interp::to_result(Status::error(what + ": expects " + std::to_string(p.num_operands(i)) +
                                             " operands, got " + std::to_string(operands.size())), {});
    std::vector<const Tensor*> argp;
    std::vector<Tensor> scratch;
    for (uint32_t k = 0; k < operands.size(); ++k) {
      if (operands[k].type != p.type_of(p.operand(i, k)))
        return interp::to_result(Status::error(what + ": operand " + std::to_string(k) + " has type " +
                                               to_string(operands[k].type) + ", expected " +
                                               to_string(p.type_of(p.operand(i, k)))), {});
      argp.push_back(&operands[k]);
    }
    Exec ex{p, opts, {}, {}};
    ex.fm = opts.fastmath ? *opts.fastmath : p.fastmath_of(p.inst(i).body);
    std::vector<Tensor> out;
    Status st = interp::dense_args(ex, i, argp, scratch);
    if (st.ok()) st = interp::run_inst(ex, i, interp::Args(argp.data(), argp.size()), out);
    return interp::to_result(std::move(st), std::move(out));
  });
}

}  // namespace ptir
