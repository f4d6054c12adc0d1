// PTIR -> MLIR text (docs/mlir.md "Export"): MLIR's generic op form, one op (or a few) per instruction,
// each the exact counterpart that import_mlir reads back. Needs no MLIR header: it writes text.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "ir/interp.h"
#include "mlir/import.h"

namespace ptir::mlirfe {

std::string mlir_type(const TensorType& t) {
  std::string s = "tensor<";
  for (int64_t d : t.dims) s += std::to_string(d) + "x";
  switch (t.dtype) {
    case DType::I1: s += "i1"; break;
    case DType::SI8: case DType::UI8: s += "i8"; break;
    case DType::SI16: case DType::UI16: s += "i16"; break;
    case DType::SI32: case DType::UI32: s += "i32"; break;
    case DType::SI64: case DType::UI64: s += "i64"; break;
    case DType::BF16: s += "bf16"; break;
    case DType::F16: s += "f16"; break;
    case DType::F32: s += "f32"; break;
    case DType::F64: s += "f64"; break;
  }
  return s + ">";
}

namespace {

/// One element as MLIR's dense literal reads it back bit for bit.
std::string mlir_elem(DType d, uint64_t bits) {
  if (d == DType::I1) return (bits & 1) ? "true" : "false";
  if (!is_float(d)) return std::to_string(int_value(d, bits));
  if (float_is_nan(d, bits) || float_is_inf(d, bits)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llX", dtype_bits(d) / 4, static_cast<unsigned long long>(bits));
    return buf;
  }
  std::string s = format_elem(d, bits);
  // MLIR's float literal needs a '.' before an exponent: 1e-05 -> 1.0e-05.
  size_t e = s.find_first_of("eE");
  if (e != std::string::npos && s.find('.') == std::string::npos) s.insert(e, ".0");
  return s;
}

void nested(std::string& out, const Tensor& t, size_t dim, int64_t& flat) {
  if (dim == t.type.dims.size()) {
    out += mlir_elem(t.dtype(), t.bits(flat++));
    return;
  }
  out += "[";
  for (int64_t k = 0; k < t.type.dims[dim]; ++k) {
    if (k) out += ", ";
    nested(out, t, dim + 1, flat);
  }
  out += "]";
}

}  // namespace

std::string mlir_literal(const Tensor& t) {
  std::string s = "dense<";
  if (t.size() == 0) {
    // MLIR spells every empty tensor `dense<>`.
  } else if (t.type.rank() == 0 || t.is_splat()) {
    s += mlir_elem(t.dtype(), t.bits(0));
  } else {
    int64_t flat = 0;
    nested(s, t, 0, flat);
  }
  return s + "> : " + mlir_type(t.type);
}

namespace {

struct Refused {
  std::string why;
};

class Exporter {
 public:
  Exporter(const Program& p, ExportDialect d) : p_(p), d_(d), caps_(export_caps(d)) {}

  std::string function(BodyId b) {
    const Body& body = p_.body(b);
    if (body.fastmath.has(FastMathFlag::NNaN) || body.fastmath.has(FastMathFlag::NInf))
      throw Refused{"@" + body.name + " has fastmath nnan/ninf: PTIR makes a NaN/infinity UB, MLIR poison"};
    fm_.clear();
    if (body.fastmath.has(FastMathFlag::NSZ)) fm_ = "nsz";
    if (body.fastmath.has(FastMathFlag::Reassoc)) fm_ = fm_.empty() ? "reassoc" : "reassoc,nsz";
    out_.str("");
    names_.clear();
    next_ = 0;
    out_ << "  func.func @" << body.name << "(";
    for (size_t k = 0; k < body.params.size(); ++k) {
      ValueId v = body.params[k];
      check_type(p_.type_of(v));
      names_[v] = "%arg" + std::to_string(k);
      out_ << (k ? ", " : "") << names_[v] << ": " << mlir_type(p_.type_of(v));
    }
    out_ << ") -> (";
    for (size_t k = 0; k < body.result_types.size(); ++k)
      out_ << (k ? ", " : "") << mlir_type(p_.type(body.result_types[k]));
    out_ << ") {\n";
    p_.for_each_inst(b, [&](InstId i) { inst(i); });
    out_ << "  }\n";
    return out_.str();
  }

 private:
  void check_type(const TensorType& t) {
    if (std::find(caps_.dtypes.begin(), caps_.dtypes.end(), t.dtype) == caps_.dtypes.end())
      throw Refused{"dtype " + std::string(dtype_name(t.dtype)) +
                    " (MLIR's arith has signless integers; ptir imports them as signed)"};
  }
  std::string fresh() {
    std::string s = "%";
    s += std::to_string(next_++);
    return s;
  }
  std::string ty(ValueId v) { return mlir_type(p_.type_of(v)); }

  /// The MLIR name of a value; an inline literal becomes a constant op first.
  std::string use(ValueId v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    const Tensor* lit = p_.constant_of(v);
    if (!lit) throw Refused{"a value without a definition"};
    std::string n = constant(*lit);
    names_[v] = n;
    return n;
  }
  std::string constant(const Tensor& t) {
    check_type(t.type);
    std::string n = fresh();
    if (d_ == ExportDialect::Tosa && t.size() > 0)
      out_ << "    " << n << " = \"tosa.const\"() {value = " << mlir_literal(t) << "} : () -> " << mlir_type(t.type)
           << "\n";
    else
      out_ << "    " << n << " = \"arith.constant\"() {value = " << mlir_literal(t) << "} : () -> "
           << mlir_type(t.type) << "\n";
    return n;
  }
  std::string fm_attr() const { return fm_.empty() ? "" : "fastmath = #arith.fastmath<" + fm_ + ">"; }
  /// Emits `%n = "OP"(operands) {attrs} : (types) -> result` and returns %n.
  std::string op(const std::string& name, const std::vector<std::string>& args, const std::vector<std::string>& types,
                 const std::string& attrs, const std::string& result) {
    std::string n = fresh();
    out_ << "    " << n << " = \"" << name << "\"(";
    for (size_t k = 0; k < args.size(); ++k) out_ << (k ? ", " : "") << args[k];
    out_ << ")";
    if (!attrs.empty()) out_ << " {" << attrs << "}";
    out_ << " : (";
    for (size_t k = 0; k < types.size(); ++k) out_ << (k ? ", " : "") << types[k];
    out_ << ") -> " << result << "\n";
    return n;
  }
  std::string splat_const(const TensorType& t, uint64_t bits) { return constant(Tensor::filled(t, bits)); }
  static std::string i64s(const std::vector<int64_t>& v) {
    std::string s = "array<i64";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : ": ") + std::to_string(v[k]);
    return s + ">";
  }

