/// Encoding = interpreter, checked: for every op of ir/ops.def and every dtype it takes, on random and
/// edge inputs (RapidCheck), the SMT encoding evaluated on concrete values gives the interpreter's bits
/// (NaN payloads aside), and has undefined behaviour exactly where the interpreter reports it.
/// exp/log/tanh/erf, opaque and rng ops are uninterpreted in SMT: for them the test checks the encoding's
/// shape (each element is the function applied to its own operands) instead of values.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/encode/encode.h"
#include "verify/smt/expr.h"
#include "verify/smt/solver.h"

namespace ptir::verify {
namespace {

const std::vector<std::string> kFloats = {"bf16", "f16", "f32", "f64"};
const std::vector<std::string> kInts = {"si8", "ui8", "si16", "ui16", "si32", "ui32", "si64", "ui64"};
std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
const std::vector<std::string> kNumbers = cat(kFloats, kInts);
const std::vector<std::string> kAll = cat(kNumbers, {"i1"});

/// How results are compared.
enum class Check { Values, Uninterpreted };

/// One op instance: a program whose entry runs the op, with T (and U) standing for dtypes.
struct Case {
  std::string name;
  std::string text;
  std::vector<std::string> ts;
  std::vector<std::string> us = {""};
  Check check = Check::Values;
};

std::string subst(std::string s, const std::string& t, const std::string& u) {
  for (size_t p; (p = s.find("$T")) != std::string::npos;) s.replace(p, 2, t);
  for (size_t p; (p = s.find("$U")) != std::string::npos;) s.replace(p, 2, u);
  return s;
}

/// A body of one op: `func @f(PARAMS) -> RESULT { %r = OP -> RESULT  return %r }`.
std::string fn(const std::string& params, const std::string& op, const std::string& result) {
  return "func @f(" + params + ") -> " + result + " {\n  %r = " + op + " -> " + result + "\n  return %r\n}\n";
}

std::vector<Case> elementwise_cases() {
  std::vector<Case> c;
  for (const char* op : {"neg", "abs"})
    c.push_back({op, fn("%x: tensor<$T, 6>", std::string(op) + " %x", "tensor<$T, 6>"), kNumbers});
  for (const char* op : {"sqrt", "reciprocal", "rsqrt"})  // rsqrt: exact in SMT (1/sqrt, docs/semantics.md)
    c.push_back({op, fn("%x: tensor<$T, 6>", std::string(op) + " %x", "tensor<$T, 6>"), kFloats});
  for (const char* op : {"exp", "log", "tanh", "erf"})
    c.push_back({op, fn("%x: tensor<$T, 4>", std::string(op) + " %x", "tensor<$T, 4>"), kFloats, {""},
                 Check::Uninterpreted});
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"})
    c.push_back({op, fn("%x: tensor<$T, 6>, %y: tensor<$T, 6>", std::string(op) + " %x, %y", "tensor<$T, 6>"),
                 kNumbers});
  for (const char* dir : {"lt", "le", "eq", "ge", "gt", "ne"})
    c.push_back({std::string("compare_") + dir,
                 fn("%x: tensor<$T, 6>, %y: tensor<$T, 6>", std::string("compare %x, %y dir[") + dir + "]",
                    "tensor<i1, 6>"),
                 kAll});
  c.push_back({"select", fn("%p: tensor<i1, 6>, %x: tensor<$T, 6>, %y: tensor<$T, 6>", "select %p, %x, %y",
                            "tensor<$T, 6>"),
               kAll});
  c.push_back({"stop_gradient", fn("%x: tensor<$T, 3>", "stop_gradient %x", "tensor<$T, 3>"), kAll});
  c.push_back({"cast", fn("%x: tensor<$T, 6>", "cast %x", "tensor<$U, 6>"), kAll, kAll});
  return c;
}

std::vector<Case> shape_cases() {
  std::vector<Case> c;
  c.push_back({"constant", fn("", "constant dense<[[1, 0, 3], [2, 1, 0]]> : tensor<$T, 2x3>", "tensor<$T, 2x3>"),
               kNumbers});
  c.push_back({"reshape", fn("%x: tensor<$T, 2x3>", "reshape %x", "tensor<$T, 3x1x2>"), kAll});
  c.push_back({"transpose", fn("%x: tensor<$T, 2x3x2>", "transpose %x perm[2, 0, 1]", "tensor<$T, 2x2x3>"), kAll});
  c.push_back({"broadcast_to", fn("%x: tensor<$T, 3x1>", "broadcast_to %x", "tensor<$T, 2x3x2>"), kAll});
  c.push_back({"slice", fn("%x: tensor<$T, 4x3>", "slice %x starts[1, 1]", "tensor<$T, 2x2>"), kAll});
  c.push_back({"concat", fn("%x: tensor<$T, 2x1>, %y: tensor<$T, 2x2>", "concat %x, %y axis[1]", "tensor<$T, 2x3>"),
               kAll});
  c.push_back({"pad", fn("%x: tensor<$T, 3x2>", "pad %x low[1, -1] high[-1, 2] interior[1, 0] value[7]",
                         "tensor<$T, 5x3>"),
               kNumbers});
  c.push_back({"pad_default", fn("%x: tensor<$T, 2>", "pad %x low[2] high[1]", "tensor<$T, 5>"), kAll});
  c.push_back({"tile", fn("%x: tensor<$T, 2x1>", "tile %x repeats[2, 3]", "tensor<$T, 4x3>"), kAll});
  c.push_back({"iota", fn("", "iota axis[1]", "tensor<$T, 2x3>"), kNumbers});
  return c;
}

std::vector<Case> reduce_cases() {
  std::vector<Case> c;
  for (const char* op : {"reduce_sum", "reduce_max", "reduce_min"}) {
    const std::string o = op;
    c.push_back({o + "_axis1", fn("%x: tensor<$T, 2x3>", o + " %x axes[1]", "tensor<$T, 2>"), kNumbers});
    c.push_back({o + "_axes20", fn("%x: tensor<$T, 2x2x3>", o + " %x axes[2, 0] keepdims[true]", "tensor<$T, 1x2x1>"),
                 kNumbers});
    c.push_back({o + "_empty", fn("%x: tensor<$T, 2x0>", o + " %x axes[1]", "tensor<$T, 2>"), kNumbers});
    c.push_back({o + "_accum_f64", fn("%x: tensor<$T, 5>", o + " %x axes[0] accum[f64]", "tensor<$T>"), kFloats});
    c.push_back({o + "_accum_f16", fn("%x: tensor<$T, 4>", o + " %x axes[0] accum[f16]", "tensor<$T>"), kFloats});
    c.push_back({o + "_accum_si64", fn("%x: tensor<$T, 4>", o + " %x axes[0] accum[si64]", "tensor<$T>"), kInts});
  }
  // Chains of maximum/minimum: the encoder builds them in the lattice normal form (verify/encode/scalar.cpp),
  // regrouped, deduplicated and folded in the element dtype where the accumulation widens exactly.
  c.push_back({"max_min_chain",
               "func @f(%x: tensor<$T, 5>, %y: tensor<$T, 5>) -> tensor<$T, 5> {\n"
               "  %a = maximum %x, %y -> tensor<$T, 5>\n  %b = maximum %a, %y -> tensor<$T, 5>\n"
               "  %c = maximum %x, %b -> tensor<$T, 5>\n  %d = minimum %c, %x -> tensor<$T, 5>\n"
               "  %e = minimum %d, %a -> tensor<$T, 5>\n  %r = maximum %e, %c -> tensor<$T, 5>\n  return %r\n}\n",
               kAll});
  for (const char* op : {"reduce_max", "reduce_min"}) {
    const std::string o = op, m = o == "reduce_max" ? "maximum" : "minimum";
    c.push_back({o + "_chain",
                 "func @f(%x: tensor<$T, 3x2x3>, %y: tensor<$T, 2>) -> tensor<$T, 2> {\n  %i = " + o +
                     " %x axes[0] -> tensor<$T, 2x3>\n  %j = " + o + " %i axes[1] -> tensor<$T, 2>\n  %k = " + m +
                     " %j, %y -> tensor<$T, 2>\n  %l = broadcast_to %k -> tensor<$T, 3x2>\n  %r = " + o +
                     " %l axes[0] -> tensor<$T, 2>\n  return %r\n}\n",
                 kNumbers});
  }
  c.push_back({"argmax", fn("%x: tensor<$T, 2x4>", "argmax %x axis[1]", "tensor<$U, 2>"), kNumbers,
               {"si32", "ui8", "si64"}});
  c.push_back({"argmax_keep", fn("%x: tensor<$T, 3x2>", "argmax %x axis[0] keepdims[true]", "tensor<si32, 1x2>"),
               kNumbers});
  c.push_back({"segment_sum", fn("%x: tensor<$T, 5x2>, %s: tensor<$U, 5>", "segment_reduce %x, %s kind[sum] num_segments[3]",
                                 "tensor<$T, 3x2>"),
               kNumbers, {"si32", "ui8"}});
  c.push_back({"segment_max", fn("%x: tensor<$T, 4>, %s: tensor<si64, 4>", "segment_reduce %x, %s kind[max] num_segments[3]",
                                 "tensor<$T, 3>"),
               kNumbers});
  return c;
}

std::vector<Case> dot_cases() {
  std::vector<Case> c;
  c.push_back({"matmul", fn("%a: tensor<$T, 2x3>, %b: tensor<$T, 3x2>",
                            "dot_general %a, %b contract_lhs[1] contract_rhs[0]", "tensor<$T, 2x2>"),
               kNumbers});
  c.push_back({"batched", fn("%a: tensor<$T, 2x2x3>, %b: tensor<$T, 2x3x2>",
                             "dot_general %a, %b batch_lhs[0] batch_rhs[0] contract_lhs[2] contract_rhs[1]",
                             "tensor<$T, 2x2x2>"),
               kNumbers});
  c.push_back({"two_contracting", fn("%a: tensor<$T, 2x3x2>, %b: tensor<$T, 2x2x3>",
                                     "dot_general %a, %b contract_lhs[2, 1] contract_rhs[1, 2]", "tensor<$T, 2x2>"),
               kNumbers});
  c.push_back({"accum", fn("%a: tensor<$T, 1x4>, %b: tensor<$T, 4x1>",
                           "dot_general %a, %b contract_lhs[1] contract_rhs[0] accum[f64]", "tensor<$T, 1x1>"),
               kFloats});
  c.push_back({"empty", fn("%a: tensor<$T, 2x0>, %b: tensor<$T, 0x2>",
                           "dot_general %a, %b contract_lhs[1] contract_rhs[0]", "tensor<$T, 2x2>"),
               kNumbers});
  return c;
}

std::vector<Case> index_cases() {
  std::vector<Case> c;
  c.push_back({"take", fn("%x: tensor<$T, 3x2>, %i: tensor<$U, 2x2>", "take %x, %i", "tensor<$T, 2x2x2>"),
               {"f32", "si8", "i1"}, kInts});
  c.push_back({"take_dtypes", fn("%x: tensor<$T, 3>, %i: tensor<si32, 2>", "take %x, %i", "tensor<$T, 2>"), kAll});
  c.push_back({"gather", fn("%x: tensor<$T, 3x3>, %i: tensor<$U, 2x3>", "gather %x, %i axis[0]", "tensor<$T, 2x3>"),
               kAll, {"si32", "ui8", "si64"}});
  for (const char* red : {"add", "max", "min", "replace"})
    c.push_back({std::string("scatter_reduce_") + red,
                 fn("%x: tensor<$T, 3x2>, %i: tensor<si32, 4x2>, %s: tensor<$T, 4x2>",
                    std::string("scatter_reduce %x, %i, %s axis[0] reduce[") + red + "]", "tensor<$T, 3x2>"),
                 kNumbers});
  c.push_back({"scatter_add_rows", fn("%x: tensor<$T, 4x3>, %i: tensor<$U, 2x1>, %u: tensor<$T, 2x3>",
                                      "scatter_add %x, %i, %u update_window_dims[1] inserted_window_dims[0] "
                                      "scatter_dims_to_operand_dims[0] index_vector_dim[1]",
                                      "tensor<$T, 4x3>"),
               kNumbers, {"si32", "ui8"}});
  c.push_back({"scatter_add_window", fn("%x: tensor<$T, 4x4>, %i: tensor<si64, 3x2>, %u: tensor<$T, 3x2x2>",
                                        "scatter_add %x, %i, %u update_window_dims[1, 2] inserted_window_dims[] "
                                        "scatter_dims_to_operand_dims[0, 1] index_vector_dim[1]",
                                        "tensor<$T, 4x4>"),
               {"f32", "si8"}});
  c.push_back({"scatter_add_scalar_index", fn("%x: tensor<$T, 5>, %i: tensor<si32, 3>, %u: tensor<$T, 3>",
                                              "scatter_add %x, %i, %u update_window_dims[] inserted_window_dims[0] "
                                              "scatter_dims_to_operand_dims[0] index_vector_dim[1]",
                                              "tensor<$T, 5>"),
               {"f64", "ui8"}});
  c.push_back({"dynamic_slice", fn("%x: tensor<$T, 4x3>, %s: tensor<$U, 2>", "dynamic_slice %x, %s", "tensor<$T, 2x2>"),
               kAll, {"si32", "si64"}});
  c.push_back({"dynamic_update_slice",
               fn("%x: tensor<$T, 4x3>, %u: tensor<$T, 2x2>, %s: tensor<$U, 2>", "dynamic_update_slice %x, %u, %s",
                  "tensor<$T, 4x3>"),
               kAll, {"si32", "si64"}});
  return c;
}

std::vector<Case> window_cases() {
  std::vector<Case> c;
  c.push_back({"extract_patches", fn("%x: tensor<$T, 4x3>", "extract_patches %x window[2, 2] strides[2, 1] "
                                                            "dilation[1, 2] pad_low[1, 0] pad_high[0, 1] value[5]",
                                     "tensor<$T, 2x2x4>"),
               kNumbers});
  for (const char* kind : {"sum", "max", "min"})
    c.push_back({std::string("reduce_window_") + kind,
                 fn("%x: tensor<$T, 3x4>",
                    std::string("reduce_window %x kind[") + kind +
                        "] window[2, 2] strides[1, 2] pad_low[1, 0] pad_high[0, 1] base_dilation[1, 2] "
                        "window_dilation[2, 1]",
                    "tensor<$T, 2x4>"),
                 kNumbers});
  auto top_k = [](const std::string& x, const std::string& attrs, const std::string& results) {
    return "func @f(%x: " + x + ") -> " + results + " {\n  %v, %i = top_k %x " + attrs + " -> " + results +
           "\n  return %v, %i\n}\n";
  };
  c.push_back({"top_k", top_k("tensor<$T, 2x5>", "k[3]", "(tensor<$T, 2x3>, tensor<$U, 2x3>)"), kNumbers,
               {"si32", "ui8"}});
  c.push_back({"top_k_smallest", top_k("tensor<$T, 4x2>", "k[2] axis[0] largest[false]",
                                       "(tensor<$T, 2x2>, tensor<si64, 2x2>)"),
               kNumbers});
  return c;
}

std::vector<Case> control_cases() {
  std::vector<Case> c;
  c.push_back({"cond",
               "region ^t(%a: tensor<$T, 2>) -> tensor<$T, 2> {\n  %r = div %a, %a -> tensor<$T, 2>\n  return %r\n}\n"
               "region ^e(%a: tensor<$T, 2>) -> tensor<$T, 2> {\n  %r = neg %a -> tensor<$T, 2>\n  return %r\n}\n" +
                   fn("%p: tensor<i1>, %x: tensor<$T, 2>", "cond %p, %x then[^t] else[^e]", "tensor<$T, 2>"),
               kNumbers});
  c.push_back({"while",
               "region ^c(%i: tensor<ui8>, %n: tensor<ui8>, %a: tensor<$T, 2>) -> tensor<i1> {\n"
               "  %r = compare %i, %n dir[lt] -> tensor<i1>\n  return %r\n}\n"
               "region ^b(%i: tensor<ui8>, %n: tensor<ui8>, %a: tensor<$T, 2>) -> (tensor<ui8>, tensor<ui8>, tensor<$T, 2>) {\n"
               "  %j = add %i, dense<1> : tensor<ui8> -> tensor<ui8>\n  %s = add %a, %a -> tensor<$T, 2>\n"
               "  %d = div %s, %a -> tensor<$T, 2>\n  return %j, %n, %d\n}\n"
               "func @f(%n: tensor<ui8>, %x: tensor<$T, 2>) -> (tensor<ui8>, tensor<ui8>, tensor<$T, 2>) {\n"
               "  %i, %m, %r = while dense<0> : tensor<ui8>, %n, %x cond[^c] body[^b] -> (tensor<ui8>, tensor<ui8>, tensor<$T, 2>)\n"
               "  return %i, %m, %r\n}\n",
               kNumbers});
  c.push_back({"scan",
               "region ^b(%c: tensor<$T>, %x: tensor<$T, 2>) -> (tensor<$T>, tensor<$T, 2>) {\n"
               "  %s = reduce_max %x axes[0] -> tensor<$T>\n  %m = maximum %c, %s -> tensor<$T>\n"
               "  %y = sub %x, %x -> tensor<$T, 2>\n  return %m, %y\n}\n"
               "func @f(%c: tensor<$T>, %xs: tensor<$T, 3x2>) -> (tensor<$T>, tensor<$T, 3x2>) {\n"
               "  %m, %ys = scan %c, %xs body[^b] carries[1] -> (tensor<$T>, tensor<$T, 3x2>)\n  return %m, %ys\n}\n",
               kNumbers});
  c.push_back({"rng_uniform", fn("", "rng_uniform seed[5]", "tensor<$T, 3>"), kFloats, {""}, Check::Uninterpreted});
  c.push_back({"rng_normal", fn("", "rng_normal seed[9]", "tensor<$T, 2>"), kFloats, {""}, Check::Uninterpreted});
  c.push_back({"custom_call", fn("%x: tensor<$T, 2>", "custom_call %x target[\"ns.f.v1\"]", "tensor<$T, 3>"), kNumbers,
               {""}, Check::Uninterpreted});
  for (const char* op : {"quantize", "dequantize", "requantize"})
    c.push_back({op, fn("%x: tensor<$T, 2>, %s: tensor<f32>, %z: tensor<si32>", std::string(op) + " %x, %s, %z",
                        "tensor<$T, 2>"),
                 {"si8", "f32"}, {""}, Check::Uninterpreted});
  return c;
}

/// Random inputs: the interpreter's edge-biased generators, raw bit patterns from RapidCheck, or
/// elements drawn from a pool of three values (so ties, x == y and -0/+0 pairs are common).
std::vector<Tensor> gen_inputs(const Program& p) {
  const int mode = *rc::gen::resize(100, rc::gen::inRange(0, 4));
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const double bias = *rc::gen::element(0.0, 0.25, 0.5, 0.9, 1.0);
  if (mode == 0) return random_inputs_avoiding_ub(p, p.entry(), seed, bias);
  if (mode == 1) return random_inputs(p, p.entry(), seed, bias);
  std::vector<Tensor> in = random_inputs(p, p.entry(), seed, bias);
  for (Tensor& t : in) {
    const Tensor pool = random_tensor(TensorType{t.dtype(), {3}}, seed ^ 0x5bd1e995, 0.8);
    for (int64_t i = 0; i < t.size(); ++i)
      t.set_bits(i, mode == 2 ? *rc::gen::arbitrary<uint64_t>() & bits_mask(t.dtype())
                              : pool.bits(*rc::gen::resize(100, rc::gen::inRange<int64_t>(0, 3))));
  }
  return in;
}

std::string show(const std::vector<Tensor>& in) {
  std::string s;
  for (const Tensor& t : in) s += print_literal(t) + "\n";
  return s;
}

/// Evaluates the encoding on concrete inputs and compares with the interpreter.
void agrees(const Program& p, const std::vector<Tensor>& in, Check check) {
  const BodyId b = p.entry();
  InterpOptions io;
  io.max_while_iterations = 1000;
  const RunResult run = run_body(p, b, in, io);
  std::vector<SymTensor> sym;
  for (const Tensor& t : in) sym.push_back(constant_tensor(t));
  const BodyEncoding enc = encode_body(p, b, sym, EncodeOptions{.while_unroll = 300, .fold_concrete = false});
  RC_LOG() << show(in);
  const smt::Expr unfinished = enc.unfinished.simplify();
  RC_ASSERT(unfinished.isFalse());
  if (check == Check::Uninterpreted) {
    RC_ASSERT(enc.ub.simplify().isFalse());
    RC_ASSERT(run.status != RunStatus::UB);
    for (const SymTensor& r : enc.results)
      for (const smt::Expr& e : r.elems) RC_ASSERT(!e.simplify().numeral().has_value());
    return;
  }
  const smt::Expr ub = enc.ub.simplify();
  RC_LOG() << "interpreter: " << static_cast<int>(run.status) << " " << run.message << "\nsmt ub: " << ub.str();
  RC_ASSERT(run.status == RunStatus::Ok || run.status == RunStatus::UB);
  RC_ASSERT(ub.isTrue() == (run.status == RunStatus::UB));
  RC_ASSERT(ub.isFalse() == (run.status == RunStatus::Ok));
  if (run.status != RunStatus::Ok) return;
  RC_ASSERT(enc.results.size() == run.results.size());
  for (size_t k = 0; k < run.results.size(); ++k) {
    auto got = read_numerals(enc.results[k]);
    RC_ASSERT(got.has_value());
    RC_LOG() << "result " << k << ": interpreter " << print_literal(run.results[k]) << "\n          smt "
             << print_literal(*got);
    RC_ASSERT(results_equal(*got, run.results[k]));
  }
}

/// The same program with its inputs written as constants: `func @f() -> R { %x = constant ... }`.
std::string with_constant_inputs(const std::string& text, const Program& p, const std::vector<Tensor>& in) {
  const size_t f = text.find("func @f(");
  const size_t arrow = text.find(") -> ", f);
  const size_t open = text.find(" {\n", arrow);
  std::string out = text.substr(0, f) + "func @f() -> " + text.substr(arrow + 5, open - arrow - 5) + " {\n";
  const Body& body = p.body(p.entry());
  for (size_t k = 0; k < in.size(); ++k)
    out += "  %" + std::string(p.name(body.params[k])) + " = constant " + print_literal(in[k]) + " -> " +
           to_string(in[k].type) + "\n";
  return out + text.substr(open + 3);
}

/// Concrete folding (EncodeOptions::fold_concrete) on the same op with its inputs as literals: every
/// instruction then has concrete operands. Interpreted ops fold to the interpreter's numerals, and UB
/// stays UB (an instruction with UB is not folded but encoded, so its condition is there); uninterpreted
/// ops are not folded: their terms are the unfolded encoding's, so both sides of a check keep treating
/// them alike.
void folding_agrees(const std::string& text, const Program& p, const std::vector<Tensor>& in, Check check) {
  const std::string lit = with_constant_inputs(text, p, in);
  auto parsed = parse_program(lit, "<folded>");
  RC_ASSERT(parsed.ok());
  const Program& q = *parsed.program;
  RC_ASSERT(verify_program(q).empty());
  InterpOptions io;
  io.max_while_iterations = 1000;
  const RunResult run = run_body(q, q.entry(), {}, io);
  const BodyEncoding folded = encode_body(q, q.entry(), {}, EncodeOptions{.while_unroll = 300});
  if (check == Check::Uninterpreted) {
    const BodyEncoding plain =
        encode_body(q, q.entry(), {}, EncodeOptions{.while_unroll = 300, .fold_concrete = false});
    RC_ASSERT(folded.results.size() == plain.results.size());
    for (size_t k = 0; k < plain.results.size(); ++k)
      for (size_t i = 0; i < plain.results[k].elems.size(); ++i)
        RC_ASSERT(folded.results[k].elems[i].same(plain.results[k].elems[i]));
    return;
  }
  RC_ASSERT(folded.unfinished.simplify().isFalse());
  const smt::Expr ub = folded.ub.simplify();
  RC_ASSERT(run.status == RunStatus::Ok || run.status == RunStatus::UB);
  RC_ASSERT(ub.isTrue() == (run.status == RunStatus::UB));
  RC_ASSERT(ub.isFalse() == (run.status == RunStatus::Ok));
  if (run.status != RunStatus::Ok) return;
  for (size_t k = 0; k < run.results.size(); ++k) {
    auto got = read_numerals(folded.results[k]);
    RC_ASSERT(got.has_value());
    RC_ASSERT(results_equal(*got, run.results[k]));
  }
}

void check_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    int ran = 0;
    std::string rejected;
    for (const std::string& t : c.ts)
      for (const std::string& u : c.us) {
        const std::string text = subst(c.text, t, u);
        auto parsed = parse_program(text, c.name);
        ASSERT_TRUE(parsed.ok()) << parsed.error << "\n" << text;
        const Program& p = *parsed.program;
        if (auto diags = verify_program(p); !diags.empty()) {
          // A dtype combination the verifier rejects is not an op to agree on (e.g. i1 arithmetic).
          rejected += " " + t + (u.empty() ? "" : "->" + u);
          continue;
        }
        smt::Context ctx;
        const std::string label = c.name + " " + t + (u.empty() ? "" : "->" + u);
        EXPECT_TRUE(rc::check(label, [&] {
          const std::vector<Tensor> in = gen_inputs(p);
          agrees(p, in, c.check);
          // Folding is the interpreter itself; a quarter of the inputs is plenty to see that it
          // happens, keeps UB and leaves uninterpreted ops alone.
          if (*rc::gen::inRange(0, 4) == 0) folding_agrees(text, p, in, c.check);
        })) << text;
        ++ran;
      }
    EXPECT_GT(ran, 0) << c.name << ": the verifier rejects every dtype combination";
    std::printf("[ agreement ] %-28s %3d dtype combinations%s%s\n", c.name.c_str(), ran,
                rejected.empty() ? "" : ", rejected by the verifier:", rejected.c_str());
  }
}

