// The encoder's driver: runs a body's instructions in order on symbolic tensors through the per-op
// table (built from ir/ops.def, so a missing op is a build error), and the shared index helpers.
#include <iterator>
#include <unordered_map>

#include "ir/interp.h"
#include "ir/text.h"
#include "verify/encode/ops.h"

namespace ptir::verify {
namespace enc {
namespace {

using Encoder = Results (*)(OpEnv&);
constexpr Encoder kEncoders[] = {
#define PTIR_OP(E, M, MIN, MAX, NRES, TR) &encode_##E,
#include "ir/ops.def"
#undef PTIR_OP
};
static_assert(std::size(kEncoders) == kNumOps, "every op of ir/ops.def needs an SMT encoder");

}  // namespace

SymTensor OpEnv::make(size_t k) const {
  SymTensor t{result_types[k], {}};
  t.elems.reserve(t.type.num_elements());
  return t;
}

void OpEnv::fail(std::string_view what) const {
  throw EncodeError(std::string(mnemonic(op())) + ": " + std::string(what));
}

std::vector<int64_t> strides(const std::vector<int64_t>& dims) { return strides_of(dims); }

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size(), 0);
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    if (dims[k] == 0) break;
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t f = 0;
  for (size_t k = 0; k < dims.size(); ++k) f = f * dims[k] + idx[k];
  return f;
}

Expr apply_uf(const std::string& key, std::span<const Expr> args, smt::Sort range) {
  std::vector<smt::Sort> dom;
  dom.reserve(args.size());
  for (const Expr& a : args) dom.push_back(a.sort());
  if (args.empty()) return Expr::var(key, range);
  smt::Func f(key, dom, range);
  return f(args);
}

}  // namespace enc

namespace {

bool interpreted_inst(const Program& p, InstId i, int depth);

bool interpreted_body(const Program& p, BodyId b, int depth) {
  bool ok = true;
  p.for_each_inst(b, [&](InstId i) { ok = ok && interpreted_inst(p, i, depth); });
  return ok;
}

/// Whether the encoding computes an instruction's results from its operands (so the interpreter's
/// answer on concrete operands is the encoding's answer): false for transcendental, opaque and
/// effectful (rng) ops, which SMT leaves uninterpreted, and for region ops whose regions hold one.
bool interpreted_inst(const Program& p, InstId i, int depth) {
  const OpCode op = p.op(i);
  if (has_trait(op, Transcendental) || has_trait(op, Opaque) || has_trait(op, Effect)) return false;
  if (!has_trait(op, Regions)) return true;
  if (depth >= 8) return false;  // deeply nested (or malformed, cyclic) regions: encode as usual
  for (const Attr& a : p.attrs_of(i).attrs) {
    if (a.value.kind != AttrKind::Region) continue;
    if (a.value.ints.empty() || a.value.ints[0] < 0 || static_cast<uint64_t>(a.value.ints[0]) >= p.num_bodies())
      return false;
    if (!interpreted_body(p, static_cast<BodyId>(a.value.ints[0]), depth + 1)) return false;
  }
  return true;
}

}  // namespace

