// The reference interpreter: executes every op on concrete tensors, bit-exact per docs/semantics.md.
// Z3-free; used by `ptir run`, expensive checks, counterexample replay and the fuzzers.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/program.h"

namespace ptir {

/// Kernels for opaque ops (custom_call by target, quantize/dequantize/requantize by mnemonic).
struct KernelRegistry {
  /// Returns false with `error` set when it cannot compute; fills `results` (one per result type).
  using Kernel = std::function<bool(std::span<const Tensor> args, const AttrSet& attrs,
                                    std::span<const TensorType> result_types, std::vector<Tensor>& results,
                                    std::string& error)>;
  std::map<std::string, Kernel, std::less<>> kernels;
  void add(std::string target, Kernel k) { kernels[std::move(target)] = std::move(k); }
};

/// Chosen signs of zero results under `nsz`: (instruction, flat element) -> negative zero. Only
/// instructions of a function body (not of a region) are looked up: those run at most once per run.
using ZeroSigns = std::map<std::pair<InstId, int64_t>, bool>;

/// Fused contract sites under `contract`: (add/sub instruction) -> the operand position of the mul fused
/// into it (ptir::contract_operands). Only instructions of a function body (not of a region) are looked up.
using Contractions = std::map<InstId, uint32_t>;

/// Options of one run.
namespace imap {
struct IndexMap;
}
namespace interp {
struct MapMemo;
}

/// Index maps the interpreter built, kept for later runs of an instruction with the same op,
/// attributes and operand and result types (a map depends on nothing else: ir/index_map.h), so that
/// many runs of small instructions (the expensive checks' 15 trials per rewrite) build each map once.
/// A hit is compared in full (op, attributes, every type), never by hash alone. Not thread-safe: one
/// per thread. Holds at most `capacity` maps, then starts over.
class IndexMapCache {
 public:
  explicit IndexMapCache(size_t capacity = 4096);
  ~IndexMapCache();
  IndexMapCache(const IndexMapCache&) = delete;
  IndexMapCache& operator=(const IndexMapCache&) = delete;
  /// The map of `op` on these types (built on a miss; nullptr with `error` set when it cannot be built).
  std::shared_ptr<const imap::IndexMap> get(OpCode op, const AttrSet& attrs, std::span<const TensorType> operands,
                                            std::span<const TensorType> results, std::string* error);
  /// The map's memo (interp::MapMemo: the map with its extents and, made on first use, what run_move and
  /// walk_fold derive from it), made on the first request and shared by every later call of the same op,
  /// attributes and types; nullptr when the extents read an element or are negative (`error` empty), or
  /// when the map cannot be built (`error` set).
  std::shared_ptr<interp::MapMemo> memo(OpCode op, const AttrSet& attrs, std::span<const TensorType> operands,
                                        std::span<const TensorType> results, std::string* error);
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry;
  Entry* find_or_build(OpCode op, const AttrSet& attrs, std::span<const TensorType> operands,
                       std::span<const TensorType> results, std::string* error);
  size_t capacity_;
  std::unordered_multimap<size_t, Entry>* entries_;
  uint64_t hits_ = 0, misses_ = 0;
};

namespace interp {
struct BodyPlan;
struct FrameBuffers;
struct MapMemo;
}

/// The interpreter's plans of one program's bodies (which frame slot holds each value, where each dies),
/// kept for later runs of the same program: without it every run builds the plan of each body it
/// enters. The caller promises that the program does not change while a cache is in use for it (a
/// differential of two fixed programs: one cache per program). A run of another program (another
/// address, instruction or value count) empties the cache first. The cache also keeps the run's frame
/// buffers (value slots by depth, emptied when a frame ends, their capacity kept), a pool of dead
/// tensors whose storage later results reuse (at most 32 of at most 16 KB each; runs without a cache
/// have none), so later runs of a small program allocate little beyond the tensors they return, and
/// each instruction's index map with its extents (MapMemo). Not thread-safe, and one run at a time:
/// one per thread.
class PlanCache {
 public:
  PlanCache();
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;
  /// The slot of body `b` of `p` (empty until the interpreter builds it).
  std::unique_ptr<interp::BodyPlan>& slot(const Program& p, BodyId b);
  /// The memo of instruction `i`'s index map (empty until the interpreter makes it; see interp::MapMemo).
  std::shared_ptr<interp::MapMemo>& map_slot(const Program& p, InstId i);
  /// The frame buffers by nesting depth (the interpreter's).
  std::vector<std::unique_ptr<interp::FrameBuffers>>& frames() { return frames_; }