/// Every op of ir/ops.def (but return) appears in some case, with some dtype the verifier accepts.
TEST(EncodeAgreement, EveryOpIsCovered) {
  std::set<OpCode> seen;
  for (auto* cases : {elementwise_cases, shape_cases, reduce_cases, dot_cases, index_cases, window_cases,
                      control_cases})
    for (const Case& c : cases())
      for (const std::string& t : c.ts) {
        auto parsed = parse_program(subst(c.text, t, c.us[0].empty() ? t : c.us[0]), c.name);
        if (!parsed.ok() || !verify_program(*parsed.program).empty()) continue;
        const Program& p = *parsed.program;
        p.for_each_inst(p.entry(), [&](InstId i) { seen.insert(p.op(i)); });
      }
  for (int k = 0; k < kNumOps; ++k) {
    const OpCode op = static_cast<OpCode>(k);
    if (op != OpCode::Return) EXPECT_TRUE(seen.count(op)) << "no agreement case for " << mnemonic(op);
  }
}

/// Under contract (docs/semantics.md "Fast-math flags"): the encoding of a contract site agrees with the
/// interpreter on the unfused result (the default of both) and on every fused alternative. With
/// EncodeOptions::Contract::Default the result is the interpreter's unfused run and each recorded
/// alternative k is the interpreter's run with the site fused at k (InterpOptions::contracted); with
/// Contract::Any, every assignment of the site's Bools gives the interpreter's run for that choice, so the
/// fused values are admitted and nothing else is.
TEST(EncodeAgreement, Contract) {
  const std::vector<std::string> bodies = {
      "%m = mul %a, %b -> $R\n  %r = add %m, %c -> $R",
      "%m = mul %a, %b -> $R\n  %r = add %c, %m -> $R",
      "%m = mul %a, %b -> $R\n  %r = sub %m, %c -> $R",
      "%m = mul %a, %b -> $R\n  %r = sub %c, %m -> $R",
      "%m = mul %a, %b -> $R\n  %n = mul %c, %a -> $R\n  %r = sub %m, %n -> $R",
  };
  for (const std::string& t : kFloats)
    for (const std::string& body : bodies) {
      const std::string r = "tensor<" + t + ", 4>";
      std::string text = "func @f(%a: " + r + ", %b: " + r + ", %c: " + r + ") -> " + r +
                         " attributes[fastmath[contract]] {\n  " + body + "\n  return %r\n}\n";
      for (size_t q; (q = text.find("$R")) != std::string::npos;) text.replace(q, 2, r);
      auto parsed = parse_program(text, "contract");
      ASSERT_TRUE(parsed.ok()) << parsed.error << "\n" << text;
      const Program& p = *parsed.program;
      ASSERT_TRUE(verify_program(p).empty()) << text;
      const InstId site = p.def_inst(p.operand(p.terminator(p.entry()), 0));
      const std::vector<uint32_t> ks = contract_operands(p, site);
      ASSERT_FALSE(ks.empty()) << text;
      smt::Context ctx;
      EXPECT_TRUE(rc::check("contract " + t + ": " + body, [&] {
        const std::vector<Tensor> in = gen_inputs(p);
        RC_LOG() << show(in);
        // The interpreter: unfused (no choice), then fused at each k.
        std::vector<RunResult> runs{run_body(p, p.entry(), in)};
        std::vector<Contractions> choice{{}};
        for (uint32_t k : ks) {
          choice.push_back({{site, k}});
          InterpOptions io;
          io.contracted = &choice.back();
          runs.push_back(run_body(p, p.entry(), in, io));
        }
        for (const RunResult& run : runs) RC_ASSERT(run.status == RunStatus::Ok);
        std::vector<SymTensor> sym;
        for (const Tensor& x : in) sym.push_back(constant_tensor(x));
        // Contract::Default: the unfused value, and the alternatives recorded.
        std::vector<ContractAlt> alts;
        const BodyEncoding def = encode_body(p, p.entry(), sym, EncodeOptions{.fold_concrete = false, .contract_alts = &alts});
        auto unfused = read_numerals(def.results[0]);
        RC_ASSERT(unfused.has_value());
        RC_ASSERT(results_equal(*unfused, runs[0].results[0]));
        RC_ASSERT(alts.size() == ks.size());
        for (size_t a = 0; a < ks.size(); ++a) {
          RC_ASSERT(alts[a].inst == site && alts[a].k == ks[a]);
          auto fused = read_numerals(SymTensor{def.results[0].type, alts[a].elems});
          RC_ASSERT(fused.has_value());
          RC_LOG() << "fused at " << ks[a] << ": interpreter " << print_literal(runs[a + 1].results[0]) << ", smt "
                   << print_literal(*fused);
          RC_ASSERT(results_equal(*fused, runs[a + 1].results[0]));
        }
        // Contract::Any: each choice of the Bools is the interpreter's run for that choice.
        std::vector<ContractVar> vars;
        EncodeOptions any{.fold_concrete = false};
        any.contract = EncodeOptions::Contract::Any;
        any.contract_vars = &vars;
        const BodyEncoding free = encode_body(p, p.entry(), sym, any);
        RC_ASSERT(vars.size() == ks.size());
        for (size_t c = 0; c < runs.size(); ++c) {
          smt::Solver s(1000);
          for (size_t a = 0; a < vars.size(); ++a) s.add(vars[a].var == smt::Expr::boolean(c == a + 1));
          RC_ASSERT(s.check() == smt::Result::Sat);
          SymTensor got{free.results[0].type, {}};
          const std::unique_ptr<smt::Model> m = s.model();
          for (const smt::Expr& e : free.results[0].elems) got.elems.push_back(m->eval(e));
          auto v = read_numerals(got);
          RC_ASSERT(v.has_value());
          RC_ASSERT(results_equal(*v, runs[c].results[0]));
        }
      })) << text;
    }
}

TEST(EncodeAgreement, Elementwise) { check_cases(elementwise_cases()); }
TEST(EncodeAgreement, Shape) { check_cases(shape_cases()); }
TEST(EncodeAgreement, Reduce) { check_cases(reduce_cases()); }
TEST(EncodeAgreement, Dot) { check_cases(dot_cases()); }
TEST(EncodeAgreement, Index) { check_cases(index_cases()); }
TEST(EncodeAgreement, Window) { check_cases(window_cases()); }
TEST(EncodeAgreement, Control) { check_cases(control_cases()); }

}  // namespace
}  // namespace ptir::verify
