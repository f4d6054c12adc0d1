// Random instances of every data-movement op (kinds move, fold, scatter of ir/index_map.h): random ranks,
// sizes (0 included) and attributes, as one-op PTIR programs. Call inside a RapidCheck property. Shared by
// tests/ir/index_map_property_test.cpp (interpreter = map) and tests/verify/index_map_encode_test.cpp
// (bounded encoder = interpreter); `max_dim` keeps the encoder's instances small.
#pragma once
#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ir/ops.h"

namespace ptir::testgen {

inline std::string dims_text(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t k = 0; k < d.size(); ++k) {
    s += 'x';
    s += std::to_string(d[k]);
  }
  return s;
}
inline std::string ty(const std::string& dt, const std::vector<int64_t>& d) {
  return "tensor<" + dt + (d.empty() ? "" : ", " + dims_text(d).substr(1)) + ">";
}
inline std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

struct Gen {
  int max_dim = 4;
  int max_rank = 3;

  int64_t in(int64_t lo, int64_t hi) const { return *rc::gen::inRange<int64_t>(lo, hi + 1); }
  bool coin() const { return in(0, 1) == 1; }
  std::vector<int64_t> dims(int rank, int64_t lo = 0) const {
    std::vector<int64_t> d;
    for (int k = 0; k < rank; ++k) d.push_back(in(lo, max_dim));
    return d;
  }
  int rank(int lo = 0) const { return static_cast<int>(in(lo, max_rank)); }
  std::vector<int64_t> perm(int r) const {
    std::vector<int64_t> p(static_cast<size_t>(r));
    for (int k = 0; k < r; ++k) p[static_cast<size_t>(k)] = k;
    for (int k = r - 1; k > 0; --k) std::swap(p[static_cast<size_t>(k)], p[static_cast<size_t>(in(0, k))]);
    return p;
  }
  std::string dtype() const { return *rc::gen::element<std::string>("f32", "si8", "f16", "ui16"); }
  std::string index_dtype() const { return *rc::gen::element<std::string>("si32", "ui8", "si64", "si8", "ui64"); }

  /// A program `func @f(params) -> result { %r = op -> result; return %r }`.
  static std::string fn(const std::string& params, const std::string& op, const std::string& result) {
    return "func @f(" + params + ") -> " + result + " {\n  %r = " + op + " -> " + result + "\n  return %r\n}\n";
  }

