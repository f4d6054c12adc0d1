// Realistic benchmark programs: one block description written out as PTIR or as MLIR.
//
// The MLIR spelling (LLVM 14: `func`, `call`, `return`, arith, math and tensor dialects) maps
// elementwise ops to arith/math ops, the no-op cast to tensor.cast, and ops that have no arith/tensor
// equivalent in LLVM 14 (reductions, broadcast_to, transpose, dot_general) to calls of private
// functions declared at the end, so the graph, its names and its op count stay the same. Literal
// operands become arith.constant ops at the top of @main (one per distinct literal, as MLIR prints them).
#include "bench/realistic.h"

#include <cctype>
#include <map>
#include <vector>

namespace ptir::bench {
namespace {

using Shape = std::vector<int>;

std::string dims(const Shape& s, char sep) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) out += (k ? std::string(1, sep) : "") + std::to_string(s[k]);
  return out;
}

/// Writes one op at a time; the block generator below is the single description of the graph.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void header(const std::vector<std::pair<std::string, Shape>>& params, const Shape& result) = 0;
  virtual void footer(const std::string& result, const Shape& shape) = 0;
  /// res = op(a) for an elementwise unary op ("exp", "tanh", "rsqrt", "sqrt", "reciprocal", "cast").
  virtual void unary(const std::string& op, const std::string& res, const std::string& a, const Shape& s) = 0;
  /// res = op(a, b) for "add", "sub", "mul", "div".
  virtual void binary(const std::string& op, const std::string& res, const std::string& a, const std::string& b,
                      const Shape& s) = 0;
  /// res = op(a, splat literal `lit`).
  virtual void binary_lit(const std::string& op, const std::string& res, const std::string& a,
                          const std::string& lit, const Shape& s) = 0;
  virtual void constant(const std::string& res, const std::string& values, const Shape& s) = 0;
  /// "reduce_sum" / "reduce_max" over the last axis, keepdims.
  virtual void reduce(const std::string& op, const std::string& res, const std::string& a, const Shape& in) = 0;
  virtual void broadcast(const std::string& res, const std::string& a, const Shape& in, const Shape& out) = 0;
  virtual void transpose(const std::string& res, const std::string& a, const Shape& in) = 0;
  virtual void dot(const std::string& res, const std::string& a, const std::string& b, const Shape& as,
                   const Shape& bs) = 0;
  std::string text;
};

std::string ptir_type(const Shape& s) { return s.empty() ? "tensor<f32>" : "tensor<f32, " + dims(s, 'x') + ">"; }

class PtirWriter final : public Writer {
 public:
  void header(const std::vector<std::pair<std::string, Shape>>& params, const Shape& result) override {
    text += "func @main(";
    for (size_t k = 0; k < params.size(); ++k)
      text += (k ? ", %" : "%") + params[k].first + ": " + ptir_type(params[k].second);
    text += ") -> " + ptir_type(result) + " {\n";
  }
  void footer(const std::string& result, const Shape&) override { text += "  return %" + result + "\n}\n"; }
  void unary(const std::string& op, const std::string& res, const std::string& a, const Shape& s) override {
    line(res, op + " %" + a, s);
  }
  void binary(const std::string& op, const std::string& res, const std::string& a, const std::string& b,
              const Shape& s) override {
    line(res, op + " %" + a + ", %" + b, s);
  }
  void binary_lit(const std::string& op, const std::string& res, const std::string& a, const std::string& lit,
                  const Shape& s) override {
    line(res, op + " %" + a + ", dense<" + lit + "> : " + ptir_type(s), s);
  }
  void constant(const std::string& res, const std::string& values, const Shape& s) override {
    line(res, "constant dense<" + values + "> : " + ptir_type(s), s);
  }
  void reduce(const std::string& op, const std::string& res, const std::string& a, const Shape& in) override {
    Shape out = in;
    out.back() = 1;
    line(res, op + " %" + a + " axes[" + std::to_string(in.size() - 1) + "] keepdims[true]", out);
  }
  void broadcast(const std::string& res, const std::string& a, const Shape&, const Shape& out) override {
    line(res, "broadcast_to %" + a, out);
  }
  void transpose(const std::string& res, const std::string& a, const Shape& in) override {
    line(res, "transpose %" + a + " perm[1, 0]", Shape{in[1], in[0]});
  }
  void dot(const std::string& res, const std::string& a, const std::string& b, const Shape& as,
           const Shape& bs) override {
    line(res, "dot_general %" + a + ", %" + b + " contract_lhs[1] contract_rhs[0]", Shape{as[0], bs[1]});
  }