  void inst(InstId i) {
    const OpCode opc = p_.op(i);
    if (opc == OpCode::Return) {
      out_ << "    \"func.return\"(";
      for (uint32_t k = 0; k < p_.num_operands(i); ++k) out_ << (k ? ", " : "") << use(p_.operand(i, k));
      out_ << ")";
      if (p_.num_operands(i)) {
        out_ << " : (";
        for (uint32_t k = 0; k < p_.num_operands(i); ++k) out_ << (k ? ", " : "") << ty(p_.operand(i, k));
        out_ << ") -> ()";
      } else {
        out_ << " : () -> ()";
      }
      out_ << "\n";
      return;
    }
    if (!caps_.ops[static_cast<size_t>(opc)])
      throw Refused{"no exact MLIR spelling for PTIR op '" + std::string(mnemonic(opc)) + "'" +
                    (d_ == ExportDialect::Tosa ? ""
                     : export_caps(ExportDialect::Tosa).ops[static_cast<size_t>(opc)]
                         ? " in --to=arith (--to=tosa has one)"
                         : " in --to=arith")};
    for (uint32_t k = 0; k < p_.num_operands(i); ++k) check_type(p_.type_of(p_.operand(i, k)));
    if (opc == OpCode::TopK) {  // the one op with two results
      check_type(p_.type_of(p_.result(i, 0)));
      check_type(p_.type_of(p_.result(i, 1)));
      auto [values, indices] = top_k(i);
      names_[p_.result(i, 0)] = values;
      names_[p_.result(i, 1)] = indices;
      return;
    }
    if (p_.num_results(i) != 1) throw Refused{std::string(mnemonic(opc)) + " has more than one result"};
    const ValueId res = p_.result(i);
    check_type(p_.type_of(res));
    names_[res] = translate(i, opc, res);
  }

  std::string translate(InstId i, OpCode opc, ValueId res) {
    const TensorType& rt = p_.type_of(res);
    const std::string rty = mlir_type(rt);
    const AttrSet& at = p_.attrs_of(i);
    auto arg = [&](uint32_t k) { return use(p_.operand(i, k)); };
    auto aty = [&](uint32_t k) { return ty(p_.operand(i, k)); };
    auto otype = [&](uint32_t k) -> const TensorType& { return p_.type_of(p_.operand(i, k)); };
    const bool fl = is_float(rt.dtype);
    // TOSA's verifier refuses a dimension of size 0: such instructions use arith/tensor (or are refused).
    bool tosa = d_ == ExportDialect::Tosa;
    auto has_zero_dim = [](const TensorType& t) {
      for (int64_t d : t.dims)
        if (d == 0) return true;
      return false;
    };
    if (has_zero_dim(rt)) tosa = false;
    for (uint32_t k = 0; k < p_.num_operands(i); ++k)
      if (has_zero_dim(p_.type_of(p_.operand(i, k)))) tosa = false;
    auto bin = [&](const std::string& name, const std::string& attrs) {
      return op(name, {arg(0), arg(1)}, {aty(0), aty(1)}, attrs, rty);
    };
    auto un = [&](const std::string& name, const std::string& attrs) { return op(name, {arg(0)}, {aty(0)}, attrs, rty); };
    switch (opc) {
      case OpCode::Constant: {
        const Tensor* t = p_.constant_of(res);
        if (!t) throw Refused{"constant without a literal"};
        return constant(*t);
      }
      case OpCode::Add: case OpCode::Sub: case OpCode::Mul: {
        const char* an = opc == OpCode::Add ? "add" : opc == OpCode::Sub ? "sub" : "mul";
        if (fl && tosa && fm_.empty())
          return bin(std::string("tosa.") + an, opc == OpCode::Mul ? "shift = 0 : i8" : "");
        if (fl) return bin(std::string("arith.") + an + "f", fm_attr());
        return bin(std::string("arith.") + an + "i", "");
      }
      case OpCode::Div:
        return fl ? bin("arith.divf", fm_attr()) : bin("arith.divsi", "");
      case OpCode::Maximum: return fl ? bin("arith.maximumf", fm_attr()) : bin("arith.maxsi", "");
      case OpCode::Minimum: return fl ? bin("arith.minimumf", fm_attr()) : bin("arith.minsi", "");
      case OpCode::Neg:
        if (fl) return un("arith.negf", fm_attr());
        return op("arith.subi", {splat_const(rt, 0), arg(0)}, {rty, rty}, "", rty);
      case OpCode::Abs:
        if (fl) return un("math.absf", fm_attr());
        {  // select(x < 0, 0 - x, x): 0 - MIN wraps to MIN, as PTIR's abs(MIN) = MIN
          std::string z = splat_const(rt, 0);
          std::string bty = mlir_type(TensorType{DType::I1, rt.dims});
          std::string negative = op("arith.cmpi", {arg(0), z}, {rty, rty}, "predicate = 2 : i64", bty);
          std::string flipped = op("arith.subi", {z, arg(0)}, {rty, rty}, "", rty);
          return op("arith.select", {negative, flipped, arg(0)}, {bty, rty, rty}, "", rty);
        }
      case OpCode::Exp: return un("math.exp", fm_attr());
      case OpCode::Log: return un("math.log", fm_attr());
      case OpCode::Tanh: return un("math.tanh", fm_attr());
      case OpCode::Erf: return un("math.erf", fm_attr());
      case OpCode::Sqrt: return un("math.sqrt", fm_attr());
      case OpCode::Rsqrt: return un("math.rsqrt", fm_attr());
      case OpCode::Reciprocal: {
        std::string one = splat_const(rt, double_to_float(rt.dtype, 1.0));
        return op("arith.divf", {one, arg(0)}, {rty, rty}, fm_attr(), rty);
      }
      case OpCode::Compare: return compare(i, at.word("dir"), rty);
      case OpCode::Select:
        return op("arith.select", {arg(0), arg(1), arg(2)}, {aty(0), aty(1), aty(2)}, "", rty);
      case OpCode::StopGradient: return arg(0);
      case OpCode::Cast: return cast(otype(0), rt, arg(0), aty(0));
      case OpCode::Reshape: {
        if (tosa) return un("tosa.reshape", "new_shape = " + i64s(rt.dims));
        Tensor shape(TensorType{DType::SI64, {rt.rank()}});
        for (int k = 0; k < rt.rank(); ++k) shape.set_bits(k, static_cast<uint64_t>(rt.dims[k]));
        std::string s = constant(shape);
        return op("tensor.reshape", {arg(0), s}, {aty(0), mlir_type(shape.type)}, "", rty);
      }
      case OpCode::Transpose: {
        if (rt.num_elements() == 0) return constant(Tensor(rt));  // one value: TOSA refuses zero dims
        if (!tosa) throw Refused{"transpose (arith/tensor have no transpose; --to=tosa has one, for dims >= 1)"};
        const auto& perm = at.ints("perm");
        Tensor pt(TensorType{DType::SI32, {static_cast<int64_t>(perm.size())}});
        for (size_t k = 0; k < perm.size(); ++k) pt.set_bits(k, static_cast<uint64_t>(perm[k]));
        std::string pc = constant(pt);
        return op("tosa.transpose", {arg(0), pc}, {aty(0), mlir_type(pt.type)}, "", rty);
      }
      case OpCode::Slice: {
        const auto& starts = at.ints("starts");
        if (tosa) return un("tosa.slice", "size = " + i64s(rt.dims) + ", start = " + i64s(starts));
        std::vector<int64_t> ones(rt.dims.size(), 1);
        return un("tensor.extract_slice", "operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = " +
                                              i64s(starts) + ", static_sizes = " + i64s(rt.dims) +
                                              ", static_strides = " + i64s(ones));
      }
      case OpCode::Concat: {
        std::vector<std::string> args, types;
        for (uint32_t k = 0; k < p_.num_operands(i); ++k) {
          args.push_back(arg(k));
          types.push_back(aty(k));
        }
        const int64_t axis = at.int_or("axis", 0);
        if (tosa) return op("tosa.concat", args, types, "axis = " + std::to_string(axis) + " : i32", rty);
        return op("tensor.concat", args, types, "dim = " + std::to_string(axis) + " : i64", rty);
      }
      case OpCode::Tile:
        if (!tosa) return tile_by_concat(arg(0), otype(0), at.ints("repeats"));
        return un("tosa.tile", "multiples = " + i64s(at.ints("repeats")));
      case OpCode::BroadcastTo: {
        // numpy: right-aligned; reshape to the result's rank with 1s in front, then tile the 1-dims
        // (arith: tensor.reshape, then tensor.concat of copies along each stretched dim).
        const TensorType& xt = otype(0);
        std::vector<int64_t> dims(rt.rank() - xt.rank(), 1);
        dims.insert(dims.end(), xt.dims.begin(), xt.dims.end());
        std::string x = arg(0);
        std::string xty = aty(0);
        if (!tosa) {
          TensorType mid{xt.dtype, dims};
          x = reshape_to(x, xt, mid, false);
          std::vector<int64_t> mult(rt.rank(), 1);
          for (int k = 0; k < rt.rank(); ++k)
            if (dims[k] != rt.dims[k]) mult[k] = rt.dims[k];
          return tile_by_concat(x, mid, mult);
        }
        if (dims != xt.dims) {
          TensorType mid{xt.dtype, dims};
          x = op("tosa.reshape", {x}, {xty}, "new_shape = " + i64s(dims), mlir_type(mid));
          xty = mlir_type(mid);
        }
        std::vector<int64_t> mult(rt.rank(), 1);
        for (int k = 0; k < rt.rank(); ++k)
          if (dims[k] != rt.dims[k]) mult[k] = rt.dims[k];  // dims[k] is 1 (the verifier's rule)
        if (mult == std::vector<int64_t>(rt.rank(), 1)) return x;
        return op("tosa.tile", {x}, {xty}, "multiples = " + i64s(mult), rty);
      }
      case OpCode::DynamicSlice: {
        // A literal start only: clamped here as PTIR clamps it, then a static slice.
        const Tensor* st = p_.constant_of(p_.operand(i, 1));
        if (!st) throw Refused{"dynamic_slice with a computed start (MLIR's dynamic offsets are index values)"};
        const TensorType& xt = otype(0);
        std::vector<int64_t> starts(xt.rank(), 0);
        for (int k = 0; k < xt.rank(); ++k)
          starts[k] = std::clamp<int64_t>(int_value(st->dtype(), st->bits(k)), 0, xt.dims[k] - rt.dims[k]);
        if (rt.num_elements() == 0) return constant(Tensor(rt));
        return slice_of(arg(0), xt, starts, rt, tosa);
      }
      case OpCode::DynamicUpdateSlice: {
        const Tensor* st = p_.constant_of(p_.operand(i, 2));
        if (!st) throw Refused{"dynamic_update_slice with a computed start (MLIR's dynamic offsets are index values)"};
        const TensorType& xt = otype(0);
        const TensorType& ut = otype(1);
        if (ut.num_elements() == 0) return arg(0);  // nothing replaced
        std::vector<int64_t> starts(xt.rank(), 0);
        for (int k = 0; k < xt.rank(); ++k)
          starts[k] = std::clamp<int64_t>(int_value(st->dtype(), st->bits(k)), 0, xt.dims[k] - ut.dims[k]);
        std::vector<int64_t> ones(xt.rank(), 1);
        return op("tensor.insert_slice", {arg(1), arg(0)}, {aty(1), aty(0)},
                  "operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = " + i64s(starts) +
                      ", static_sizes = " + i64s(ut.dims) + ", static_strides = " + i64s(ones),
                  rty);
      }
      case OpCode::Pad: return pad(i, tosa);
      case OpCode::DotGeneral: return dot_general(i, tosa);
      case OpCode::Argmax: return argmax(i, tosa);
      case OpCode::Take: case OpCode::Gather: return take_or_gather(i, opc, tosa);
      case OpCode::SegmentReduce: return segment_reduce(i, tosa);
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
        return reduce(i, opc, tosa);
      case OpCode::Iota: {
        // No operands: the value is fixed by the type, written as the literal the interpreter computes.
        RunResult r = eval_inst(p_, i, {});
        if (r.status != RunStatus::Ok || r.results.size() != 1) throw Refused{"iota did not evaluate: " + r.message};
        return constant(r.results[0]);
      }
      default:  // export_caps lists the op, but no case spells it: the table and the code disagree
        throw Refused{"export table lists '" + std::string(mnemonic(opc)) + "', export has no case for it"};
    }
  }