  std::string instance(OpCode op) const {
    const std::string t = dtype();
    switch (op) {
      case OpCode::Transpose: {
        const int r = rank();
        const auto d = dims(r);
        const auto p = perm(r);
        std::vector<int64_t> od;
        for (int64_t a : p) od.push_back(d[static_cast<size_t>(a)]);
        return fn("%x: " + ty(t, d), "transpose %x perm" + list(p), ty(t, od));
      }
      case OpCode::BroadcastTo: {
        const int r = rank();
        const auto od = dims(r);
        const int xr = static_cast<int>(in(0, r));
        std::vector<int64_t> d(od.end() - xr, od.end());
        for (int64_t& x : d)
          if (coin()) x = 1;
        return fn("%x: " + ty(t, d), "broadcast_to %x", ty(t, od));
      }
      case OpCode::Reshape: {
        const auto od = dims(rank());
        std::vector<int64_t> d;
        for (size_t k = 0; k < od.size();) {  // merge adjacent groups, insert 1s
          const size_t n = static_cast<size_t>(in(1, static_cast<int64_t>(od.size() - k)));
          int64_t p = 1;
          for (size_t j = 0; j < n; ++j) p *= od[k + j];
          d.push_back(p);
          k += n;
          if (coin() && d.size() < 4) d.push_back(1);
        }
        return fn("%x: " + ty(t, d), "reshape %x", ty(t, od));
      }
      case OpCode::Slice: {
        const auto d = dims(rank());
        std::vector<int64_t> st, sz;
        for (int64_t x : d) {
          sz.push_back(in(0, x));
          st.push_back(in(0, x - sz.back()));
        }
        return fn("%x: " + ty(t, d), "slice %x starts" + list(st), ty(t, sz));
      }
      case OpCode::Concat: {
        const int r = rank(1);
        const int64_t axis = in(0, r - 1);
        const auto d = dims(r);
        const int n = static_cast<int>(in(1, 3));
        std::string params, args;
        std::vector<int64_t> od = d;
        od[static_cast<size_t>(axis)] = 0;
        for (int k = 0; k < n; ++k) {
          std::vector<int64_t> dk = d;
          dk[static_cast<size_t>(axis)] = in(0, 3);
          od[static_cast<size_t>(axis)] += dk[static_cast<size_t>(axis)];
          params += std::string(k ? ", " : "") + "%x" + std::to_string(k) + ": " + ty(t, dk);
          args += std::string(k ? ", " : "") + "%x" + std::to_string(k);
        }
        return fn(params, "concat " + args + " axis[" + std::to_string(axis) + "]", ty(t, od));
      }
      case OpCode::Pad: {
        const auto d = dims(rank());
        std::vector<int64_t> lo, hi, inr, od;
        const bool interior = coin();
        for (int64_t x : d) {
          lo.push_back(in(-2, 2));
          inr.push_back(interior ? in(0, 2) : 0);
          hi.push_back(in(-2, 2));
          int64_t o = lo.back() + hi.back() + x + std::max<int64_t>(x - 1, 0) * inr.back();
          if (o < 0) hi.back() -= o, o = 0;
          od.push_back(o);
        }
        const std::string value = t[0] == 'f' ? "value[-2.5]" : "value[7]";
        return fn("%x: " + ty(t, d),
                  "pad %x low" + list(lo) + " high" + list(hi) + (interior ? " interior" + list(inr) : "") +
                      (coin() ? " " + value : ""),
                  ty(t, od));
      }
      case OpCode::Tile: {
        const auto d = dims(rank());
        std::vector<int64_t> reps, od;
        for (int64_t x : d) reps.push_back(in(0, 3)), od.push_back(x * reps.back());
        return fn("%x: " + ty(t, d), "tile %x repeats" + list(reps), ty(t, od));
      }
      case OpCode::Iota: {
        const int r = rank(1);
        const auto od = dims(r);
        const std::string dt = *rc::gen::element<std::string>("si32", "f32", "ui8", "f16");
        return fn("", "iota axis[" + std::to_string(in(0, r - 1)) + "]", ty(dt, od));
      }
      case OpCode::Take: {
        const auto d = dims(rank(1));
        const auto id = dims(static_cast<int>(in(0, 2)));
        std::vector<int64_t> od = id;
        od.insert(od.end(), d.begin() + 1, d.end());
        return fn("%x: " + ty(t, d) + ", %i: " + ty(index_dtype(), id), "take %x, %i", ty(t, od));
      }
      case OpCode::Gather: {
        const int r = rank(1);
        const int64_t axis = in(0, r - 1);
        const auto d = dims(r);
        std::vector<int64_t> id;
        for (int k = 0; k < r; ++k) id.push_back(k == axis ? in(0, max_dim) : in(0, d[static_cast<size_t>(k)]));
        return fn("%x: " + ty(t, d) + ", %i: " + ty(index_dtype(), id), "gather %x, %i axis[" + std::to_string(axis) + "]",
                  ty(t, id));
      }
      case OpCode::DynamicSlice: {
        const int r = rank();
        const auto d = dims(r);
        std::vector<int64_t> sz;
        for (int64_t x : d) sz.push_back(in(0, x));
        const std::string st = coin() ? "si32" : "si64";
        return fn("%x: " + ty(t, d) + ", %s: " + ty(st, {r}), "dynamic_slice %x, %s", ty(t, sz));
      }
      case OpCode::DynamicUpdateSlice: {
        const int r = rank();
        const auto d = dims(r);
        std::vector<int64_t> ud;
        for (int64_t x : d) ud.push_back(in(0, x));
        const std::string st = coin() ? "si32" : "si64";
        return fn("%x: " + ty(t, d) + ", %u: " + ty(t, ud) + ", %s: " + ty(st, {r}), "dynamic_update_slice %x, %u, %s",
                  ty(t, d));
      }
      case OpCode::ExtractPatches: {
        const int r = rank(1);
        const auto d = dims(r);
        std::vector<int64_t> w, s, dil, pl, ph, od;
        int64_t wn = 1;
        for (int k = 0; k < r; ++k) {
          w.push_back(in(1, 3)), s.push_back(in(1, 2)), dil.push_back(in(1, 2)), pl.push_back(in(-1, 2)),
              ph.push_back(in(-1, 2));
          const int64_t eff = (w.back() - 1) * dil.back() + 1;
          int64_t span = d[static_cast<size_t>(k)] + pl.back() + ph.back();
          if (span < eff) ph.back() += eff - span, span = eff;
          od.push_back((span - eff) / s.back() + 1);
          wn *= w.back();
        }
        od.push_back(wn);
        const std::string value = t[0] == 'f' ? " value[1.5]" : " value[3]";
        return fn("%x: " + ty(t, d),
                  "extract_patches %x window" + list(w) + " strides" + list(s) + " dilation" + list(dil) + " pad_low" +
                      list(pl) + " pad_high" + list(ph) + (coin() ? value : ""),
                  ty(t, od));
      }
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: case OpCode::Argmax: {
        const int r = rank(op == OpCode::Argmax ? 1 : 0);
        auto d = dims(r);
        std::vector<int64_t> axes;
        if (op == OpCode::Argmax) {
          axes.push_back(in(0, r - 1));
          if (d[static_cast<size_t>(axes[0])] == 0) d[static_cast<size_t>(axes[0])] = 1;  // argmax needs a non-empty axis
        } else {
          for (int64_t a : perm(r))
            if (coin()) axes.push_back(a);
        }
        const bool keep = coin();
        std::vector<int64_t> od;
        for (int k = 0; k < r; ++k) {
          const bool red = std::find(axes.begin(), axes.end(), k) != axes.end();
          if (!red) od.push_back(d[static_cast<size_t>(k)]);
          else if (keep) od.push_back(1);
        }
        const std::string ft = *rc::gen::element<std::string>("f32", "f16", "si8", "ui16");
        const std::string keeps = keep ? " keepdims[true]" : (coin() ? " keepdims[false]" : "");
        if (op == OpCode::Argmax)
          return fn("%x: " + ty(ft, d), "argmax %x axis[" + std::to_string(axes[0]) + "]" + keeps, ty("si32", od));
        return fn("%x: " + ty(ft, d), std::string(mnemonic(op)) + " %x axes" + list(axes) + keeps, ty(ft, od));
      }
      case OpCode::DotGeneral: {
        const int nb = static_cast<int>(in(0, 1)), nc = static_cast<int>(in(0, 2)), fl = static_cast<int>(in(0, 1)),
                  fr = static_cast<int>(in(0, 1));
        const auto bd = dims(nb), cd = dims(nc), fld = dims(fl), frd = dims(fr);
        // Axis roles in order (batch, contract, free), then scattered by a permutation.
        auto place = [&](int nfree, const std::vector<int64_t>& free, std::vector<int64_t>& bl, std::vector<int64_t>& cl) {
          const int r = nb + nc + nfree;
          const auto p = perm(r);  // role slot k goes to axis p[k]
          std::vector<int64_t> d(static_cast<size_t>(r));
          for (int k = 0; k < r; ++k) {
            const int64_t ax = p[static_cast<size_t>(k)];
            if (k < nb) bl.push_back(ax), d[static_cast<size_t>(ax)] = bd[static_cast<size_t>(k)];
            else if (k < nb + nc) cl.push_back(ax), d[static_cast<size_t>(ax)] = cd[static_cast<size_t>(k - nb)];
            else d[static_cast<size_t>(ax)] = -1;
          }
          // Free axes keep their order of appearance (that is their order in the result).
          size_t f = 0;
          for (int64_t& x : d)
            if (x < 0) x = free[f++];
          return d;
        };
        std::vector<int64_t> bl, cl, br, cr;
        const auto ld = place(fl, fld, bl, cl), rd = place(fr, frd, br, cr);
        std::vector<int64_t> od = bd;
        od.insert(od.end(), fld.begin(), fld.end());
        od.insert(od.end(), frd.begin(), frd.end());
        const std::string dt = coin() ? "f32" : "si32";
        return fn("%a: " + ty(dt, ld) + ", %b: " + ty(dt, rd),
                  "dot_general %a, %b batch_lhs" + list(bl) + " batch_rhs" + list(br) + " contract_lhs" + list(cl) +
                      " contract_rhs" + list(cr),
                  ty(dt, od));
      }
      case OpCode::ReduceWindow: {
        const int r = rank(1);
        const auto d = dims(r);
        std::vector<int64_t> w, s, pl, ph, bd, wd, od;
        for (int k = 0; k < r; ++k) {
          w.push_back(in(1, 3)), s.push_back(in(1, 2)), pl.push_back(in(-1, 2)), ph.push_back(in(-1, 2)),
              bd.push_back(in(1, 2)), wd.push_back(in(1, 2));
          const int64_t xd = d[static_cast<size_t>(k)];
          const int64_t dil = xd == 0 ? 0 : (xd - 1) * bd.back() + 1;
          const int64_t eff = (w.back() - 1) * wd.back() + 1;
          if (pl.back() + dil + ph.back() < eff) ph.back() = eff - pl.back() - dil;  // the verifier wants >= 1 window
          const int64_t padded = pl.back() + dil + ph.back();
          od.push_back((padded - eff) / s.back() + 1);
        }
        const std::string kind = *rc::gen::element<std::string>("sum", "max", "min");
        const std::string ft = *rc::gen::element<std::string>("f32", "f16", "si8");
        return fn("%x: " + ty(ft, d),
                  "reduce_window %x kind[" + kind + "] window" + list(w) + " strides" + list(s) + " pad_low" + list(pl) +
                      " pad_high" + list(ph) + " base_dilation" + list(bd) + " window_dilation" + list(wd),
                  ty(ft, od));
      }
      case OpCode::TopK: {
        const int r = rank(1);
        const auto d = dims(r);
        const int64_t axis = in(0, r - 1), k = in(0, d[static_cast<size_t>(axis)]);
        std::vector<int64_t> od = d;
        od[static_cast<size_t>(axis)] = k;
        const std::string res = "(" + ty(t, od) + ", " + ty("si32", od) + ")";
        return "func @f(%x: " + ty(t, d) + ") -> " + res + " {\n  %v, %i = top_k %x k[" + std::to_string(k) + "] axis[" +
               std::to_string(axis) + "]" + (coin() ? " largest[false]" : "") + " -> " + res + "\n  return %v, %i\n}\n";
      }
      case OpCode::ScatterReduce: {
        const int r = rank(1);
        const int64_t axis = in(0, r - 1);
        const auto d = dims(r);
        std::vector<int64_t> id;
        for (int k = 0; k < r; ++k) id.push_back(k == axis ? in(0, max_dim) : in(0, d[static_cast<size_t>(k)]));
        const std::string red = *rc::gen::element<std::string>("add", "max", "min", "replace");
        const std::string ft = *rc::gen::element<std::string>("f32", "f16", "si8");
        return fn("%x: " + ty(ft, d) + ", %i: " + ty(index_dtype(), id) + ", %s: " + ty(ft, id),
                  "scatter_reduce %x, %i, %s axis[" + std::to_string(axis) + "] reduce[" + red + "]", ty(ft, d));
      }
      case OpCode::ScatterAdd: {
        const int R = rank(1);
        const auto d = dims(R);
        // Inserted dims (size-1 windows), the rest are window dims with extents <= x's.
        std::vector<int64_t> iwd, wext;
        for (int k = 0; k < R; ++k) {
          if (coin()) iwd.push_back(k);
          else wext.push_back(in(0, d[static_cast<size_t>(k)]));
        }
        const int nvec = static_cast<int>(in(1, R));
        const auto p = perm(R);
        const std::vector<int64_t> sd2od(p.begin(), p.begin() + nvec);
        const auto batch = dims(static_cast<int>(in(0, 2)));
        const bool vec_last = nvec > 1 || coin();  // index_vector_dim = rank(idx) only for one-entry vectors
        std::vector<int64_t> id = batch;
        int64_t ivd = static_cast<int64_t>(batch.size());
        if (vec_last) id.push_back(nvec);
        // Updates: batch dims then window dims.
        std::vector<int64_t> ud = batch, uwd;
        for (int64_t e : wext) uwd.push_back(static_cast<int64_t>(ud.size())), ud.push_back(e);
        const std::string ft = *rc::gen::element<std::string>("f32", "si8");
        return fn("%x: " + ty(ft, d) + ", %i: " + ty(coin() ? "si32" : "si8", id) + ", %u: " + ty(ft, ud),
                  "scatter_add %x, %i, %u update_window_dims" + list(uwd) + " inserted_window_dims" + list(iwd) +
                      " scatter_dims_to_operand_dims" + list(sd2od) + " index_vector_dim[" + std::to_string(ivd) + "]",
                  ty(ft, d));
      }
      case OpCode::SegmentReduce: {
        const auto d = dims(rank(1));
        const int64_t n = in(0, 3);
        std::vector<int64_t> od = d;
        od[0] = n;
        const std::string kind = coin() ? "sum" : "max";
        const std::string ft = *rc::gen::element<std::string>("f32", "f16", "si8");
        return fn("%x: " + ty(ft, d) + ", %s: " + ty(coin() ? "si32" : "ui8", {d[0]}),
                  "segment_reduce %x, %s kind[" + kind + "] num_segments[" + std::to_string(n) + "]", ty(ft, od));
      }
      default: return "";
    }
  }
};

/// The data-movement ops (every op whose kind has an index map).
inline std::vector<OpCode> data_movement_ops() {
  return {OpCode::Transpose, OpCode::BroadcastTo, OpCode::Reshape, OpCode::Slice, OpCode::Concat,
          OpCode::Pad, OpCode::Tile, OpCode::Iota, OpCode::Take, OpCode::Gather,
          OpCode::DynamicSlice, OpCode::DynamicUpdateSlice, OpCode::ExtractPatches, OpCode::ReduceSum,
          OpCode::ReduceMax, OpCode::ReduceMin, OpCode::Argmax, OpCode::DotGeneral, OpCode::ReduceWindow,
          OpCode::TopK, OpCode::ScatterReduce, OpCode::ScatterAdd, OpCode::SegmentReduce};
}

}  // namespace ptir::testgen