 private:
  void line(const std::string& res, const std::string& body, const Shape& s) {
    text += "  %" + res + " = " + body + " -> " + ptir_type(s) + "\n";
  }
};

std::string mlir_type(const Shape& s) { return s.empty() ? "tensor<f32>" : "tensor<" + dims(s, 'x') + "xf32>"; }

class MlirWriter final : public Writer {
 public:
  void header(const std::vector<std::pair<std::string, Shape>>& params, const Shape& result) override {
    head_ = "func @main(";
    for (size_t k = 0; k < params.size(); ++k)
      head_ += (k ? ", %" : "%") + params[k].first + ": " + mlir_type(params[k].second);
    head_ += ") -> " + mlir_type(result) + " {\n";
  }
  void footer(const std::string& result, const Shape& s) override {
    std::string consts;
    for (const auto& [key, name] : lits_) consts += "  %" + name + " = arith.constant " + key + "\n";
    std::string decls;
    for (const std::string& d : decls_) decls += d;
    text = "module {\n" + head_ + consts + text + "  return %" + result + " : " + mlir_type(s) + "\n}\n" + decls +
           "}\n";
  }
  void unary(const std::string& op, const std::string& res, const std::string& a, const Shape& s) override {
    std::string t = mlir_type(s);
    if (op == "cast") return put("%" + res + " = tensor.cast %" + a + " : " + t + " to " + t);
    if (op == "reciprocal") {
      std::string one = literal("1.0", s);
      return put("%" + res + " = arith.divf %" + one + ", %" + a + " : " + t);
    }
    put("%" + res + " = math." + op + " %" + a + " : " + t);
  }
  void binary(const std::string& op, const std::string& res, const std::string& a, const std::string& b,
              const Shape& s) override {
    put("%" + res + " = arith." + op + "f %" + a + ", %" + b + " : " + mlir_type(s));
  }
  void binary_lit(const std::string& op, const std::string& res, const std::string& a, const std::string& lit,
                  const Shape& s) override {
    binary(op, res, a, literal(lit, s), s);
  }
  void constant(const std::string& res, const std::string& values, const Shape& s) override {
    put("%" + res + " = arith.constant dense<" + values + "> : " + mlir_type(s));
  }
  void reduce(const std::string& op, const std::string& res, const std::string& a, const Shape& in) override {
    Shape out = in;
    out.back() = 1;
    call(op, res, {a}, {in}, out);
  }
  void broadcast(const std::string& res, const std::string& a, const Shape& in, const Shape& out) override {
    call("broadcast_to", res, {a}, {in}, out);
  }
  void transpose(const std::string& res, const std::string& a, const Shape& in) override {
    call("transpose", res, {a}, {in}, Shape{in[1], in[0]});
  }
  void dot(const std::string& res, const std::string& a, const std::string& b, const Shape& as,
           const Shape& bs) override {
    call("dot", res, {a, b}, {as, bs}, Shape{as[0], bs[1]});
  }

 private:
  void put(const std::string& s) { text += "  " + s + "\n"; }
  std::string literal(const std::string& v, const Shape& s) {
    std::string key = "dense<" + v + "> : " + mlir_type(s);
    auto it = lits_.find(key);
    if (it != lits_.end()) return it->second;
    std::string name = "cst" + std::to_string(lits_.size());
    lits_.emplace(key, name);
    return name;
  }
  void call(const std::string& fn, const std::string& res, const std::vector<std::string>& args,
            const std::vector<Shape>& in, const Shape& out) {
    std::string sig = "(";
    std::string name = fn;
    for (size_t k = 0; k < in.size(); ++k) {
      sig += (k ? ", " : "") + mlir_type(in[k]);
      name += "_" + dims(in[k], 'x');
    }
    sig += ") -> " + mlir_type(out);
    name += "_to_" + dims(out, 'x');
    if (declared_.emplace(name, true).second) decls_.push_back("func private @" + name + sig + "\n");
    std::string a;
    for (size_t k = 0; k < args.size(); ++k) a += (k ? ", %" : "%") + args[k];
    put("%" + res + " = call @" + name + "(" + a + ") : " + sig);
  }
  std::string head_;
  std::map<std::string, std::string> lits_;
  std::map<std::string, bool> declared_;
  std::vector<std::string> decls_;
};