  /// The constants that read a float zero's sign once per element, as `1/z < 0` in bf16 (f16 stays
  /// f16; the element is cast first, and a zero stays the same zero): Z3 meets one 8-bit division per
  /// element instead of two in the element type per comparison. Used by argmax and top_k.
  struct ZeroSign {
    TensorType st;                     ///< the type the sign is read in
    std::string sty, zero, one, szero;  ///< zero: a zero of the element type; one, szero: in st
  };
  ZeroSign zero_sign(const TensorType& kt, DType elem) {
    ZeroSign z;
    z.st = TensorType{elem == DType::F16 ? DType::F16 : DType::BF16, kt.dims};
    z.sty = mlir_type(z.st);
    z.zero = splat_const(kt, 0);
    z.one = splat_const(z.st, double_to_float(z.st.dtype, 1.0));
    z.szero = splat_const(z.st, 0);
    return z;
  }
  /// For a zero `z` of type `kt`: whether it is -0.0 (an i1 of type `bty`).
  std::string zero_is_negative(const ZeroSign& zs, const TensorType& kt, const std::string& kty,
                               const std::string& z, const std::string& bty) {
    std::string inv = op("arith.divf", {zs.one, cast(kt, zs.st, z, kty)}, {zs.sty, zs.sty}, "", zs.sty);
    return op("arith.cmpf", {inv, zs.szero}, {zs.sty, zs.sty}, "predicate = 4 : i64", bty);
  }

