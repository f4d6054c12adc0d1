// The exhaustive backend (docs/verification.md, "Exhaustive checks"). Each function is compiled to a
// tape of element steps over registers; a register is classed by the inputs it depends on:
//   Const  no input (literals, constant ops and what only they feed): computed once,
//   Low    only inputs held in the low S bits of the case number: computed once over the 2^S lanes,
//   High   only inputs above those bits: computed once per batch (one value),
//   Mixed  both: computed per chunk of lanes.
// Case c (0 <= c < 2^W, W the summed input widths) gives parameter k the bits (c >> shift_k) & mask_k,
// parameter 0 in the highest bits. A batch is the 2^S cases sharing the high bits. Every step calls the
// element functions of ir/interp/scalar.h and numeric.h, which the interpreter's kernels call.
#include "verify/exhaustive/exhaustive.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "ir/interp/numeric.h"
#include "ir/interp/scalar.h"

namespace ptir::verify {
namespace {

using clock = std::chrono::steady_clock;
using interp::Binary;
using interp::Unary;

enum Cls : uint8_t { kConst = 0, kHigh = 1, kLow = 2, kMixed = 3 };

enum class Kind : uint8_t { Unary, Binary, Compare, Select, Cast };

struct Step {
  Kind kind;
  Unary un = Unary::Identity;
  Binary bin = Binary::Add;
  int dir = 0;
  DType in = DType::F32, out = DType::F32;
  int args[3] = {-1, -1, -1};
  int nargs = 0;
  int dst = -1;
};

struct Reg {
  DType dt = DType::F32;
  uint8_t cls = kConst;
  int param = -1;          ///< a parameter register: its index
  uint64_t value = 0;      ///< Const: the element
  std::vector<uint64_t> low;  ///< Low: one element per lane (2^S)
  int slot = -1;           ///< High / Mixed: index into the per-thread arrays
};

/// One function compiled to steps.
struct Tape {
  std::vector<Reg> regs;
  std::vector<Step> steps[4];  ///< by class of the destination
  std::vector<int> results;
  bool libm = false;           ///< uses a transcendental (host libm)
  int slots = 0;
  // UB found in the Const and Low phases.
  bool const_ub = false;
  std::vector<uint8_t> low_ub;
};

bool is_elementwise_op(OpCode op) {
  switch (op) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Tanh:
    case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
    case OpCode::StopGradient: case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div:
    case OpCode::Maximum: case OpCode::Minimum: case OpCode::Compare: case OpCode::Select: case OpCode::Cast:
      return true;
    default: return false;
  }
}

/// The scope test for one body; fills `dims` from the first parameter.
std::string body_scope(const Program& p, BodyId b, const char* side) {
  const Body& body = p.body(b);
  if (!p.fastmath_of(b).none())
    return std::string(side) + " has fast-math flags (the sweep does not enumerate their choices)";
  if (body.params.empty()) return std::string(side) + " has no parameters";
  const std::vector<int64_t>& dims = p.type_of(body.params[0]).dims;
  for (ValueId v : body.params)
    if (p.type_of(v).dims != dims) return "parameters of different shapes";
  std::string why;
  auto check_value = [&](ValueId v) {
    if (!why.empty()) return;
    if (p.type_of(v).dims != dims) {
      why = "a value of another shape than the parameters";
      return;
    }
    if (p.value(v).kind == ValueKind::Literal && !p.constant_of(v)->is_splat()) why = "a literal that is not a splat";
  };
  p.for_each_inst(b, [&](InstId i) {
    if (!why.empty()) return;
    const OpCode op = p.op(i);
    if (op == OpCode::Return) {
      for (uint32_t k = 0; k < p.num_operands(i); ++k) check_value(p.operand(i, k));
      return;
    }
    if (op == OpCode::Constant) {
      const Tensor* t = p.constant_of(p.result(i));
      if (!t || !t->is_splat()) why = std::string(side) + " has a constant that is not a splat";
      check_value(p.result(i));
      return;
    }
    if (!is_elementwise_op(op)) {
      why = std::string(side) + " has '" + std::string(mnemonic(op)) + "', not an elementwise op";
      return;
    }
    for (uint32_t k = 0; k < p.num_operands(i); ++k) check_value(p.operand(i, k));
    check_value(p.result(i));
  });
  return why;
}

std::string input_scope(const Program& p, BodyId b, int max_bits, int& bits) {
  bits = 0;
  if (p.body(b).params.empty()) return "no parameters";
  for (ValueId v : p.body(b).params) {
    const DType d = p.type_of(v).dtype;
    if (dtype_bits(d) > 16) return std::string("parameter of dtype ") + dtype_name(d) + " (wider than 16 bits)";
    bits += dtype_bits(d);
  }
  if (bits > max_bits) return std::to_string(bits) + " input bits (more than " + std::to_string(max_bits) + ")";
  if (p.type_of(p.body(b).params[0]).num_elements() == 0) return "tensors without elements";
  return "";
}

/// Compiles body b; `param_cls` gives each parameter's class. Returns "" or why it cannot.
std::string compile(const Program& p, BodyId b, const std::vector<uint8_t>& param_cls, Tape& t) {
  std::unordered_map<ValueId, int> reg_of;
  auto new_reg = [&](DType d, uint8_t cls) {
    Reg r;
    r.dt = d;
    r.cls = cls;
    t.regs.push_back(std::move(r));
    return static_cast<int>(t.regs.size()) - 1;
  };
  const Body& body = p.body(b);
  for (size_t k = 0; k < body.params.size(); ++k) {
    int r = new_reg(p.type_of(body.params[k]).dtype, param_cls[k]);
    t.regs[r].param = static_cast<int>(k);
    reg_of[body.params[k]] = r;
  }
  std::string why;
  auto reg = [&](ValueId v) -> int {
    auto it = reg_of.find(v);
    if (it != reg_of.end()) return it->second;
    const Tensor* lit = p.constant_of(v);
    if (!lit) {
      why = "an operand defined outside the body";
      return -1;
    }
    int r = new_reg(lit->dtype(), kConst);
    t.regs[r].value = lit->bits(0);
    reg_of[v] = r;
    return r;
  };
  p.for_each_inst(b, [&](InstId i) {
    if (!why.empty()) return;
    const OpCode op = p.op(i);
    if (op == OpCode::Return) {
      for (uint32_t k = 0; k < p.num_operands(i); ++k) t.results.push_back(reg(p.operand(i, k)));
      return;
    }
    if (op == OpCode::Constant) {
      int r = new_reg(p.type_of(p.result(i)).dtype, kConst);
      t.regs[r].value = p.constant_of(p.result(i))->bits(0);
      reg_of[p.result(i)] = r;
      return;
    }
    Step s;
    s.out = p.type_of(p.result(i)).dtype;
    s.nargs = static_cast<int>(p.num_operands(i));
    uint8_t cls = kConst;
    for (int k = 0; k < s.nargs; ++k) {
      s.args[k] = reg(p.operand(i, k));
      if (s.args[k] < 0) return;
      cls |= t.regs[s.args[k]].cls;
    }
    s.in = t.regs[s.args[0]].dt;
    if (interp::unary_of(op, s.un)) {
      s.kind = Kind::Unary;
      // rsqrt is 1/sqrt, correctly rounded steps (docs/semantics.md), not the host's libm.
      if (has_trait(op, Transcendental) && op != OpCode::Rsqrt) t.libm = true;
      if (!is_float(s.out) && s.un != Unary::Identity && s.un != Unary::Neg && s.un != Unary::Abs) {
        why = std::string(mnemonic(op)) + " on " + dtype_name(s.out);
        return;
      }
    } else if (interp::binary_of(op, s.bin)) {
      s.kind = Kind::Binary;
      if (s.out == DType::I1) {
        why = std::string(mnemonic(op)) + " on i1";
        return;
      }
    } else if (op == OpCode::Compare) {
      s.kind = Kind::Compare;
      s.dir = interp::compare_dir(p.attrs_of(i).word("dir"));
      if (s.dir < 0) {
        why = "compare with an unknown dir";
        return;
      }
    } else if (op == OpCode::Select) {
      s.kind = Kind::Select;
    } else {
      s.kind = Kind::Cast;
    }
    s.dst = new_reg(s.out, cls);
    reg_of[p.result(i)] = s.dst;
    t.steps[cls].push_back(s);
  });
  return why;
}

/// An operand: element i is p[i * stride].
struct Arg {
  const uint64_t* p;
  int stride;
  uint64_t operator[](int i) const { return p[i * stride]; }
};

template <DType T, Binary K>
void float_binary_loop(Arg a, Arg b, uint64_t* out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = interp::store_f(T, interp::float_binary(K, interp::load_f(T, a[i]), interp::load_f(T, b[i])));
}

template <DType T>
void float_binary_dispatch(Binary k, Arg a, Arg b, uint64_t* out, int n) {
  switch (k) {
    case Binary::Add: return float_binary_loop<T, Binary::Add>(a, b, out, n);
    case Binary::Sub: return float_binary_loop<T, Binary::Sub>(a, b, out, n);
    case Binary::Mul: return float_binary_loop<T, Binary::Mul>(a, b, out, n);
    case Binary::Div: return float_binary_loop<T, Binary::Div>(a, b, out, n);
    case Binary::Max: return float_binary_loop<T, Binary::Max>(a, b, out, n);
    case Binary::Min: return float_binary_loop<T, Binary::Min>(a, b, out, n);
  }
}

/// Integer binary op K on n lanes (the interpreter's int_binary, the op a compile-time constant and the
/// mask hoisted: the per-element dispatch and mask lookup were most of an integer sweep's time).
template <Binary K>
void int_binary_loop(DType t, Arg a, Arg b, uint64_t* out, uint8_t* ub, int n) {
  const uint64_t m = bits_mask(t);
  for (int i = 0; i < n; ++i) {
    uint64_t r = 0;
    const char* why = "";
    if (!interp::int_binary(K, t, m, a[i], b[i], r, why)) {
      ub[i] = 1;
      r = 0;
    }
    out[i] = r;
  }
}

template <DType T>
void float_unary_loop(Unary k, Arg a, uint64_t* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = interp::float_unary(k, T, a[i]);
}

template <DType F, DType T>
void cast_loop(Arg a, uint64_t* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = interp::cast_float_float(F, T, a[i]);
}

template <DType F>
bool cast_from_float(DType to, Arg a, uint64_t* out, int n) {
  switch (to) {
    case DType::F16: cast_loop<F, DType::F16>(a, out, n); return true;
    case DType::BF16: cast_loop<F, DType::BF16>(a, out, n); return true;
    case DType::F32: cast_loop<F, DType::F32>(a, out, n); return true;
    case DType::F64: cast_loop<F, DType::F64>(a, out, n); return true;
    default: return false;
  }
}

/// Runs one step on n lanes; ub[i] is set where the step has UB.
void run_step(const Step& s, const Arg* args, uint64_t* out, uint8_t* ub, int n) {
  const DType t = s.out;
  switch (s.kind) {
    case Kind::Unary:
      if (s.un == Unary::Identity) {
        for (int i = 0; i < n; ++i) out[i] = args[0][i];
        return;
      }
      if (is_float(t)) {
        switch (t) {
          case DType::F16: return float_unary_loop<DType::F16>(s.un, args[0], out, n);
          case DType::BF16: return float_unary_loop<DType::BF16>(s.un, args[0], out, n);
          case DType::F32: return float_unary_loop<DType::F32>(s.un, args[0], out, n);
          default: return float_unary_loop<DType::F64>(s.un, args[0], out, n);
        }
      }
      for (int i = 0; i < n; ++i) {
        uint64_t r = 0;
        interp::int_unary(s.un, t, args[0][i], r);  // compile() admits only the integer unary ops
        out[i] = r;
      }
      return;
    case Kind::Binary:
      if (is_float(t)) {
        switch (t) {
          case DType::F16: return float_binary_dispatch<DType::F16>(s.bin, args[0], args[1], out, n);
          case DType::BF16: return float_binary_dispatch<DType::BF16>(s.bin, args[0], args[1], out, n);
          case DType::F32: return float_binary_dispatch<DType::F32>(s.bin, args[0], args[1], out, n);
          default: return float_binary_dispatch<DType::F64>(s.bin, args[0], args[1], out, n);
        }
      }
      switch (s.bin) {
        case Binary::Add: return int_binary_loop<Binary::Add>(t, args[0], args[1], out, ub, n);
        case Binary::Sub: return int_binary_loop<Binary::Sub>(t, args[0], args[1], out, ub, n);
        case Binary::Mul: return int_binary_loop<Binary::Mul>(t, args[0], args[1], out, ub, n);
        case Binary::Div: return int_binary_loop<Binary::Div>(t, args[0], args[1], out, ub, n);
        case Binary::Max: return int_binary_loop<Binary::Max>(t, args[0], args[1], out, ub, n);
        case Binary::Min: return int_binary_loop<Binary::Min>(t, args[0], args[1], out, ub, n);
      }
      return;
    case Kind::Compare:
      for (int i = 0; i < n; ++i) out[i] = interp::compare_elem(s.in, s.dir, args[0][i], args[1][i]) ? 1 : 0;
      return;
    case Kind::Select:
      for (int i = 0; i < n; ++i) out[i] = (args[0][i] & 1) ? args[1][i] : args[2][i];
      return;
    case Kind::Cast:
      if (s.in == t) {
        for (int i = 0; i < n; ++i) out[i] = args[0][i];
        return;
      }
      if (is_float(s.in)) {
        bool done = false;
        switch (s.in) {
          case DType::F16: done = cast_from_float<DType::F16>(t, args[0], out, n); break;
          case DType::BF16: done = cast_from_float<DType::BF16>(t, args[0], out, n); break;
          case DType::F32: done = cast_from_float<DType::F32>(t, args[0], out, n); break;
          case DType::F64: done = cast_from_float<DType::F64>(t, args[0], out, n); break;
          default: break;
        }
        if (done) return;
      }
      for (int i = 0; i < n; ++i) out[i] = interp::cast_elem(s.in, t, args[0][i]);
      return;
  }
}

/// Sweep state shared by the threads.
struct Sweep {
  const Program *sp, *tp;
  BodyId sb, tb;
  int W = 0, S = 0;
  std::vector<int> widths, shifts;
  std::vector<uint8_t> param_cls;
  Tape tape[2];
  /// Per result: a NaN is an element whose bits under mag_mask exceed nan_above (integers: never).
  std::vector<uint64_t> nan_above, mag_mask;
  clock::time_point deadline;
  std::atomic<uint64_t> next_batch{0};
  std::atomic<uint64_t> best{UINT64_MAX};  ///< smallest differing case found
  std::atomic<bool> timed_out{false};
  std::atomic<uint64_t> cases{0};
};

constexpr int kChunk = 1024;

/// Per-thread state.
struct Worker {
  Sweep& sw;
  std::vector<uint64_t> high[2];                 ///< High register values by slot
  std::vector<std::vector<uint64_t>> mixed[2];   ///< Mixed register lanes by slot
  std::vector<uint8_t> ub[2];                    ///< Mixed-phase UB per lane
  bool high_ub[2] = {false, false};