constexpr int kSeq = 4, kDim = 16, kFfn = 64;
constexpr size_t kOpsPerBlock = 52;

/// Per-layer gamma: 16 distinct values, different in every layer (exported weights are not splats).
std::string gamma(size_t layer) {
  std::string s = "[";
  for (int k = 0; k < kDim; ++k)
    s += (k ? ", " : "") + std::to_string(1.0 + 0.001 * double((layer * 7 + size_t(k) * 13) % 97)).substr(0, 6);
  return s + "]";
}

/// One transformer block: `x` (and `x2`, a duplicate of x the exporter did not merge) in; returns the
/// names of its output and of a duplicate of it.
std::pair<std::string, std::string> block(Writer& w, size_t l, const std::string& x, const std::string& x2) {
  const Shape h{kSeq, kDim}, c{kSeq, 1}, sc{kSeq, kSeq}, f{kSeq, kFfn}, vec{kDim}, scalar{};
  std::string p = "l" + std::to_string(l) + "_";
  auto n = [&](const char* s) { return p + s; };
  // layer norm; the exporter computes the mean twice (CSE) and keeps a debug statistic (dead).
  w.reduce("reduce_sum", n("mean_sum"), x, h);
  w.binary_lit("mul", n("mean"), n("mean_sum"), "0.0625", c);
  w.broadcast(n("mean_b"), n("mean"), c, h);
  w.binary("sub", n("xc"), x, n("mean_b"), h);
  w.reduce("reduce_sum", n("mean_sum2"), x, h);
  w.binary_lit("mul", n("mean2"), n("mean_sum2"), "0.0625", c);
  w.broadcast(n("mean2_b"), n("mean2"), c, h);
  w.binary("sub", n("xc2"), x, n("mean2_b"), h);
  w.reduce("reduce_max", n("dbg_max"), x, h);
  w.binary("mul", n("sq"), n("xc"), n("xc2"), h);
  w.reduce("reduce_sum", n("var_sum"), n("sq"), h);
  w.binary_lit("mul", n("var"), n("var_sum"), "0.0625", c);
  w.constant(n("eps"), "1.0e-05", scalar);
  w.binary_lit("mul", n("eps1"), n("eps"), "1.0", scalar);  // foldable chain: constant * 1
  w.broadcast(n("eps_b"), n("eps1"), scalar, c);
  w.binary("add", n("var_eps"), n("var"), n("eps_b"), c);
  w.unary("rsqrt", n("rstd"), n("var_eps"), c);
  w.broadcast(n("rstd_b"), n("rstd"), c, h);
  w.binary("mul", n("norm"), n("xc"), n("rstd_b"), h);
  w.constant(n("gamma"), gamma(l), vec);
  w.broadcast(n("gamma_b"), n("gamma"), vec, h);
  w.binary("mul", n("ln"), n("norm"), n("gamma_b"), h);
  // attention
  w.dot(n("q"), n("ln"), "wq", h, Shape{kDim, kDim});
  w.dot(n("k"), n("ln"), "wk", h, Shape{kDim, kDim});
  w.dot(n("v"), n("ln"), "wv", h, Shape{kDim, kDim});
  w.transpose(n("kt"), n("k"), h);
  w.dot(n("scores"), n("q"), n("kt"), h, Shape{kDim, kSeq});
  w.constant(n("dk"), "16.0", scalar);
  w.unary("sqrt", n("sqrt_dk"), n("dk"), scalar);          // foldable: sqrt(16) = 4
  w.unary("reciprocal", n("inv_dk"), n("sqrt_dk"), scalar);  // foldable: 0.25
  w.broadcast(n("inv_dk_b"), n("inv_dk"), scalar, sc);
  w.binary("mul", n("scaled"), n("scores"), n("inv_dk_b"), sc);
  w.reduce("reduce_max", n("row_max"), n("scaled"), sc);
  w.broadcast(n("row_max_b"), n("row_max"), Shape{kSeq, 1}, sc);
  w.binary("sub", n("shifted"), n("scaled"), n("row_max_b"), sc);
  w.unary("exp", n("e"), n("shifted"), sc);
  w.reduce("reduce_sum", n("z"), n("e"), sc);
  w.broadcast(n("z_b"), n("z"), Shape{kSeq, 1}, sc);
  w.binary("div", n("probs"), n("e"), n("z_b"), sc);
  w.dot(n("ctx"), n("probs"), n("v"), sc, h);
  w.transpose(n("ctx_t"), n("ctx"), h);  // transpose pair an exporter leaves around a reshape
  w.transpose(n("ctx_tt"), n("ctx_t"), Shape{kDim, kSeq});
  w.dot(n("attn"), n("ctx_tt"), "wo", h, Shape{kDim, kDim});
  w.binary_lit("add", n("attn0"), n("attn"), "-0.0", h);  // identity
  w.binary("add", n("res1"), x2, n("attn0"), h);
  // MLP
  w.dot(n("up"), n("res1"), "w1", h, Shape{kDim, kFfn});
  w.unary("cast", n("up_c"), n("up"), f);  // no-op cast
  w.unary("tanh", n("act"), n("up_c"), f);
  w.binary_lit("mul", n("act1"), n("act"), "1.0", f);  // identity
  w.dot(n("down"), n("act1"), "w2", f, Shape{kFfn, kDim});
  w.binary("add", n("out"), n("res1"), n("down"), h);
  w.binary("add", n("out_dup"), n("res1"), n("down"), h);  // duplicate of out: CSE
  return {n("out"), n("out_dup")};
}