  /// top_k by ranks, as the SMT encoding states it (docs/semantics.md: descending with largest[true],
  /// else ascending, in the order NaN > +inf > ... > +0.0 > -0.0 > ... > -inf, ties to the lower index,
  /// all NaNs tie). One slice per position along the axis; position i's rank (si64) is the number of
  /// positions j that come before it: j better than i, or j < i and tied. Output j is the slice whose
  /// rank is j (a select chain from the last position down) and its index (a constant: i as PTIR's cast
  /// from si64 gives it). Float comparisons as argmax's, each element's zero sign read once as `1/z < 0`
  /// in bf16. The k outputs are concatenated along the axis.
  std::pair<std::string, std::string> top_k(InstId i) {
    const bool tosa = d_ == ExportDialect::Tosa;
    const TensorType& xt = p_.type_of(p_.operand(i, 0));
    const TensorType& vt = p_.type_of(p_.result(i, 0));
    const TensorType& it = p_.type_of(p_.result(i, 1));
    const AttrSet& at = p_.attrs_of(i);
    const int64_t axis = at.int_or("axis", xt.rank() - 1);
    const bool largest = at.bool_or("largest", true);
    if (vt.num_elements() == 0) return {constant(Tensor(vt)), constant(Tensor(it))};
    const bool fl = is_float(xt.dtype);
    if (fl && !fm_.empty()) throw Refused{"top_k of floats in a function with fast-math flags"};
    const int64_t n = xt.dims[axis], k = vt.dims[axis];
    TensorType kt = xt;
    kt.dims[axis] = 1;
    const std::string kty = mlir_type(kt);
    const TensorType kb{DType::I1, kt.dims}, kr{DType::SI64, kt.dims}, kix{it.dtype, kt.dims};
    const std::string bty = mlir_type(kb), rty = mlir_type(kr), ixty = mlir_type(kix);
    const std::string x = use(p_.operand(i, 0));
    auto bool_op = [&](const char* name, const std::string& a, const std::string& b) {
      return op(name, {a, b}, {bty, bty}, "", bty);
    };
    auto cmpf = [&](int pred, const std::string& a, const std::string& b) {
      return op("arith.cmpf", {a, b}, {kty, kty}, "predicate = " + std::to_string(pred) + " : i64", bty);
    };
    const ZeroSign zs = fl ? zero_sign(kt, xt.dtype) : ZeroSign{};
    const std::string& zero = zs.zero;
    std::vector<std::string> e(static_cast<size_t>(n)), neg(static_cast<size_t>(n)), nan(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int64_t> starts(xt.rank(), 0);
      starts[axis] = j;
      e[j] = slice_of(x, xt, starts, kt, tosa);
      if (fl) {
        neg[j] = zero_is_negative(zs, kt, kty, e[j], bty);
        nan[j] = cmpf(14, e[j], e[j]);
      }
    }
    // a above b in PTIR's order (floats: NaN highest, +0.0 above -0.0)
    auto above = [&](int64_t a, int64_t b) {
      if (!fl) {
        const int pred = xt.dtype == DType::I1 ? 8 : 4;  // ugt on i1, sgt otherwise
        return op("arith.cmpi", {e[a], e[b]}, {kty, kty}, "predicate = " + std::to_string(pred) + " : i64", bty);
      }
      std::string t1 = bool_op("arith.andi", nan[a], bool_op("arith.xori", nan[b], splat_const(kb, 1)));
      std::string t2 = cmpf(2, e[a], e[b]);
      std::string zeros = bool_op("arith.andi", cmpf(1, e[a], e[b]), cmpf(1, e[a], zero));
      std::string t3 = bool_op("arith.andi", zeros, bool_op("arith.andi", neg[b], bool_op("arith.xori", neg[a], neg[b])));
      return bool_op("arith.ori", bool_op("arith.ori", t1, t2), t3);
    };
    // a tied with b: both NaN, or equal and (floats) the same zero sign
    auto tied = [&](int64_t a, int64_t b) {
      if (!fl) return op("arith.cmpi", {e[a], e[b]}, {kty, kty}, "predicate = 0 : i64", bty);
      std::string same_sign = bool_op("arith.xori", bool_op("arith.xori", neg[a], neg[b]), splat_const(kb, 1));
      std::string zero_ok = bool_op("arith.ori", bool_op("arith.xori", cmpf(1, e[a], zero), splat_const(kb, 1)), same_sign);
      std::string eq = bool_op("arith.andi", cmpf(1, e[a], e[b]), zero_ok);
      return bool_op("arith.ori", bool_op("arith.andi", nan[a], nan[b]), eq);
    };
    const std::string r0 = splat_const(kr, 0), r1 = splat_const(kr, 1);
    std::vector<std::string> rank(static_cast<size_t>(n));
    for (int64_t a = 0; a < n; ++a) {
      std::string count = r0;
      for (int64_t b = 0; b < n; ++b) {
        if (b == a) continue;
        std::string better = largest ? above(b, a) : above(a, b);
        std::string before = b < a ? bool_op("arith.ori", better, tied(b, a)) : better;
        std::string one_or_zero = op("arith.select", {before, r1, r0}, {bty, rty, rty}, "", rty);
        count = op("arith.addi", {count, one_or_zero}, {rty, rty}, "", rty);
      }
      rank[a] = count;
    }
    // index v in the index dtype (the verifier requires a dtype that holds every index exactly)
    auto index_const = [&](int64_t v) { return splat_const(kix, static_cast<uint64_t>(v)); };
    std::vector<std::string> vals, idxs;
    for (int64_t j = 0; j < k; ++j) {
      std::string v = e[n - 1], ix = index_const(n - 1), jc = splat_const(kr, static_cast<uint64_t>(j));
      for (int64_t a = n - 2; a >= 0; --a) {
        std::string is = op("arith.cmpi", {rank[a], jc}, {rty, rty}, "predicate = 0 : i64", bty);
        v = op("arith.select", {is, e[a], v}, {bty, kty, kty}, "", kty);
        ix = op("arith.select", {is, index_const(a), ix}, {bty, ixty, ixty}, "", ixty);
      }
      vals.push_back(v);
      idxs.push_back(ix);
    }
    auto join = [&](const std::vector<std::string>& parts, const TensorType& part, const TensorType& whole) {
      if (parts.size() == 1) return parts[0];
      std::vector<std::string> types(parts.size(), mlir_type(part));
      return op(tosa ? "tosa.concat" : "tensor.concat", parts, types,
                tosa ? "axis = " + std::to_string(axis) + " : i32" : "dim = " + std::to_string(axis) + " : i64",
                mlir_type(whole));
    };
    return {join(vals, kt, vt), join(idxs, kix, it)};
  }

  /// PTIR's pad with interior 0. --to=tosa with low/high >= 0 and no empty dim: tosa.pad with a
  /// tosa.const padding and pad_const. Otherwise: along each dim, tensor.concat / tosa.concat of filled
  /// constants before and after x for the positive pads, then one slice for the negative ones (XLA crops
  /// the padded sequence).
  std::string pad(InstId i, bool tosa) {
    const TensorType& xt = p_.type_of(p_.operand(i, 0));
    const TensorType& rt = p_.type_of(p_.result(i));
    const AttrSet& at = p_.attrs_of(i);
    for (int64_t v : at.ints("interior"))
      if (v != 0) throw Refused{"pad with interior padding (tosa.pad and tensor.pad have none)"};
    const auto& lo = at.ints("low");
    const auto& hi = at.ints("high");
    uint64_t vbits = 0;
    if (const AttrValue* v = at.find("value"); v && v->lit.size() == 1) vbits = v->lit.bits(0);
    if (rt.num_elements() == 0) return constant(Tensor(rt));
    bool nonneg = true;
    for (int k = 0; k < xt.rank(); ++k) nonneg = nonneg && lo[k] >= 0 && hi[k] >= 0;
    if (tosa && nonneg) {
      Tensor padding(TensorType{DType::SI64, {xt.rank(), 2}});
      for (int k = 0; k < xt.rank(); ++k) {
        padding.set_bits(2 * k, static_cast<uint64_t>(lo[k]));
        padding.set_bits(2 * k + 1, static_cast<uint64_t>(hi[k]));
      }
      std::string pc = constant(padding);
      Tensor value(TensorType{xt.dtype, {}});
      value.set_bits(0, vbits);
      std::string vc = constant(value);
      return op("tosa.pad", {use(p_.operand(i, 0)), pc, vc}, {mlir_type(xt), mlir_type(padding.type), mlir_type(value.type)},
                "", mlir_type(rt));
    }
    std::string x = use(p_.operand(i, 0));
    TensorType cur = xt;
    std::vector<int64_t> starts(xt.rank(), 0);
    for (int k = 0; k < xt.rank(); ++k) {
      std::vector<std::string> parts, types;
      TensorType next = cur;
      auto fill = [&](int64_t n) {
        TensorType ft = cur;
        ft.dims[k] = n;
        parts.push_back(constant(Tensor::filled(ft, vbits)));
        types.push_back(mlir_type(ft));
        next.dims[k] += n;
      };
      if (lo[k] > 0) fill(lo[k]);
      parts.push_back(x);
      types.push_back(mlir_type(cur));
      if (hi[k] > 0) fill(hi[k]);
      if (parts.size() > 1)
        x = op(tosa ? "tosa.concat" : "tensor.concat", parts, types,
               tosa ? "axis = " + std::to_string(k) + " : i32" : "dim = " + std::to_string(k) + " : i64", mlir_type(next));
      cur = next;
      starts[k] = lo[k] < 0 ? -lo[k] : 0;
    }
    return slice_of(x, cur, starts, rt, tosa);
  }