  explicit Worker(Sweep& s) : sw(s) {
    for (int side = 0; side < 2; ++side) {
      high[side].assign(sw.tape[side].regs.size(), 0);
      mixed[side].assign(sw.tape[side].regs.size(), {});
      for (size_t r = 0; r < sw.tape[side].regs.size(); ++r)
        if (sw.tape[side].regs[r].cls == kMixed) mixed[side][r].assign(kChunk, 0);
      ub[side].assign(kChunk, 0);
    }
  }

  /// Register r of `side` as an operand in the current phase (lanes j0.. of the batch).
  Arg arg(int side, int r, int j0) {
    const Reg& g = sw.tape[side].regs[r];
    switch (g.cls) {
      case kConst: return {&g.value, 0};
      case kHigh: return {&high[side][r], 0};
      case kLow: return {g.low.data() + j0, 1};
      default: return {mixed[side][r].data(), 1};
    }
  }

  void run_batch(uint64_t batch) {
    const uint64_t base = batch << sw.S;
    for (int side = 0; side < 2; ++side) {
      Tape& t = sw.tape[side];
      high_ub[side] = false;
      for (size_t r = 0; r < t.regs.size(); ++r) {
        const Reg& g = t.regs[r];
        if (g.param >= 0 && g.cls == kHigh)
          high[side][r] = (base >> sw.shifts[g.param]) & bits_mask(g.dt);
      }
      for (const Step& s : t.steps[kHigh]) {
        Arg a[3];
        for (int k = 0; k < s.nargs; ++k) a[k] = arg(side, s.args[k], 0);
        uint8_t u = 0;
        run_step(s, a, &high[side][s.dst], &u, 1);
        high_ub[side] |= u != 0;
      }
    }
    const int lanes = 1 << sw.S;
    const int chunk = std::min(kChunk, lanes);
    for (int j0 = 0; j0 < lanes; j0 += chunk) {
      for (int side = 0; side < 2; ++side) {
        Tape& t = sw.tape[side];
        std::fill(ub[side].begin(), ub[side].begin() + chunk, 0);
        for (size_t r = 0; r < t.regs.size(); ++r) {
          const Reg& g = t.regs[r];
          if (g.param >= 0 && g.cls == kMixed)
            for (int i = 0; i < chunk; ++i)
              mixed[side][r][i] = ((base | static_cast<uint64_t>(j0 + i)) >> sw.shifts[g.param]) & bits_mask(g.dt);
        }
        for (const Step& s : t.steps[kMixed]) {
          Arg a[3];
          for (int k = 0; k < s.nargs; ++k) a[k] = arg(side, s.args[k], j0);
          run_step(s, a, mixed[side][s.dst].data(), ub[side].data(), chunk);
        }
      }
      // Compare: the source defined at a lane means the target must be defined with equal results.
      const Tape& st = sw.tape[0];
      const Tape& tt = sw.tape[1];
      if (st.const_ub || high_ub[0]) continue;  // the source has UB on the whole chunk
      const bool tgt_all_ub = tt.const_ub || high_ub[1];
      const uint8_t* sl = st.low_ub.empty() ? nullptr : st.low_ub.data() + j0;
      const uint8_t* tl = tt.low_ub.empty() ? nullptr : tt.low_ub.data() + j0;
      int bad = -1;
      for (int i = 0; i < chunk && bad < 0; ++i)
        if (!ub[0][i] && !(sl && sl[i]) && (tgt_all_ub || ub[1][i] || (tl && tl[i]))) bad = i;
      for (size_t k = 0; k < st.results.size(); ++k) {
        const Arg x = arg(0, st.results[k], j0), y = arg(1, tt.results[k], j0);
        const int n = bad < 0 ? chunk : bad;
        const uint64_t nan_above = sw.nan_above[k], mag = sw.mag_mask[k];
        for (int i = 0; i < n; ++i) {
          const uint64_t a = x[i], b = y[i];
          if (a == b || ((a & mag) > nan_above && (b & mag) > nan_above)) continue;
          if (ub[0][i] || (sl && sl[i])) continue;  // the source has UB here
          bad = i;
          break;
        }
      }
      if (bad >= 0) {
        uint64_t c = base | static_cast<uint64_t>(j0 + bad), cur = sw.best.load();
        while (c < cur && !sw.best.compare_exchange_weak(cur, c)) {
        }
        return;
      }
    }
  }

