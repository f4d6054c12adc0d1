/// Every op of ir/ops.def is fully described (docs/semantics.md "Index maps"): it has a declared kind
/// (imap::op_kind); an op of kind move, fold or scatter has an index map (imap::index_map, concrete and
/// symbolic) and the others have none; and every op has its element semantics in both implementations:
/// on a sample instance the interpreter runs it and the SMT encoder encodes it, and where the encoding
/// is interpreted (not transcendental, opaque or rng) the two agree on the values. The test fails for an
/// op with no sample here, so adding an op to ops.def means adding one.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ir/index_map.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/encode/encode.h"
#include "verify/smt/expr.h"

namespace ptir::verify {
namespace {

std::string fn(const std::string& params, const std::string& op, const std::string& result) {
  return "func @f(" + params + ") -> " + result + " {\n  %r = " + op + " -> " + result + "\n  return %r\n}\n";
}

/// One small instance of every op (f32 unless the op needs another dtype).
const std::map<std::string, std::string>& samples() {
  static const std::map<std::string, std::string> s = [] {
    std::map<std::string, std::string> m;
    const std::string x3 = "%x: tensor<f32, 3>", t3 = "tensor<f32, 3>";
    m["constant"] = fn("", "constant dense<[1.0, 2.0, 3.0]> : tensor<f32, 3>", t3);
    for (const char* op : {"neg", "abs", "exp", "log", "tanh", "erf", "rsqrt", "reciprocal", "sqrt", "stop_gradient"})
      m[op] = fn(x3, std::string(op) + " %x", t3);
    for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"})
      m[op] = fn(x3 + ", %y: tensor<f32, 3>", std::string(op) + " %x, %y", t3);
    m["compare"] = fn(x3 + ", %y: tensor<f32, 3>", "compare %x, %y dir[lt]", "tensor<i1, 3>");
    m["select"] = fn("%p: tensor<i1, 3>, " + x3 + ", %y: tensor<f32, 3>", "select %p, %x, %y", t3);
    m["cast"] = fn(x3, "cast %x", "tensor<si8, 3>");
    m["reshape"] = fn("%x: tensor<f32, 2x3>", "reshape %x", "tensor<f32, 3x2>");
    m["transpose"] = fn("%x: tensor<f32, 2x3>", "transpose %x perm[1, 0]", "tensor<f32, 3x2>");
    m["broadcast_to"] = fn("%x: tensor<f32, 3>", "broadcast_to %x", "tensor<f32, 2x3>");
    m["slice"] = fn("%x: tensor<f32, 4>", "slice %x starts[1]", "tensor<f32, 2>");
    m["concat"] = fn(x3 + ", %y: tensor<f32, 2>", "concat %x, %y axis[0]", "tensor<f32, 5>");
    m["pad"] = fn(x3, "pad %x low[1] high[-1] interior[1] value[2.0]", "tensor<f32, 5>");
    m["tile"] = fn("%x: tensor<f32, 2>", "tile %x repeats[2]", "tensor<f32, 4>");
    m["iota"] = fn("", "iota axis[0]", "tensor<si32, 3>");
    m["dot_general"] = fn("%a: tensor<f32, 2x3>, %b: tensor<f32, 3>", "dot_general %a, %b contract_lhs[1] contract_rhs[0]",
                          "tensor<f32, 2>");
    for (const char* op : {"reduce_sum", "reduce_max", "reduce_min"})
      m[op] = fn("%x: tensor<f32, 2x3>", std::string(op) + " %x axes[1]", "tensor<f32, 2>");
    m["argmax"] = fn("%x: tensor<f32, 2x3>", "argmax %x axis[1]", "tensor<si32, 2>");
    m["take"] = fn("%x: tensor<f32, 3x2>, %i: tensor<si32, 2>", "take %x, %i", "tensor<f32, 2x2>");
    m["gather"] = fn("%x: tensor<f32, 3>, %i: tensor<si32, 2>", "gather %x, %i axis[0]", "tensor<f32, 2>");
    m["scatter_reduce"] = fn(x3 + ", %i: tensor<si32, 2>, %s: tensor<f32, 2>", "scatter_reduce %x, %i, %s axis[0] reduce[add]", t3);
    m["scatter_add"] = fn(x3 + ", %i: tensor<si32, 2x1>, %u: tensor<f32, 2>",
                          "scatter_add %x, %i, %u update_window_dims[] inserted_window_dims[0] "
                          "scatter_dims_to_operand_dims[0] index_vector_dim[1]",
                          t3);
    m["dynamic_slice"] = fn("%x: tensor<f32, 4>, %s: tensor<si32, 1>", "dynamic_slice %x, %s", "tensor<f32, 2>");
    m["dynamic_update_slice"] =
        fn("%x: tensor<f32, 4>, %u: tensor<f32, 2>, %s: tensor<si32, 1>", "dynamic_update_slice %x, %u, %s", "tensor<f32, 4>");
    m["extract_patches"] = fn("%x: tensor<f32, 4>", "extract_patches %x window[2] strides[2]", "tensor<f32, 2x2>");
    m["reduce_window"] = fn("%x: tensor<f32, 4>", "reduce_window %x kind[sum] window[2]", t3);
    m["top_k"] = "func @f(%x: tensor<f32, 4>) -> (tensor<f32, 2>, tensor<si32, 2>) {\n"
                 "  %v, %i = top_k %x k[2] -> (tensor<f32, 2>, tensor<si32, 2>)\n  return %v, %i\n}\n";
    m["segment_reduce"] = fn(x3 + ", %s: tensor<si32, 3>", "segment_reduce %x, %s kind[sum] num_segments[2]", "tensor<f32, 2>");
    m["cond"] = "region ^t(%a: tensor<f32, 3>) -> tensor<f32, 3> {\n  %r = neg %a -> tensor<f32, 3>\n  return %r\n}\n" +
                fn("%p: tensor<i1>, " + x3, "cond %p, %x then[^t] else[^t]", t3);
    m["while"] = "region ^c(%a: tensor<f32, 3>) -> tensor<i1> {\n  %r = constant dense<false> : tensor<i1> -> tensor<i1>\n"
                 "  return %r\n}\n"
                 "region ^b(%a: tensor<f32, 3>) -> tensor<f32, 3> {\n  return %a\n}\n" +
                 fn(x3, "while %x cond[^c] body[^b]", t3);
    m["scan"] = "region ^b(%c: tensor<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {\n"
                "  %s = add %c, %x -> tensor<f32>\n  return %s, %s\n}\n"
                "func @f(%c: tensor<f32>, %xs: tensor<f32, 3>) -> (tensor<f32>, tensor<f32, 3>) {\n"
                "  %m, %ys = scan %c, %xs body[^b] carries[1] -> (tensor<f32>, tensor<f32, 3>)\n  return %m, %ys\n}\n";
    m["rng_uniform"] = fn("", "rng_uniform seed[1]", t3);
    m["rng_normal"] = fn("", "rng_normal seed[1]", t3);
    m["custom_call"] = fn(x3, "custom_call %x target[\"ns.f.v1\"]", t3);
    for (const char* op : {"quantize", "dequantize", "requantize"})
      m[op] = fn(x3 + ", %s: tensor<f32>, %z: tensor<si32>", std::string(op) + " %x, %s, %z", t3);
    m["return"] = fn(x3, "neg %x", t3);
    return m;
  }();
  return s;
}

bool interpreted(OpCode op) {
  return !has_trait(op, Transcendental) && !has_trait(op, Opaque) && !has_trait(op, Effect);
}

TEST(OpCoverage, EveryOpHasAKindAndAnIndexMapOrNone) {
  for (int k = 0; k < kNumOps; ++k) {
    const OpCode op = static_cast<OpCode>(k);
    const std::string name(mnemonic(op));
    SCOPED_TRACE(name);
    const imap::Kind kind = imap::op_kind(op);
    EXPECT_STRNE(imap::kind_name(kind), "?");
    auto it = samples().find(name);
    ASSERT_NE(it, samples().end()) << "no sample instance of " << name << " in op_coverage_test.cpp";
    auto parsed = parse_program(it->second, name);
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const Program& p = *parsed.program;
    ASSERT_TRUE(verify_program(p).empty()) << it->second;
    bool found = op == OpCode::Return;
    p.for_each_inst(p.entry(), [&](InstId i) {
      if (p.op(i) != op) return;
      found = true;
      std::vector<TensorType> ops, res;
      for (uint32_t a = 0; a < p.num_operands(i); ++a) ops.push_back(p.type_of(p.operand(i, a)));
      for (uint32_t r = 0; r < p.num_results(i); ++r) res.push_back(p.type_of(p.result(i, r)));
      const bool mapped = kind == imap::Kind::Move || kind == imap::Kind::Fold || kind == imap::Kind::Scatter;
      for (imap::Sizes sizes : {imap::Sizes::Concrete, imap::Sizes::Symbolic}) {
        std::string error;
        auto m = imap::index_map(op, p.attrs_of(i), ops, res, sizes, &error);
        EXPECT_EQ(m.has_value(), mapped) << (m ? m->str() : error);
        if (m) {
          EXPECT_EQ(m->kind, kind);
          EXPECT_FALSE(m->space.empty() && m->out_vars > 0);
          EXPECT_TRUE(!m->cases.empty() || m->otherwise != imap::Otherwise::Nothing) << m->str();
          if (kind == imap::Kind::Scatter) {
            EXPECT_FALSE(m->target.empty()) << m->str();
          }
        } else {
          EXPECT_NE(error.find(name), std::string::npos) << error;  // the error names the op
        }
      }
    });
    EXPECT_TRUE(found) << "the sample does not run " << name;
  }
}

TEST(OpCoverage, EveryOpHasElementSemanticsInBothImplementations) {
  smt::Context ctx;
  for (int k = 0; k < kNumOps; ++k) {
    const OpCode op = static_cast<OpCode>(k);
    const std::string name(mnemonic(op));
    SCOPED_TRACE(name);
    auto it = samples().find(name);
    ASSERT_NE(it, samples().end()) << "no sample instance of " << name;
    auto parsed = parse_program(it->second, name);
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const Program& p = *parsed.program;
    const std::vector<Tensor> in = random_inputs_avoiding_ub(p, p.entry(), 11, 0.0);
    const RunResult run = run_body(p, p.entry(), in);
    std::vector<SymTensor> sym;
    for (const Tensor& t : in) sym.push_back(constant_tensor(t));
    BodyEncoding enc;
    ASSERT_NO_THROW(enc = encode_body(p, p.entry(), sym, EncodeOptions{.fold_concrete = false}));
    ASSERT_EQ(enc.results.size(), p.body(p.entry()).result_types.size());
    if (has_trait(op, Opaque)) {  // no kernel registered: the interpreter says so, by name
      EXPECT_EQ(run.status, RunStatus::Error);
      EXPECT_NE(run.message.find("no kernel"), std::string::npos) << run.message;
      continue;
    }
    ASSERT_EQ(run.status, RunStatus::Ok) << run.message;
    EXPECT_TRUE(enc.ub.simplify().isFalse());
    if (!interpreted(op)) continue;
    for (size_t r = 0; r < run.results.size(); ++r) {
      auto got = read_numerals(enc.results[r]);
      ASSERT_TRUE(got.has_value()) << "result " << r << " is not a numeral";
      EXPECT_TRUE(results_equal(*got, run.results[r]))
          << "interpreter " << print_literal(run.results[r]) << " smt " << print_literal(*got);
    }
  }
}

}  // namespace
}  // namespace ptir::verify