 private:
  void use(const Program& p);  ///< empties the cache when `p` is not the program it was kept for
  const Program* program_ = nullptr;
  size_t insts_ = 0, values_ = 0;
  std::unordered_map<BodyId, std::unique_ptr<interp::BodyPlan>>* plans_;
  std::vector<std::unique_ptr<interp::FrameBuffers>> frames_;
  std::vector<std::shared_ptr<interp::MapMemo>> maps_;  ///< by InstId, sized on first use
};

struct InterpOptions {
  const KernelRegistry* kernels = nullptr;  ///< nullptr: opaque ops report "no kernel for TARGET"
  /// A while that runs longer stops with RunStatus::Bound; one whose (small) state repeats stops so at
  /// once (docs/semantics.md "Control flow").
  int64_t max_while_iterations = 1 << 20;
  /// The fast-math flags in force (docs/semantics.md "Fast-math flags"); nullopt: those of the body
  /// run (Program::fastmath_of), which its regions inherit. nnan/ninf make a NaN/inf operand or result
  /// of a governed op UB; nsz, reassoc, contract and afn change nothing here (IEEE default sign and
  /// order, every add/sub unfused, libm's transcendentals) unless zero_signs / contracted choose.
  std::optional<FastMath> fastmath{};
  /// Under nsz: signs chosen for zero results (an element not listed keeps the IEEE default sign).
  const ZeroSigns* zero_signs = nullptr;
  /// Under contract: sites computed fused (a*b+c rounded once) instead of the default unfused IEEE
  /// result; a site not listed, not a site of contract_operands, or run without contract stays unfused.
  const Contractions* contracted = nullptr;
  /// Memory budget of the tensors a run holds at once (values live in its frames, the results being
  /// made, and splats expanded for a kernel); 0: no limit. An instruction that would go past it is
  /// not run: the run stops with RunStatus::Error and a message naming the budget.
  uint64_t max_bytes = 0;
  /// Time budget: checked before the first instruction, then before every 32nd one and before each one
  /// making 64 KB or more of results (so within a few loop iterations); a run past it stops with
  /// RunStatus::Error and a message naming the budget. Default: no limit.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Index maps reused across runs (see IndexMapCache); nullptr: each instruction builds its own.
  IndexMapCache* index_maps = nullptr;
  /// Body plans reused across runs of one unchanged program (see PlanCache); nullptr: built per run.
  PlanCache* plans = nullptr;
};

enum class RunStatus : uint8_t {
  Ok,     ///< results are valid
  UB,     ///< undefined behaviour (integer /0, INT_MIN/-1, out-of-range take/gather index, ...)
  Bound,  ///< a while loop hit max_while_iterations
  Error,  ///< cannot run: no kernel, bad input count/types, ...
};

struct RunResult {
  RunStatus status = RunStatus::Ok;
  std::vector<Tensor> results;
  std::string message;   ///< what happened, for UB/Bound/Error
  InstId at = kNone;     ///< instruction where UB/Bound/Error happened
};

/// Runs body `b` (a function or a region) on `inputs` (one per parameter, types must match).
RunResult run_body(const Program& p, BodyId b, std::span<const Tensor> inputs, const InterpOptions& opts = {});
/// Runs the entry function.
RunResult run_program(const Program& p, std::span<const Tensor> inputs, const InterpOptions& opts = {});

/// Evaluates a single instruction on concrete operand values (used by constant folding and by the
/// encoding/interpreter agreement tests). Regions referenced by the instruction are run from `p`.
RunResult eval_inst(const Program& p, InstId i, std::span<const Tensor> operands, const InterpOptions& opts = {});

/// Random input generation shared by `ptir run --random`, expensive checks and the fuzz/prove fast passes.
/// With `edge_bias` > 0, about that fraction of elements are edge values: floats ±0, ±inf, NaN, smallest and
/// largest subnormal, ±1, largest finite; integers 0, ±1, MIN, MAX.
Tensor random_tensor(const TensorType& t, uint64_t seed, double edge_bias = 0.25);
std::vector<Tensor> random_inputs(const Program& p, BodyId b, uint64_t seed, double edge_bias = 0.25);
/// Index-like operands (take/gather/scatter/segment ids, dynamic starts) get in-range values when
/// `p` and `b` are known: this fills inputs so that the body has no UB where that is easy to arrange.
std::vector<Tensor> random_inputs_avoiding_ub(const Program& p, BodyId b, uint64_t seed, double edge_bias = 0.25);

}  // namespace ptir