  /// The row-major coordinates of every element of a tensor of dims `d`.
  static std::vector<std::vector<int64_t>> all_coords(const std::vector<int64_t>& d) {
    std::vector<std::vector<int64_t>> out;
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    std::vector<int64_t> c(d.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
      out.push_back(c);
      for (size_t j = d.size(); j-- > 0;) {
        if (++c[j] < d[j]) break;
        c[j] = 0;
      }
    }
    return out;
  }

  /// take / gather with a literal index tensor (in range: out of range is UB in PTIR, not exported): the
  /// result's elements in row-major order, each a one-element slice of x at its source coordinate,
  /// reshaped to [1], concatenated and reshaped to the result.
  std::string take_or_gather(InstId i, OpCode opc, bool tosa) {
    const TensorType& xt = p_.type_of(p_.operand(i, 0));
    const TensorType& rt = p_.type_of(p_.result(i));
    const Tensor* idx = p_.constant_of(p_.operand(i, 1));
    if (!idx) throw Refused{std::string(mnemonic(opc)) + " with computed indices"};
    std::vector<std::vector<int64_t>> coords;
    if (opc == OpCode::Take) {
      std::vector<int64_t> rest(xt.dims.begin() + 1, xt.dims.end());
      const auto inner = all_coords(rest);
      for (int64_t k = 0; k < idx->size(); ++k) {
        const int64_t v = int_value(idx->dtype(), idx->bits(k));
        if (v < 0 || v >= xt.dims[0]) throw Refused{"take with an index out of range (UB)"};
        for (const auto& j : inner) {
          std::vector<int64_t> c{v};
          c.insert(c.end(), j.begin(), j.end());
          coords.push_back(c);
        }
      }
    } else {
      const int64_t axis = p_.attrs_of(i).int_or("axis", 0);
      const auto pos = all_coords(idx->type.dims);
      for (size_t k = 0; k < pos.size(); ++k) {
        const int64_t v = int_value(idx->dtype(), idx->bits(static_cast<int64_t>(k)));
        if (v < 0 || v >= xt.dims[axis]) throw Refused{"gather with an index out of range (UB)"};
        std::vector<int64_t> c = pos[k];
        c[axis] = v;
        coords.push_back(c);
      }
    }
    if (coords.empty() || rt.num_elements() == 0) return constant(Tensor(rt));
    const TensorType one{xt.dtype, std::vector<int64_t>(xt.rank(), 1)};
    const TensorType flat1{xt.dtype, {1}};
    std::vector<std::string> parts, types;
    const std::string x = use(p_.operand(i, 0));
    for (const auto& c : coords) {
      parts.push_back(reshape_to(slice_of(x, xt, c, one, tosa), one, flat1, tosa));
      types.push_back(mlir_type(flat1));
    }
    const TensorType flat{xt.dtype, {static_cast<int64_t>(parts.size())}};
    std::string cat = parts.size() == 1 ? parts[0]
                                        : op(tosa ? "tosa.concat" : "tensor.concat", parts, types,
                                             tosa ? "axis = 0 : i32" : "dim = 0 : i64", mlir_type(flat));
    return reshape_to(cat, flat, rt, tosa);
  }

  /// segment_reduce with literal segment ids (all in [0, n): an id outside is UB, not exported): per
  /// segment, the rows with its id (one slice each) folded left in row order, sum in the reduce_sum
  /// accumulation dtype (f32 for f16/bf16) and cast back; an empty segment is the identity (+0.0/0,
  /// -inf/MIN) as a constant; the segments concatenated along axis 0.
  std::string segment_reduce(InstId i, bool tosa) {
    const TensorType& xt = p_.type_of(p_.operand(i, 0));
    const TensorType& rt = p_.type_of(p_.result(i));
    const AttrSet& at = p_.attrs_of(i);
    const Tensor* ids = p_.constant_of(p_.operand(i, 1));
    if (!ids) throw Refused{"segment_reduce with computed segment ids"};
    if (xt.dtype == DType::I1) throw Refused{"segment_reduce of booleans"};
    const int64_t n = rt.dims[0];
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(std::max<int64_t>(n, 0)));
    for (int64_t k = 0; k < ids->size(); ++k) {
      const int64_t v = int_value(ids->dtype(), ids->bits(k));
      if (v < 0 || v >= n) throw Refused{"segment_reduce with a segment id out of range (UB)"};
      rows[v].push_back(k);
    }
    if (rt.num_elements() == 0) return constant(Tensor(rt));
    const bool sum = at.word("kind") != "max";
    const OpCode fold = sum ? OpCode::ReduceSum : OpCode::ReduceMax;
    const DType acc = sum && (xt.dtype == DType::F16 || xt.dtype == DType::BF16) ? DType::F32 : xt.dtype;
    TensorType row = xt;
    row.dims[0] = 1;
    TensorType ra{acc, row.dims};
    const std::string x = use(p_.operand(i, 0));
    std::vector<std::string> parts, types;
    for (int64_t s = 0; s < n; ++s) {
      std::string v;
      if (rows[s].empty()) {
        uint64_t bits = 0;
        if (!sum) bits = is_float(xt.dtype) ? double_to_float(xt.dtype, -INFINITY)
                                            : (uint64_t{1} << (dtype_bits(xt.dtype) - 1)) & bits_mask(xt.dtype);
        v = constant(Tensor::filled(row, bits));
      } else {
        for (int64_t r : rows[s]) {
          std::vector<int64_t> starts(xt.rank(), 0);
          starts[0] = r;
          std::string e = slice_of(x, xt, starts, row, tosa);
          if (acc != xt.dtype) e = cast(row, ra, e, mlir_type(row));
          v = v.empty() ? e : fold_step(fold, v, e, ra, tosa);
        }
        if (acc != xt.dtype) v = cast(ra, row, v, mlir_type(ra));
      }
      parts.push_back(v);
      types.push_back(mlir_type(row));
    }
    if (parts.size() == 1) return parts[0];
    return op(tosa ? "tosa.concat" : "tensor.concat", parts, types, tosa ? "axis = 0 : i32" : "dim = 0 : i64",
              mlir_type(rt));
  }