/// Under contract: the fused alternatives of instruction i if it is a contract site (docs/semantics.md
/// "Fast-math flags"): recorded (Contract::Default, function bodies) or chosen by fresh Bools
/// (Contract::Any). `operand` gives the symbolic value of a ValueId (the mul's operands).
template <typename Operand>
void apply_contract(const Program& p, InstId i, std::vector<SymTensor>& res, const EncodeOptions& opts,
                    Operand&& operand) {
  const std::vector<uint32_t> ks = contract_operands(p, i);
  if (ks.empty() || res.size() != 1) return;
  const bool in_region = p.body(p.inst(i).body).is_region;
  if (opts.contract == EncodeOptions::Contract::Default && (!opts.contract_alts || in_region)) return;
  if (opts.contract == EncodeOptions::Contract::Any && !opts.contract_vars)
    throw EncodeError("contract: no place for the fusion variables");
  const bool sub = p.op(i) == OpCode::Sub;
  SymTensor& r = res[0];
  std::vector<std::vector<smt::Expr>> fused;
  for (uint32_t k : ks) {
    const InstId mul = p.def_inst(p.operand(i, k));
    const SymTensor& x = operand(p.operand(mul, 0));
    const SymTensor& y = operand(p.operand(mul, 1));
    const SymTensor& z = operand(p.operand(i, 1 - k));
    std::vector<smt::Expr> f;
    f.reserve(r.elems.size());
    for (size_t e = 0; e < r.elems.size(); ++e) {
      const smt::Expr& xe = x.elems[e];
      if (!sub) f.push_back(xe.fma(y.elems[e], z.elems[e]));
      else if (k == 0) f.push_back(xe.fma(y.elems[e], -z.elems[e]));
      else f.push_back((-xe).fma(y.elems[e], z.elems[e]));
    }
    fused.push_back(std::move(f));
  }
  if (opts.contract == EncodeOptions::Contract::Default) {
    for (size_t a = 0; a < ks.size(); ++a) opts.contract_alts->push_back({i, ks[a], std::move(fused[a])});
    return;
  }
  // The first true choice wins: ite(c0, fused0, ite(c1, fused1, unfused)).
  std::vector<smt::Expr> vars;
  for (uint32_t k : ks) {
    const std::string name = opts.contract_prefix + "!" + std::to_string(opts.contract_vars->size()) + "!i" +
                             std::to_string(i) + "k" + std::to_string(k);
    vars.push_back(smt::Expr::var(name, smt::Sort::boolean()));
    opts.contract_vars->push_back({i, k, in_region, vars.back()});
  }
  for (size_t e = 0; e < r.elems.size(); ++e) {
    smt::Expr v = r.elems[e];
    for (size_t a = ks.size(); a-- > 0;) v = smt::Expr::ite(vars[a], fused[a][e], v);
    r.elems[e] = v;
  }
}