  void run() {
    const uint64_t batches = uint64_t{1} << (sw.W - sw.S);
    for (;;) {
      const uint64_t b = sw.next_batch.fetch_add(1);
      if (b >= batches) return;
      // A batch after the first difference found is not needed: the first difference in case order is
      // reported, and every batch before it was claimed earlier and is finished by its thread.
      if (sw.best.load() != UINT64_MAX && (b << sw.S) > sw.best.load()) return;
      // The clock before every batch (2^16 cases): every 16th overran a 300 ms budget by up to 320 ms.
      if (clock::now() > sw.deadline) {
        sw.timed_out = true;
        return;
      }
      run_batch(b);
      sw.cases.fetch_add(uint64_t{1} << sw.S);
    }
  }
};

/// Computes the Const and Low phases of one tape.
void precompute(Sweep& sw, int side) {
  Tape& t = sw.tape[side];
  const int lanes = 1 << sw.S;
  for (Reg& g : t.regs)
    if (g.param >= 0 && g.cls == kLow) {
      g.low.resize(lanes);
      for (int j = 0; j < lanes; ++j) g.low[j] = (static_cast<uint64_t>(j) >> sw.shifts[g.param]) & bits_mask(g.dt);
    }
  for (const Step& s : t.steps[kConst]) {
    Arg a[3];
    for (int k = 0; k < s.nargs; ++k) a[k] = {&t.regs[s.args[k]].value, 0};
    uint8_t u = 0;
    run_step(s, a, &t.regs[s.dst].value, &u, 1);
    t.const_ub |= u != 0;
  }
  if (!t.steps[kLow].empty()) t.low_ub.assign(lanes, 0);
  for (const Step& s : t.steps[kLow]) {
    Arg a[3];
    for (int k = 0; k < s.nargs; ++k) {
      const Reg& g = t.regs[s.args[k]];
      a[k] = g.cls == kConst ? Arg{&g.value, 0} : Arg{g.low.data(), 1};
    }
    t.regs[s.dst].low.resize(lanes);
    run_step(s, a, t.regs[s.dst].low.data(), t.low_ub.data(), lanes);
  }
}

}  // namespace