  /// argmax as PTIR defines it: the first index of the maximum along the axis, NaN above every number
  /// (the first NaN wins), +0.0 above -0.0. One slice per position along the axis; the running best and
  /// its index are replaced where the new element is greater under that order:
  /// floats: (e is NaN and best is not) or e > best or (e == best == 0 and 1/e > 1/best);
  /// integers: signed e > best (i1: unsigned). Refused for floats with fast-math flags (nsz would free
  /// the sign of 1/e).
  std::string argmax(InstId i, bool tosa) {
    const TensorType& xt = p_.type_of(p_.operand(i, 0));
    const TensorType& rt = p_.type_of(p_.result(i));
    const AttrSet& at = p_.attrs_of(i);
    const int64_t axis = at.int_or("axis", 0);
    if (rt.num_elements() == 0) return constant(Tensor(rt));
    const bool fl = is_float(xt.dtype);
    if (fl && !fm_.empty()) throw Refused{"argmax of floats in a function with fast-math flags"};
    TensorType kt = xt;
    kt.dims[axis] = 1;
    const std::string kty = mlir_type(kt);
    TensorType kb{DType::I1, kt.dims};
    const std::string bty = mlir_type(kb);
    TensorType ki{rt.dtype, kt.dims};
    const std::string x = use(p_.operand(i, 0));
    auto elem = [&](int64_t k) {
      std::vector<int64_t> starts(xt.rank(), 0);
      starts[axis] = k;
      return slice_of(x, xt, starts, kt, tosa);
    };
    auto cmpf = [&](int pred, const std::string& a, const std::string& b) {
      return op("arith.cmpf", {a, b}, {kty, kty}, "predicate = " + std::to_string(pred) + " : i64", bty);
    };
    auto bool_op = [&](const char* name, const std::string& a, const std::string& b) {
      return op(name, {a, b}, {bty, bty}, "", bty);
    };
    // A zero's sign is read once per element as `1/z < 0` in bf16 (the element cast to bf16 first: a
    // zero stays the same zero) and carried beside the running best, so Z3 meets one 8-bit division
    // per element instead of two in the element type per step (f32 argmaxes timed out).
    const ZeroSign zs = fl ? zero_sign(kt, xt.dtype) : ZeroSign{};
    const std::string& zero = zs.zero;
    auto negative = [&](const std::string& z) { return zero_is_negative(zs, kt, kty, z, bty); };
    std::string best = elem(0);
    std::string best_neg = fl ? negative(best) : "";
    std::string idx = constant(Tensor::filled(ki, 0));
    for (int64_t k = 1; k < xt.dims[axis]; ++k) {
      std::string e = elem(k);
      std::string gt;
      if (fl) {
        std::string t1 = bool_op("arith.andi", cmpf(14, e, e), cmpf(7, best, best));  // e NaN, best not
        std::string t2 = cmpf(2, e, best);                                              // e > best (ordered)
        std::string zeros = bool_op("arith.andi", cmpf(1, e, best), cmpf(1, e, zero));  // both zero
        std::string e_neg = negative(e);
        std::string t3 = bool_op("arith.andi", zeros, bool_op("arith.andi", best_neg, bool_op("arith.xori", e_neg, best_neg)));  // +0.0 after -0.0
        gt = bool_op("arith.ori", bool_op("arith.ori", t1, t2), t3);
        best_neg = op("arith.select", {gt, e_neg, best_neg}, {bty, bty, bty}, "", bty);
      } else {
        const int pred = xt.dtype == DType::I1 ? 8 : 4;  // ugt on i1 (false < true), sgt otherwise
        gt = op("arith.cmpi", {e, best}, {kty, kty}, "predicate = " + std::to_string(pred) + " : i64", bty);
      }
      best = op("arith.select", {gt, e, best}, {bty, kty, kty}, "", kty);
      std::string kc = constant(Tensor::filled(ki, static_cast<uint64_t>(k)));
      idx = op("arith.select", {gt, kc, idx}, {bty, mlir_type(ki), mlir_type(ki)}, "", mlir_type(ki));
    }
    return reshape_to(idx, ki, rt, tosa);
  }

  /// `x` reshaped to `to` (same element count): tosa.reshape, or tensor.reshape with a constant shape.
  std::string reshape_to(const std::string& x, const TensorType& xt, const TensorType& to, bool tosa) {
    if (xt.dims == to.dims) return x;
    if (tosa) return op("tosa.reshape", {x}, {mlir_type(xt)}, "new_shape = " + i64s(to.dims), mlir_type(to));
    Tensor shape(TensorType{DType::SI64, {to.rank()}});
    for (int k = 0; k < to.rank(); ++k) shape.set_bits(k, static_cast<uint64_t>(to.dims[k]));
    std::string sc = constant(shape);
    return op("tensor.reshape", {x, sc}, {mlir_type(xt), mlir_type(shape.type)}, "", mlir_type(to));
  }

  /// PTIR's tile in tensor ops: along each dim with a repeat count r > 1, tensor.concat of r copies.
  std::string tile_by_concat(std::string x, TensorType xt, const std::vector<int64_t>& repeats) {
    for (int k = 0; k < xt.rank(); ++k) {
      const int64_t r = k < static_cast<int>(repeats.size()) ? repeats[k] : 1;
      if (r == 1) continue;
      TensorType to = xt;
      to.dims[k] *= r;
      if (r == 0 || xt.dims[k] == 0) {  // an empty result: the only value of its type
        x = constant(Tensor(to));
      } else {
        std::vector<std::string> args(static_cast<size_t>(r), x), types(static_cast<size_t>(r), mlir_type(xt));
        x = op("tensor.concat", args, types, "dim = " + std::to_string(k) + " : i64", mlir_type(to));
      }
      xt = to;
    }
    return x;
  }

  /// reduce_sum/max/min as PTIR defines them (docs/semantics.md): per output element, a left fold over the
  /// reduced positions in increasing row-major order, from the first element, in the accumulation dtype.
  /// Written as one slice per reduced position (all output elements at once: size 1 on the reduced
  /// axes), each cast to the accumulation dtype, folded with add / maximum / minimum in that order, cast
  /// back and reshaped when keepdims is false. No reduction op of MLIR is used: tosa.reduce_sum leaves the
  /// order open and starts from +0.0, the float tosa.reduce_max/min start from the largest finite number.
  std::string reduce(InstId i, OpCode opc, bool tosa) {
    const TensorType& xt = p_.type_of(p_.operand(i, 0));
    const TensorType& rt = p_.type_of(p_.result(i));
    const AttrSet& at = p_.attrs_of(i);
    if (xt.dtype == DType::I1) throw Refused{"a reduction of booleans"};
    // the default accumulation: f32 for an f16/bf16 sum (docs/semantics.md), the dtype otherwise
    DType acc = opc == OpCode::ReduceSum && (xt.dtype == DType::F16 || xt.dtype == DType::BF16) ? DType::F32 : xt.dtype;
    if (const AttrValue* a = at.find("accum"); a && !a->ints.empty()) acc = static_cast<DType>(a->ints[0]);
    if (!is_float(xt.dtype) && acc != xt.dtype)
      throw Refused{"an integer reduction with another accumulation dtype (its casts saturate)"};
    if (is_float(acc) != is_float(xt.dtype)) throw Refused{"an accumulation dtype of another kind"};
    std::vector<int64_t> axes = at.ints("axes");
    std::sort(axes.begin(), axes.end());
    TensorType kt = xt;  // the keepdims shape
    int64_t n = 1;
    for (int64_t a : axes) {
      n *= xt.dims[a];
      kt.dims[a] = 1;
    }
    const bool fl = is_float(xt.dtype);
    if (n == 0 || kt.num_elements() == 0) {
      // the empty fold's value (or an empty result): the identity in the accumulation dtype, cast back
      uint64_t bits = 0;
      if (opc == OpCode::ReduceMax || opc == OpCode::ReduceMin) {
        const bool mx = opc == OpCode::ReduceMax;
        if (fl) bits = double_to_float(rt.dtype, mx ? -INFINITY : INFINITY);
        else {
          const int w = dtype_bits(rt.dtype);
          const uint64_t smin = uint64_t{1} << (w - 1);
          bits = (mx ? smin : smin - 1) & bits_mask(rt.dtype);
        }
      }
      return constant(Tensor::filled(rt, bits));
    }
    return reshape_to(fold_axes(opc, use(p_.operand(i, 0)), xt, axes, acc, tosa), kt, rt, tosa);
  }