BodyEncoding encode_body(const Program& p, BodyId b, std::span<const SymTensor> inputs,
                         const EncodeOptions& caller_opts) {
  // The flags in force, passed down to the regions this body runs.
  EncodeOptions opts = caller_opts;
  if (!opts.fastmath) opts.fastmath = p.fastmath_of(b);
  const FastMath fm = *opts.fastmath;
  const bool free_signs = fm.has(FastMathFlag::NSZ) &&
                          (opts.zero_sign == EncodeOptions::ZeroSign::Any || opts.zero_choices != nullptr);
  const Body& body = p.body(b);
  if (inputs.size() != body.params.size()) throw EncodeError("@" + body.name + ": wrong number of inputs");
  std::unordered_map<ValueId, SymTensor> vals;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].type != p.type_of(body.params[k])) throw EncodeError("@" + body.name + ": input type mismatch");
    vals[body.params[k]] = inputs[k];
  }
  auto operand = [&](ValueId v) -> const SymTensor& {
    auto it = vals.find(v);
    if (it != vals.end()) return it->second;
    if (p.value(v).kind == ValueKind::Literal)
      return vals.emplace(v, constant_tensor(p.literal(p.value(v).def))).first->second;
    throw EncodeError("@" + body.name + ": a value is used before it is defined");
  };
  // Concrete values: literals and the results of folded instructions (never parameters, so the
  // agreement test, which passes numerals as inputs, still exercises the encoders).
  std::unordered_map<ValueId, Tensor> known;
  auto concrete = [&](ValueId v) -> const Tensor* {
    if (auto it = known.find(v); it != known.end()) return &it->second;
    if (p.value(v).kind == ValueKind::Literal) return &p.literal(p.value(v).def);
    return nullptr;
  };
  // Evaluates instruction i with the interpreter when every operand is concrete; false: encode it.
  auto fold = [&](InstId i) -> bool {
    if (!opts.fold_concrete) return false;
    std::vector<Tensor> operands;
    operands.reserve(p.num_operands(i));
    for (uint32_t k = 0; k < p.num_operands(i); ++k) {
      const Tensor* t = concrete(p.operand(i, k));
      if (!t || t->size() > opts.fold_max_elements) return false;
    }
    for (uint32_t r = 0; r < p.num_results(i); ++r)
      if (p.type_of(p.result(i, r)).num_elements() > opts.fold_max_elements) return false;
    if (!interpreted_inst(p, i, 0)) return false;
    // A governed op whose zero results may take either sign is not one concrete value (nor, when its
    // zeros are recorded as choice points, a value without a term).
    if (free_signs && (fastmath_governs(p.op(i)) || has_trait(p.op(i), Regions))) return false;
    // A contract site has alternatives the numerals would lose; a region op may hold sites.
    if (fm.has(FastMathFlag::Contract) && (!contract_operands(p, i).empty() || has_trait(p.op(i), Regions)))
      return false;
    for (uint32_t k = 0; k < p.num_operands(i); ++k) operands.push_back(*concrete(p.operand(i, k)));
    InterpOptions io;
    io.max_while_iterations = opts.fold_max_while_iterations;
    io.deadline = opts.fold_deadline;
    io.max_bytes = opts.fold_max_bytes;
    io.fastmath = fm;
    RunResult run = eval_inst(p, i, operands, io);
    if (run.status != RunStatus::Ok || run.results.size() != p.num_results(i)) return false;
    for (uint32_t r = 0; r < p.num_results(i); ++r)
      if (run.results[r].type != p.type_of(p.result(i, r))) return false;
    for (uint32_t r = 0; r < p.num_results(i); ++r) {
      vals[p.result(i, r)] = constant_tensor(run.results[r]);
      known[p.result(i, r)] = std::move(run.results[r]);
    }
    return true;
  };
  BodyEncoding out{{}, smt::Expr::boolean(false), smt::Expr::boolean(false)};
  bool returned = false;
  p.for_each_inst(b, [&](InstId i) {
    if (returned) return;
    if (opts.stop && opts.stop->load(std::memory_order_relaxed)) throw EncodeStopped();
    if (p.op(i) != OpCode::Return && fold(i)) return;  // Ok in the interpreter: no nnan/ninf UB, no free sign
    std::vector<SymTensor> args;
    for (uint32_t k = 0; k < p.num_operands(i); ++k) args.push_back(operand(p.operand(i, k)));
    if (p.op(i) == OpCode::Return) {
      out.results = std::move(args);
      returned = true;
      return;
    }
    enc::OpEnv env{p, i, p.attrs_of(i), args, {}, opts, smt::Expr::boolean(false), smt::Expr::boolean(false)};
    for (uint32_t r = 0; r < p.num_results(i); ++r) env.result_types.push_back(p.type_of(p.result(i, r)));
    // The double-rounding lemma (docs/verification.md, "Exhaustive checks"): for D = f16 or bf16,
    // cast(op(cast(a) : f32, cast(b) : f32)) : D is op(a, b) in D for op = add sub mul div sqrt
    // reciprocal (f32's 24 bits are >= 2p + 2: the second rounding is innocuous) and maximum minimum
    // neg abs (no rounding at all), on every input; the exhaustive backend checks these facts in the
    // interpreter's semantics (tests/verify/exhaustive_test.cpp: the unary ones; the binary ones in a
    // tool run, docs/verification.md). Encoding the narrow op directly spares Z3 the double rounding
    // it cannot decide; the wide terms stay in the encoding.
    if (p.op(i) == OpCode::Cast && fm.none()) {
      const DType d = env.dtype();
      const ValueId x = p.operand(i, 0);
      const InstId w = p.def_inst(x);
      std::vector<ValueId> narrow;
      bool ok = (d == DType::F16 || d == DType::BF16) && p.type_of(x).dtype == DType::F32 && w != kNone &&
                (p.op(w) == OpCode::Add || p.op(w) == OpCode::Sub || p.op(w) == OpCode::Mul ||
                 p.op(w) == OpCode::Div || p.op(w) == OpCode::Sqrt || p.op(w) == OpCode::Reciprocal ||
                 p.op(w) == OpCode::Maximum || p.op(w) == OpCode::Minimum || p.op(w) == OpCode::Neg ||
                 p.op(w) == OpCode::Abs) &&
                !known.count(x);
      for (uint32_t k = 0; ok && k < p.num_operands(w); ++k) {
        const InstId c = p.def_inst(p.operand(w, k));
        ok = c != kNone && p.op(c) == OpCode::Cast && p.type_of(p.operand(c, 0)).dtype == d &&
             p.type_of(p.operand(c, 0)).dims == p.type_of(x).dims;
        if (ok) narrow.push_back(p.operand(c, 0));
      }
      if (ok) {
        SymTensor r = env.make();
        const SymTensor& a = operand(narrow[0]);
        const SymTensor* b = narrow.size() > 1 ? &operand(narrow[1]) : nullptr;
        for (size_t e = 0; e < a.elems.size(); ++e) {
          switch (p.op(w)) {
            case OpCode::Add: r.elems.push_back(sem::add(a.elems[e], b->elems[e], d)); break;
            case OpCode::Sub: r.elems.push_back(sem::sub(a.elems[e], b->elems[e], d)); break;
            case OpCode::Mul: r.elems.push_back(sem::mul(a.elems[e], b->elems[e], d)); break;
            case OpCode::Div: r.elems.push_back(sem::div(a.elems[e], b->elems[e], d).v); break;
            case OpCode::Maximum: r.elems.push_back(sem::maximum(a.elems[e], b->elems[e], d)); break;
            case OpCode::Minimum: r.elems.push_back(sem::minimum(a.elems[e], b->elems[e], d)); break;
            case OpCode::Neg: r.elems.push_back(sem::neg(a.elems[e], d)); break;
            case OpCode::Abs: r.elems.push_back(sem::abs(a.elems[e], d)); break;
            case OpCode::Reciprocal: r.elems.push_back(sem::integer(d, 1) / a.elems[e]); break;
            default: r.elems.push_back(a.elems[e].sqrt()); break;
          }
        }
        vals[p.result(i)] = std::move(r);
        return;
      }
    }
    enc::Results res = enc::kEncoders[static_cast<int>(p.op(i))](env);
    if (res.size() != p.num_results(i)) env.fail("wrong number of results");
    if (fm.has(FastMathFlag::Contract)) apply_contract(p, i, res, opts, operand);
    apply_fastmath(p, i, fm, args, res, env.ub, opts);
    for (uint32_t r = 0; r < p.num_results(i); ++r) {
      if (res[r].type != env.result_types[r] ||
          static_cast<int64_t>(res[r].elems.size()) != res[r].type.num_elements())
        env.fail("result " + std::to_string(r) + " does not have the result type");
      vals[p.result(i, r)] = std::move(res[r]);
    }
    out.ub = out.ub || env.ub;
    out.unfinished = out.unfinished || env.unfinished;
  });
  if (!returned) throw EncodeError("@" + body.name + " has no return");
  return out;
}

