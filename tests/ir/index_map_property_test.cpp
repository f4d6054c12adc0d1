/// The interpreter runs every data-movement op as its index map says (ir/index_map.h): for random
/// shapes and attributes of each op (tests/ir/op_gen.h) and random inputs, the interpreter's result equals
/// the direct evaluation of the map (imap::resolve at every point, imap::first_bad for UB), with the
/// element semantics (folds, order of top_k/argmax) taken from ir/interp/numeric.h. Also: the map
/// language's printed form for a few ops, as docs/semantics.md states them.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>

#include "ir/index_map.h"
#include "ir/interp.h"
#include "ir/interp/kernels.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "tests/ir/op_gen.h"

namespace ptir {
namespace {

using interp::Fold;
using interp::Folder;
using interp::Num;

bool next_point(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (size_t k = dims.size(); k-- > 0;) {
    if (++idx[k] < dims[k]) return true;
    idx[k] = 0;
  }
  return false;
}

/// Calls f(point) for every point of `dims` in row-major order.
template <typename F>
void for_points(const std::vector<int64_t>& dims, F&& f) {
  for (int64_t n : dims)
    if (n <= 0) return;
  std::vector<int64_t> idx(dims.size(), 0);
  do f(idx);
  while (next_point(idx, dims));
}

struct Reference {
  bool ub = false;
  std::vector<Tensor> results;
};

/// The op of `p`'s entry evaluated directly from its index map.
Reference reference(const Program& p, InstId i, const std::vector<Tensor>& in) {
  const OpCode op = p.op(i);
  const AttrSet& attrs = p.attrs_of(i);
  std::vector<TensorType> ots, rts;
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : in) ots.push_back(t.type), ptrs.push_back(&t);
  for (uint32_t r = 0; r < p.num_results(i); ++r) rts.push_back(p.type_of(p.result(i, r)));
  std::string error;
  auto m = imap::index_map(op, attrs, ots, rts, imap::Sizes::Concrete, &error);
  RC_LOG() << error;
  RC_ASSERT(m.has_value());
  imap::IntDomain d{{}, ptrs, ots, rts, &attrs};
  Reference ref;
  for (const imap::Check& c : m->checks)
    if (imap::first_bad(*m, c, d)) ref.ub = true;
  if (ref.ub) return ref;
  for (const TensorType& t : rts) ref.results.emplace_back(t);
  Tensor& out = ref.results[0];
  const DType t = out.dtype();
  const std::vector<int64_t> space = imap::extents(*m, m->space, d);
  const std::vector<int64_t> odims(space.begin(), space.begin() + m->out_vars);
  const std::vector<int64_t> rdims(space.begin() + m->out_vars, space.end());
  auto at = [&](const std::vector<int64_t>& point) {
    imap::IntDomain e = d;
    e.vars = point;
    return imap::resolve(*m, e);
  };
  auto cat = [](std::vector<int64_t> a, const std::vector<int64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  int64_t oi = 0;
  switch (m->kind) {
    case imap::Kind::Move: {
      uint64_t pad = 0;
      if (const AttrValue* v = attrs.find("value")) pad = v->lit.bits(0);
      imap::IntDomain e = d;
      for_points(odims, [&](const std::vector<int64_t>& o) {
        const imap::Resolved r = at(o);
        if (r.case_index >= 0) {
          RC_ASSERT(r.offsets[0] >= 0);
          out.set_bits(oi, in[static_cast<size_t>(m->cases[static_cast<size_t>(r.case_index)].reads[0].operand)].bits(r.offsets[0]));
        } else if (m->otherwise == imap::Otherwise::Value) {
          out.set_bits(oi, pad);
        } else {
          RC_ASSERT(m->otherwise == imap::Otherwise::Index);
          e.vars = o;
          out.set_bits(oi, interp::cast_elem(DType::SI64, t, static_cast<uint64_t>(imap::eval(*m, m->index_value, e))));
        }
        ++oi;
      });
      return ref;
    }
    case imap::Kind::Fold: {
      if (op == OpCode::TopK || op == OpCode::Argmax) {
        const DType xt = in[0].dtype();
        const bool largest = attrs.bool_or("largest", true);
        const int64_t axis = attrs.int_or("axis", in[0].type.rank() - 1);
        for_points(odims, [&](const std::vector<int64_t>& o) {
          std::vector<int64_t> off;
          for_points(rdims, [&](const std::vector<int64_t>& r) { off.push_back(at(cat(o, r)).offsets[0]); });
          std::vector<int64_t> ord(off.size());
          std::iota(ord.begin(), ord.end(), 0);
          auto key = [&](int64_t k) { return interp::order_key(xt, in[0].bits(off[static_cast<size_t>(k)])); };
          std::stable_sort(ord.begin(), ord.end(), [&](int64_t a, int64_t b) {
            return (op == OpCode::Argmax || largest) ? key(a) > key(b) : key(a) < key(b);
          });
          const size_t j = op == OpCode::Argmax ? 0 : static_cast<size_t>(o[static_cast<size_t>(axis)]);
          RC_ASSERT(j < ord.size());
          if (op == OpCode::TopK) {
            out.set_bits(oi, in[0].bits(off[static_cast<size_t>(ord[j])]));
            ref.results[1].set_bits(oi, interp::cast_elem(DType::SI64, ref.results[1].dtype(), static_cast<uint64_t>(ord[j])));
          } else {
            out.set_bits(oi, interp::cast_elem(DType::SI64, t, static_cast<uint64_t>(ord[j])));
          }
          ++oi;
        });
        return ref;
      }
      DType acc = t;
      Fold kind = Fold::Sum;
      if (op == OpCode::ReduceMax) kind = Fold::Max;
      if (op == OpCode::ReduceMin) kind = Fold::Min;
      if (op == OpCode::ReduceWindow) {
        const std::string_view k = attrs.word("kind");
        kind = k == "sum" ? Fold::Sum : k == "max" ? Fold::Max : Fold::Min;
        acc = kind == Fold::Sum ? ptir::default_accum(t) : t;
      } else {
        RC_ASSERT(interp::accum_of(attrs, t, acc));
      }
      const Folder f(kind, acc);
      for_points(odims, [&](const std::vector<int64_t>& o) {
        Num a = f.identity();
        bool started = false;
        for_points(rdims, [&](const std::vector<int64_t>& r) {
          const imap::Resolved res = at(cat(o, r));
          if (res.case_index < 0) return;
          Num v;
          if (op == OpCode::DotGeneral) {
            const Num x = f.load(t, in[0].bits(res.offsets[0])), y = f.load(t, in[1].bits(res.offsets[1]));
            if (is_float(acc)) v.f = acc == DType::F64 ? x.f * y.f : acc == DType::F32 ? double(interp::narrow_f32(x.f * y.f))
                                                                                        : interp::round_f(acc, x.f * y.f);
            else v.i = (x.i * y.i) & bits_mask(acc);
          } else {
            v = f.load(t, in[0].bits(res.offsets[0]));
          }
          a = started ? f.combine(a, v) : v;
          started = true;
        });
        out.set_bits(oi++, f.store(a, t));
      });
      return ref;
    }
    case imap::Kind::Scatter: {
      std::string_view red = attrs.word("reduce");
      if (op == OpCode::ScatterAdd) red = "add";
      Fold kind = red == "max" ? Fold::Max : red == "min" ? Fold::Min : Fold::Sum;
      DType acc = t;
      if (op == OpCode::SegmentReduce) {
        kind = attrs.word("kind") == "sum" ? Fold::Sum : Fold::Max;
        acc = kind == Fold::Sum ? ptir::default_accum(t) : t;
      }
      const Folder f(kind, acc);
      std::vector<Num> accs(static_cast<size_t>(out.size()), f.identity());
      std::vector<bool> started(static_cast<size_t>(out.size()), false);
      if (m->init == imap::Init::Operand0) out = in[0];
      for_points(space, [&](const std::vector<int64_t>& u) {
        const imap::Resolved r = at(u);
        if (r.case_index < 0) return;
        RC_ASSERT(r.target >= 0);
        const Tensor& src = in[static_cast<size_t>(m->cases[0].reads[0].operand)];
        if (m->init == imap::Init::Identity) {
          const Num v = f.load(t, src.bits(r.offsets[0]));
          Num& a = accs[static_cast<size_t>(r.target)];
          a = started[static_cast<size_t>(r.target)] ? f.combine(a, v) : v;
          started[static_cast<size_t>(r.target)] = true;
        } else if (red == "replace") {
          out.set_bits(r.target, src.bits(r.offsets[0]));
        } else {
          out.set_bits(r.target, f.store(f.combine(f.load(t, out.bits(r.target)), f.load(t, src.bits(r.offsets[0]))), t));
        }
      });
      if (m->init == imap::Init::Identity)
        for (int64_t k = 0; k < out.size(); ++k) out.set_bits(k, f.store(accs[static_cast<size_t>(k)], t));
      return ref;
    }
    default: RC_FAIL("not a data-movement op");
  }
  return ref;
}

TEST(IndexMapProperty, EveryDataMovementOpHasAGenerator) {
  const std::vector<OpCode> ops = testgen::data_movement_ops();
  for (int k = 0; k < kNumOps; ++k) {
    const OpCode op = static_cast<OpCode>(k);
    const imap::Kind kind = imap::op_kind(op);
    const bool mapped = kind == imap::Kind::Move || kind == imap::Kind::Fold || kind == imap::Kind::Scatter;
    EXPECT_EQ(mapped, std::find(ops.begin(), ops.end(), op) != ops.end()) << mnemonic(op);
  }
}

TEST(IndexMapProperty, InterpreterEqualsTheMap) {
  for (OpCode op : testgen::data_movement_ops()) {
    int ub = 0, ok = 0;
    const bool passed = rc::check(std::string(mnemonic(op)), [&] {
      const testgen::Gen g;
      const std::string text = g.instance(op);
      RC_ASSERT(!text.empty());
      auto parsed = parse_program(text, "gen");
      RC_ASSERT(parsed.ok());
      const Program& p = *parsed.program;
      const auto diags = verify_program(p);
      RC_LOG() << text;
      if (!diags.empty()) RC_LOG() << diags[0].message;
      RC_ASSERT(diags.empty());
      const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
      const std::vector<Tensor> in =
          *rc::gen::arbitrary<bool>() ? random_inputs_avoiding_ub(p, p.entry(), seed) : random_inputs(p, p.entry(), seed);
      for (const Tensor& t : in) RC_LOG() << print_literal(t) << "\n";
      const RunResult run = run_body(p, p.entry(), in);
      InstId inst = kNone;
      p.for_each_inst(p.entry(), [&](InstId i) {
        if (p.op(i) != OpCode::Return) inst = i;
      });
      const Reference ref = reference(p, inst, in);
      RC_LOG() << "interpreter: " << run.message;
      RC_ASSERT((run.status == RunStatus::UB) == ref.ub);
      if (ref.ub) {
        ++ub;
        return;
      }
      ++ok;
      RC_ASSERT(run.status == RunStatus::Ok);
      RC_ASSERT(run.results.size() == ref.results.size());
      for (size_t k = 0; k < ref.results.size(); ++k) {
        RC_LOG() << "map: " << print_literal(ref.results[k]) << "\ninterpreter: " << print_literal(run.results[k]);
        if (imap::op_kind(op) == imap::Kind::Move) RC_ASSERT(ref.results[k] == run.results[k]);
        else RC_ASSERT(results_equal(ref.results[k], run.results[k]));
      }
    });
    EXPECT_TRUE(passed) << mnemonic(op);
    EXPECT_GT(ok, 0) << mnemonic(op) << ": no instance without UB";
    std::printf("[ index map ] %-22s %4d ok, %3d UB\n", std::string(mnemonic(op)).c_str(), ok, ub);
  }
}

/// The printed map of a few ops, in symbolic sizes: the formulas of docs/semantics.md.
TEST(IndexMap, SymbolicMapsReadLikeTheSemantics) {
  auto map_of = [](OpCode op, const AttrSet& attrs, std::vector<TensorType> ops, std::vector<TensorType> res) {
    std::string e;
    auto m = imap::index_map(op, attrs, ops, res, imap::Sizes::Symbolic, &e);
    return m ? m->str() : e;
  };
  auto ints = [](const char* name, std::vector<int64_t> v) { return Attr{name, AttrValue{AttrKind::Ints, std::move(v), "", {}}}; };
  const AttrSet pad{{ints("low", {1}), ints("high", {-1}), ints("interior", {0})}};
  const TensorType v4{DType::F32, {4}}, m23{DType::F32, {2, 3}};
  EXPECT_EQ(map_of(OpCode::Pad, pad, {v4}, {v4}),
            "pad (move) over [rdim(0, 0)]\n"
            "  when [(0 <= (i0 - low[0])), (mod((i0 - low[0]), (interior[0] + 1)) == 0), "
            "(floordiv((i0 - low[0]), (interior[0] + 1)) < dim(0, 0))]: "
            "operand 0[floordiv((i0 - low[0]), (interior[0] + 1))]\n"
            "  otherwise: value[]\n");
  EXPECT_EQ(map_of(OpCode::Tile, {}, {v4}, {v4}), "tile: repeats[...] needs one entry per axis");
  EXPECT_EQ(map_of(OpCode::BroadcastTo, {}, {v4}, {m23}),
            "broadcast_to (move) over [rdim(0, 0), rdim(0, 1)]\n  when true: operand 0[((dim(0, 0) == 1) ? 0 : i1)]\n");
  EXPECT_EQ(map_of(OpCode::Reshape, {}, {m23}, {TensorType{DType::F32, {6}}}),
            "reshape (move) over [rdim(0, 0)]\n  when true: operand 0 flat[i0]\n");
  EXPECT_EQ(map_of(OpCode::Neg, {}, {v4}, {v4}), "neg: no index map (an op of kind elementwise)");
}

}  // namespace
}  // namespace ptir
