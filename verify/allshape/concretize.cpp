// Concretization (docs/verification.md "Verdicts"): a satisfiable query's model becomes a program (its
// sizes, attributes, dtypes and inputs), on which the REAL pattern then runs through the bounded
// checker; only a replayed difference is a refutation.
#include "ir/verifier.h"
#include "verify/allshape/encoder.h"
#include "verify/encode/ops.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {

using smt::Expr;

namespace {
int64_t eval_int(const smt::Model& m, const Expr& e) {
  auto v = m.eval(e).intNumeral();
  return v ? *v : 0;
}
}  // namespace

Concrete concretize(const Enc& e, const smt::Model& m, FastMath fm, int64_t max_elements) {
  Concrete out;
  auto p = std::make_unique<Program>();
  const BodyId b = p->add_body("main", false);
  p->body(b).fastmath.bits = fm.bits;
  std::vector<ValueId> ids(e.cnodes.size(), kNone);
  int params = 0;
  for (size_t k = 0; k < e.cnodes.size(); ++k) {
    const CNode& c = e.cnodes[k];
    TensorType t;
    t.dtype = c.dtype;
    int64_t n = 1;
    for (const Expr& d : c.dims) {
      t.dims.push_back(eval_int(m, d));
      if (t.dims.back() < 0 || t.dims.back() > max_elements) {
        out.why_not = "the model's sizes are too large to replay";
        return out;
      }
      n *= t.dims.back();
      if (n > max_elements) {
        out.why_not = "the model's tensors are too large to replay";
        return out;
      }
    }
    switch (c.kind) {
      case CNode::Param:
      case CNode::Literal: {
        Tensor x(t);
        const std::vector<int64_t> st = [&] {
          std::vector<int64_t> s(t.dims.size(), 1);
          for (int a = static_cast<int>(t.dims.size()) - 2; a >= 0; --a) s[a] = s[a + 1] * t.dims[a + 1];
          return s;
        }();
        for (int64_t flat = 0; flat < x.size(); ++flat) {
          Expr v;
          if (!c.uf) v = m.eval(Expr::var("x." + c.capture, verify::sem::sort_of(c.dtype)));  // a rank-0 Param
          else {
            std::vector<Expr> ix;
            int64_t rem = flat;
            for (size_t a = 0; a < t.dims.size(); ++a) {
              ix.push_back(Expr::intVal(rem / st[a]));
              rem %= st[a];
            }
            v = m.eval((*c.uf)(ix));
          }
          if (auto bits = v.numeral()) x.set_bits(flat, *bits);
        }
        if (c.kind == CNode::Literal) {
          ids[k] = p->literal_value(p->intern_literal(x));
        } else {
          ids[k] = p->add_param(b, p->intern_type(t), "x" + std::to_string(params++));
          out.inputs.push_back(std::move(x));
        }
        break;
      }
      case CNode::Splat: {
        Tensor x(t);
        for (int64_t i = 0; i < x.size(); ++i) x.set_bits(i, c.bits);
        ids[k] = p->literal_value(p->intern_literal(x));
        break;
      }
      case CNode::Scalar: {
        Tensor x(t);
        auto bits = m.eval(c.scalar).numeral();
        for (int64_t i = 0; i < x.size(); ++i) x.set_bits(i, bits ? *bits : 0);
        ids[k] = p->literal_value(p->intern_literal(x));
        break;
      }
      case CNode::Op: {
        AttrSet attrs;
        for (const auto& [name, v] : c.ints) {
          AttrValue a;
          a.kind = AttrKind::Ints;
          for (const Expr& x : v) a.ints.push_back(eval_int(m, x));
          attrs.attrs.push_back(Attr{name, a});
        }
        for (const auto& [name, v] : c.cints) {
          AttrValue a;
          a.kind = name == "axis" ? AttrKind::Int : name == "keepdims" ? AttrKind::Bool
                   : name == "accum" ? AttrKind::DType : AttrKind::Ints;
          a.ints = v;
          attrs.attrs.push_back(Attr{name, a});
        }
        for (const auto& [name, w] : c.words) {
          AttrValue a;
          a.kind = AttrKind::Word;
          a.text = w;
          attrs.attrs.push_back(Attr{name, a});
        }
        std::vector<ValueId> ops;
        for (int o : c.operands) ops.push_back(ids[o]);
        const TypeId ty = p->intern_type(t);
        const InstId inst = p->create_inst(b, c.op, ops, p->intern_attrs(attrs), std::span<const TypeId>(&ty, 1));
        ids[k] = p->result(inst, 0);
        break;
      }
    }
  }
  std::vector<ValueId> results = {ids[e.root]};
  p->body(b).result_types.push_back(p->type_id(ids[e.root]));
  p->set_return(b, results);
  if (auto d = verify_program(*p); !d.empty()) {
    out.why_not = "the concretized instance is ill-typed: " + d[0].message;
    return out;
  }
  out.program = std::move(p);
  return out;
}

}  // namespace ptir::allshape::detail