SymInputs symbolic_inputs(const Program& p, BodyId b, const std::atomic<bool>* stop) {
  SymInputs in;
  const Body& body = p.body(b);
  for (size_t k = 0; k < body.params.size(); ++k) {
    const TensorType& t = p.type_of(body.params[k]);
    SymTensor s{t, {}};
    std::vector<smt::Expr> bits;
    const std::string base = "in" + std::to_string(k) + "%" + std::string(p.name(body.params[k]));
    for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
      if ((i & 1023) == 1023 && stop && stop->load(std::memory_order_relaxed)) throw EncodeStopped();
      const std::string name = base + "[" + std::to_string(i) + "]";
      if (is_float(t.dtype)) {
        smt::FPFormat f = sem::fp_format(t.dtype);
        smt::Expr v = smt::Expr::var(name, smt::Sort::bv(f.ebits + f.sbits));
        s.elems.push_back(smt::Expr::fromIEEE(v, f));
        bits.push_back(v);
      } else {
        smt::Expr v = smt::Expr::var(name, sem::sort_of(t.dtype));
        s.elems.push_back(v);
        bits.push_back(v);
      }
    }
    in.tensors.push_back(std::move(s));
    in.bits.push_back(std::move(bits));
  }
  return in;
}

SymTensor constant_tensor(const Tensor& t) {
  SymTensor s{t.type, {}};
  if (t.splat) {  // one term, shared by every element
    s.elems.assign(t.size(), sem::constant(t.dtype(), t.bits(0)));
    return s;
  }
  s.elems.reserve(t.size());
  for (int64_t i = 0, n = t.size(); i < n; ++i) s.elems.push_back(sem::constant(t.dtype(), t.bits(i)));
  return s;
}

std::optional<Tensor> read_numerals(const SymTensor& s) {
  Tensor t(s.type);
  for (int64_t i = 0, n = t.size(); i < n; ++i) {
    auto v = s.elems[i].simplify().numeral();
    if (!v) return std::nullopt;
    t.set_bits(i, *v & bits_mask(t.dtype()));
  }
  return t;
}

}  // namespace ptir::verify