  /// Folds x over `axes` (sorted, at least one position) as PTIR's reductions do; the result has x's dims
  /// with the folded axes of size 1 and x's dtype (the elements cast to `acc` and the result back).
  std::string fold_axes(OpCode opc, const std::string& x, const TensorType& xt, const std::vector<int64_t>& axes,
                        DType acc, bool tosa) {
    TensorType kt = xt;
    int64_t n = 1;
    for (int64_t a : axes) {
      n *= xt.dims[a];
      kt.dims[a] = 1;
    }
    TensorType ka{acc, kt.dims};
    // the reduced coordinates, last axis fastest
    std::vector<int64_t> coord(axes.size(), 0);
    std::string accv;
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> starts(xt.rank(), 0);
      for (size_t j = 0; j < axes.size(); ++j) starts[axes[j]] = coord[j];
      std::string e = slice_of(x, xt, starts, kt, tosa);
      if (acc != xt.dtype) e = cast(kt, ka, e, mlir_type(kt));
      accv = accv.empty() ? e : fold_step(opc, accv, e, ka, tosa);
      for (size_t j = axes.size(); j-- > 0;) {
        if (++coord[j] < xt.dims[axes[j]]) break;
        coord[j] = 0;
      }
    }
    if (acc != xt.dtype) accv = cast(ka, kt, accv, mlir_type(ka));
    return accv;
  }

  std::string transpose_to(const std::string& x, const TensorType& xt, const std::vector<int64_t>& perm, bool tosa,
                           TensorType* out) {
    TensorType to = xt;
    bool identity = true;
    for (size_t k = 0; k < perm.size(); ++k) {
      to.dims[k] = xt.dims[perm[k]];
      identity = identity && perm[k] == static_cast<int64_t>(k);
    }
    *out = to;
    if (identity) return x;
    if (!tosa) throw Refused{"dot_general needing a transpose (arith/tensor have none; --to=tosa has one)"};
    Tensor pt(TensorType{DType::SI32, {static_cast<int64_t>(perm.size())}});
    for (size_t k = 0; k < perm.size(); ++k) pt.set_bits(k, static_cast<uint64_t>(perm[k]));
    std::string pc = constant(pt);
    return op("tosa.transpose", {x, pc}, {mlir_type(xt), mlir_type(pt.type)}, "", mlir_type(to));
  }

  /// x (dims equal to `to` or 1) tiled to `to`: tosa.tile, or tensor.concat copies in --to=arith.
  std::string stretch(const std::string& x, const TensorType& xt, const TensorType& to, bool tosa) {
    std::vector<int64_t> mult(xt.rank(), 1);
    for (int k = 0; k < xt.rank(); ++k)
      if (xt.dims[k] != to.dims[k]) mult[k] = to.dims[k];
    if (mult == std::vector<int64_t>(xt.rank(), 1)) return x;
    if (tosa) return op("tosa.tile", {x}, {mlir_type(xt)}, "multiples = " + i64s(mult), mlir_type(to));
    return tile_by_concat(x, xt, mult);
  }

  /// dot_general as PTIR defines it: lhs and rhs transposed to [batch, free, contract], broadcast to
  /// [batch, lhs free, rhs free, contract], cast to the accumulation dtype D, multiplied (rounded in D),
  /// folded over the contracting positions in row-major order of contract_lhs from the first product,
  /// cast back and reshaped to the result. An empty contraction gives +0.0 (0).
  std::string dot_general(InstId i, bool tosa) {
    const TensorType& lt = p_.type_of(p_.operand(i, 0));
    const TensorType& rt0 = p_.type_of(p_.operand(i, 1));
    const TensorType& rt = p_.type_of(p_.result(i));
    const AttrSet& at = p_.attrs_of(i);
    if (rt.dtype == DType::I1) throw Refused{"dot_general of booleans"};
    const auto& bl = at.ints("batch_lhs");
    const auto& br = at.ints("batch_rhs");
    const auto& cl = at.ints("contract_lhs");
    const auto& cr = at.ints("contract_rhs");
    DType acc = (rt.dtype == DType::F16 || rt.dtype == DType::BF16) ? DType::F32 : rt.dtype;
    if (const AttrValue* a = at.find("accum"); a && !a->ints.empty()) acc = static_cast<DType>(a->ints[0]);
    if (is_float(acc) != is_float(rt.dtype)) throw Refused{"an accumulation dtype of another kind"};
    int64_t nc = 1;
    for (int64_t a : cl) nc *= lt.dims[a];
    if (rt.num_elements() == 0 || nc == 0) return constant(Tensor(rt));  // empty, or all +0.0 / 0
    auto perm_of = [](const TensorType& t, const std::vector<int64_t>& batch, const std::vector<int64_t>& contract,
                      int64_t* nfree) {
      std::vector<int64_t> perm(batch.begin(), batch.end());
      *nfree = 0;
      for (int64_t k = 0; k < t.rank(); ++k)
        if (std::find(batch.begin(), batch.end(), k) == batch.end() &&
            std::find(contract.begin(), contract.end(), k) == contract.end()) {
          perm.push_back(k);
          ++*nfree;
        }
      perm.insert(perm.end(), contract.begin(), contract.end());
      return perm;
    };
    int64_t fl = 0, fr = 0;
    std::vector<int64_t> pl = perm_of(lt, bl, cl, &fl), pr = perm_of(rt0, br, cr, &fr);
    TensorType ltt, rtt;
    std::string l = transpose_to(use(p_.operand(i, 0)), lt, pl, tosa, &ltt);
    std::string r = transpose_to(use(p_.operand(i, 1)), rt0, pr, tosa, &rtt);
    const size_t nb = bl.size(), ncd = cl.size();
    // [B, Fl, Fr, C]
    TensorType full{rt.dtype, {}};
    for (size_t k = 0; k < nb; ++k) full.dims.push_back(ltt.dims[k]);
    for (int64_t k = 0; k < fl; ++k) full.dims.push_back(ltt.dims[nb + k]);
    for (int64_t k = 0; k < fr; ++k) full.dims.push_back(rtt.dims[nb + k]);
    for (size_t k = 0; k < ncd; ++k) full.dims.push_back(ltt.dims[nb + fl + k]);
    TensorType l1 = full, r1 = full;
    for (int64_t k = 0; k < fr; ++k) l1.dims[nb + fl + k] = 1;
    for (int64_t k = 0; k < fl; ++k) r1.dims[nb + k] = 1;
    l = stretch(reshape_to(l, ltt, l1, tosa), l1, full, tosa);
    r = stretch(reshape_to(r, rtt, r1, tosa), r1, full, tosa);
    TensorType fa{acc, full.dims};
    if (acc != rt.dtype) {
      l = cast(full, fa, l, mlir_type(full));
      r = cast(full, fa, r, mlir_type(full));
    }
    const std::string faty = mlir_type(fa);
    std::string prod;
    if (is_float(acc) && tosa && fm_.empty()) prod = op("tosa.mul", {l, r}, {faty, faty}, "shift = 0 : i8", faty);
    else prod = op(is_float(acc) ? "arith.mulf" : "arith.muli", {l, r}, {faty, faty}, is_float(acc) ? fm_attr() : "", faty);
    std::vector<int64_t> caxes;
    for (size_t k = 0; k < ncd; ++k) caxes.push_back(static_cast<int64_t>(nb + fl + fr + k));
    TensorType kt = fa;
    for (int64_t a : caxes) kt.dims[a] = 1;
    std::string sum = fold_axes(OpCode::ReduceSum, prod, fa, caxes, acc, tosa);
    TensorType kr{rt.dtype, kt.dims};
    if (acc != rt.dtype) sum = cast(kt, kr, sum, mlir_type(kt));
    return reshape_to(sum, kr, rt, tosa);
  }

  std::string slice_of(const std::string& x, const TensorType& xt, const std::vector<int64_t>& starts,
                       const TensorType& st, bool tosa) {
    if (xt.dims == st.dims) return x;
    if (tosa) return op("tosa.slice", {x}, {mlir_type(xt)}, "size = " + i64s(st.dims) + ", start = " + i64s(starts),
                        mlir_type(st));
    std::vector<int64_t> ones(st.dims.size(), 1);
    return op("tensor.extract_slice", {x}, {mlir_type(xt)},
              "operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = " + i64s(starts) +
                  ", static_sizes = " + i64s(st.dims) + ", static_strides = " + i64s(ones),
              mlir_type(st));
  }

  /// One step of a reduction's fold: add, maximum or minimum of two values of type t.
  std::string fold_step(OpCode opc, const std::string& a, const std::string& b, const TensorType& t, bool tosa) {
    const std::string ty = mlir_type(t);
    const bool fl = is_float(t.dtype);
    const bool use_tosa = tosa && fl && fm_.empty();  // TOSA ops carry no fast-math flags
    if (opc == OpCode::ReduceSum) {
      if (use_tosa) return op("tosa.add", {a, b}, {ty, ty}, "", ty);
      return op(fl ? "arith.addf" : "arith.addi", {a, b}, {ty, ty}, fl ? fm_attr() : "", ty);
    }
    const bool mx = opc == OpCode::ReduceMax;
    if (use_tosa) return op(mx ? "tosa.maximum" : "tosa.minimum", {a, b}, {ty, ty}, "", ty);
    if (fl) return op(mx ? "arith.maximumf" : "arith.minimumf", {a, b}, {ty, ty}, fm_attr(), ty);
    return op(mx ? "arith.maxsi" : "arith.minsi", {a, b}, {ty, ty}, "", ty);
  }

  std::string compare(InstId i, std::string_view dir, const std::string& rty) {
    const TensorType& t = p_.type_of(p_.operand(i, 0));
    std::string a = use(p_.operand(i, 0)), b = use(p_.operand(i, 1));
    std::string ty = mlir_type(t);
    static const std::map<std::string_view, int> kF = {{"eq", 1}, {"ne", 13}, {"lt", 4}, {"le", 5}, {"gt", 2}, {"ge", 3}};
    static const std::map<std::string_view, int> kS = {{"eq", 0}, {"ne", 1}, {"lt", 2}, {"le", 3}, {"gt", 4}, {"ge", 5}};
    static const std::map<std::string_view, int> kU = {{"eq", 0}, {"ne", 1}, {"lt", 6}, {"le", 7}, {"gt", 8}, {"ge", 9}};
    if (is_float(t.dtype)) {
      auto it = kF.find(dir);
      if (it == kF.end()) throw Refused{"compare dir " + std::string(dir)};
      std::string attrs = "predicate = " + std::to_string(it->second) + " : i64";
      if (!fm_.empty()) attrs += ", " + fm_attr();
      return op("arith.cmpf", {a, b}, {ty, ty}, attrs, rty);
    }
    const auto& m = t.dtype == DType::I1 ? kU : kS;
    auto it = m.find(dir);
    if (it == m.end()) throw Refused{"compare dir " + std::string(dir)};
    return op("arith.cmpi", {a, b}, {ty, ty}, "predicate = " + std::to_string(it->second) + " : i64", rty);
  }

  std::string cast(const TensorType& from, const TensorType& to, const std::string& x, const std::string& xty) {
    const std::string rty = mlir_type(to);
    if (from.dtype == to.dtype) return x;
    if (is_float(from.dtype) && is_float(to.dtype)) {
      const int fb = dtype_bits(from.dtype), tb = dtype_bits(to.dtype);
      if (fb < tb) return op("arith.extf", {x}, {xty}, "", rty);
      if (fb > tb) return op("arith.truncf", {x}, {xty}, "", rty);
      // f16 <-> bf16: exactly to f32, then rounded once.
      TensorType mid{DType::F32, from.dims};
      std::string m = op("arith.extf", {x}, {xty}, "", mlir_type(mid));
      return op("arith.truncf", {m}, {mlir_type(mid)}, "", rty);
    }
    if (from.dtype == DType::I1 && is_float(to.dtype)) return op("arith.uitofp", {x}, {xty}, "", rty);
    if (from.dtype == DType::I1) return op("arith.extui", {x}, {xty}, "", rty);
    if (is_signed_int(from.dtype) && is_float(to.dtype)) return op("arith.sitofp", {x}, {xty}, "", rty);
    if (to.dtype == DType::I1) {
      std::string z = splat_const(from, 0);
      if (is_float(from.dtype)) return op("arith.cmpf", {x, z}, {xty, xty}, "predicate = 13 : i64", rty);
      return op("arith.cmpi", {x, z}, {xty, xty}, "predicate = 1 : i64", rty);
    }
    if (is_signed_int(from.dtype) && is_signed_int(to.dtype) && dtype_bits(from.dtype) < dtype_bits(to.dtype))
      return op("arith.extsi", {x}, {xty}, "", rty);
    if (is_signed_int(from.dtype) && is_signed_int(to.dtype)) {
      // narrowing saturates in PTIR: clamp to the target's range in the source type, then trunci (exact)
      const int w = dtype_bits(to.dtype);
      const uint64_t lo = (~((uint64_t{1} << (w - 1)) - 1)) & bits_mask(from.dtype);
      const uint64_t hi = (uint64_t{1} << (w - 1)) - 1;
      std::string a = op("arith.maxsi", {x, splat_const(from, lo)}, {xty, xty}, "", xty);
      std::string b = op("arith.minsi", {a, splat_const(from, hi)}, {xty, xty}, "", xty);
      return op("arith.trunci", {b}, {xty}, "", rty);
    }
    throw Refused{"cast " + std::string(dtype_name(from.dtype)) + " -> " + dtype_name(to.dtype) +
                  " (saturating; MLIR's casts wrap or make poison)"};
  }

  const Program& p_;
  ExportDialect d_;
  const ExportCaps& caps_;
  std::ostringstream out_;
  std::map<ValueId, std::string> names_;
  int next_ = 0;
  std::string fm_;
};

}  // namespace

std::string export_mlir(const Program& p, ExportDialect d, std::string* error) {
  Exporter e(p, d);
  std::string out = "module {\n";
  try {
    for (BodyId b = 0; b < p.num_bodies(); ++b) {
      if (p.body(b).is_region) throw Refused{"regions (cond/while/scan) are not exported"};
      out += e.function(b);
    }
  } catch (const Refused& r) {
    if (error) *error = r.why;
    return "";
  }
  return out + "}\n";
}

}  // namespace ptir::mlirfe