std::string exhaustive_cases_text(int bits) {
  if (bits <= 16) return std::to_string(uint64_t{1} << bits) + " cases";
  return "2^" + std::to_string(bits) + " cases";
}

std::string exhaustive_scope(const Program& src, BodyId sb, const Program& tgt, BodyId tb, int max_bits) {
  int bits = 0;
  if (std::string w = input_scope(src, sb, max_bits, bits); !w.empty()) return w;
  if (std::string w = body_scope(src, sb, "the source"); !w.empty()) return w;
  if (std::string w = body_scope(tgt, tb, "the target"); !w.empty()) return w;
  return "";
}

ExhaustiveResult check_exhaustive(const Program& src, BodyId sb, const Program& tgt, BodyId tb,
                                  const ExhaustiveOptions& opts) {
  const auto start = clock::now();
  ExhaustiveResult res;
  auto done = [&](ExhaustiveResult::Kind k, std::string why) {
    res.kind = k;
    res.reason = std::move(why);
    res.ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    return res;
  };
  if (std::string w = exhaustive_scope(src, sb, tgt, tb, opts.max_bits); !w.empty())
    return done(ExhaustiveResult::Kind::NotApplicable, w);
  Sweep sw;
  sw.sp = &src, sw.tp = &tgt, sw.sb = sb, sw.tb = tb;
  sw.deadline = opts.deadline;
  const std::vector<ValueId>& params = src.body(sb).params;
  const int np = static_cast<int>(params.size());
  sw.widths.resize(np);
  sw.shifts.resize(np);
  for (int k = np - 1, sh = 0; k >= 0; --k) {
    sw.widths[k] = dtype_bits(src.type_of(params[k]).dtype);
    sw.shifts[k] = sh;
    sh += sw.widths[k];
    sw.W = sh;
  }
  sw.S = std::min(sw.W, 16);
  res.bits = sw.W;
  sw.param_cls.resize(np);
  for (int k = 0; k < np; ++k)
    sw.param_cls[k] = sw.shifts[k] >= sw.S ? kHigh : sw.shifts[k] + sw.widths[k] <= sw.S ? kLow : kMixed;
  if (std::string w = compile(src, sb, sw.param_cls, sw.tape[0]); !w.empty())
    return done(ExhaustiveResult::Kind::NotApplicable, "the source: " + w);
  if (std::string w = compile(tgt, tb, sw.param_cls, sw.tape[1]); !w.empty())
    return done(ExhaustiveResult::Kind::NotApplicable, "the target: " + w);
  if (sw.tape[0].results.size() != sw.tape[1].results.size())
    return done(ExhaustiveResult::Kind::NotApplicable, "different numbers of results");
  for (size_t k = 0; k < sw.tape[0].results.size(); ++k) {
    const DType a = sw.tape[0].regs[sw.tape[0].results[k]].dt, b = sw.tape[1].regs[sw.tape[1].results[k]].dt;
    if (a != b) return done(ExhaustiveResult::Kind::NotApplicable, "results of different dtypes");
    sw.mag_mask.push_back(is_float(a) ? bits_mask(a) & ~sign_mask(a) : 0);
    sw.nan_above.push_back(is_float(a) ? float_inf(a, false) : ~uint64_t{0});
  }
  precompute(sw, 0);
  precompute(sw, 1);
  const unsigned nthreads = std::max(1u, std::min(opts.threads, 64u));
  std::vector<std::thread> pool;
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned k = 0; k < nthreads; ++k) workers.push_back(std::make_unique<Worker>(sw));
  for (unsigned k = 1; k < nthreads; ++k) pool.emplace_back([&, k] { workers[k]->run(); });
  workers[0]->run();
  for (std::thread& th : pool) th.join();
  res.cases = sw.cases.load();
  if (sw.best.load() != UINT64_MAX) {
    const uint64_t c = sw.best.load();
    for (int k = 0; k < np; ++k) res.input_bits.push_back((c >> sw.shifts[k]) & bits_mask(src.type_of(params[k]).dtype));
    return done(ExhaustiveResult::Kind::Refuted, "");
  }
  if (sw.timed_out.load())
    return done(ExhaustiveResult::Kind::Inconclusive,
                "time budget exhausted after " + std::to_string(res.cases) + " of " + exhaustive_cases_text(sw.W));
  if (sw.tape[0].libm || sw.tape[1].libm)
    return done(ExhaustiveResult::Kind::Inconclusive,
                "no difference in " + exhaustive_cases_text(sw.W) +
                    ", but a transcendental op is computed by this host's libm, which the proof does not assume");
  return done(ExhaustiveResult::Kind::Proved, "");
}

}  // namespace ptir::verify