std::string generate(Writer& w, size_t num_ops) {
  size_t blocks = std::max<size_t>(1, (num_ops + kOpsPerBlock - 1) / kOpsPerBlock);
  w.header({{"x", {kSeq, kDim}},
            {"wq", {kDim, kDim}},
            {"wk", {kDim, kDim}},
            {"wv", {kDim, kDim}},
            {"wo", {kDim, kDim}},
            {"w1", {kDim, kFfn}},
            {"w2", {kFfn, kDim}}},
           {kSeq, kDim});
  std::pair<std::string, std::string> x{"x", "x"};
  for (size_t l = 0; l < blocks; ++l) x = block(w, l, x.first, x.second);
  w.footer(x.second, {kSeq, kDim});
  return std::move(w.text);
}

}  // namespace

size_t realistic_ops_per_block() { return kOpsPerBlock; }

std::string realistic_program(size_t num_ops) {
  PtirWriter w;
  return generate(w, num_ops);
}

std::string realistic_program_mlir(size_t num_ops) {
  MlirWriter w;
  return generate(w, num_ops);
}

std::string named_values(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != '%' || i + 2 >= text.size() || text[i + 1] != 't' || !isdigit(static_cast<unsigned char>(text[i + 2])))
      continue;
    size_t j = i + 2;
    uint64_t n = 0;
    while (j < text.size() && isdigit(static_cast<unsigned char>(text[j]))) n = n * 10 + uint64_t(text[j++] - '0');
    out += "g" + std::to_string(n / 16) + "_s" + std::to_string(n % 16);
    i = j - 1;
  }
  return out;
}

std::string many_functions_program(size_t n) {
  std::string s;
  s.reserve(n * 160);
  for (size_t k = 0; k + 1 < n; ++k) {
    std::string f = std::to_string(k);
    s += "func @f" + f + "(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n  %a" + f + " = add %x, %x -> tensor<f32, 4>\n  %b" +
         f + " = mul %a" + f + ", dense<1.0> : tensor<f32, 4> -> tensor<f32, 4>\n  return %b" + f + "\n}\n";
  }
  s += "func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n  return %x\n}\n";
  return s;
}

std::string region_chain_program(size_t depth) {
  std::string s =
      "func @main(%x: tensor<f32>) -> tensor<f32> {\n"
      "  %p = compare %x, dense<0.0> : tensor<f32> dir[gt] -> tensor<i1>\n"
      "  %y = cond %p, %x then[^r0] else[^leaf] -> tensor<f32>\n"
      "  return %y\n}\n";
  s.reserve(depth * 260);
  for (size_t k = 0; k < depth; ++k) {
    std::string next = k + 1 < depth ? "^r" + std::to_string(k + 1) : "^leaf";
    s += "region ^r" + std::to_string(k) +
         "(%x: tensor<f32>) -> tensor<f32> {\n"
         "  %p = compare %x, dense<0.0> : tensor<f32> dir[gt] -> tensor<i1>\n"
         "  %n = neg %x -> tensor<f32>\n"
         "  %y = cond %p, %n then[" + next + "] else[^leaf] -> tensor<f32>\n"
         "  return %y\n}\n";
  }
  s += "region ^leaf(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n";
  return s;
}

}  // namespace ptir::bench
