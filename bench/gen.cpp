// The benchmark program generator.
#include "bench/gen.h"

#include <vector>

namespace ptir::bench {
namespace {

class Generator {
 public:
  explicit Generator(const GenOptions& o) : opts_(o), rng_(o.seed * 0x9E3779B97F4A7C15ULL + 1) {}

  std::unique_ptr<Program> run() {
    auto p = std::make_unique<Program>();
    p_ = p.get();
    p_->reserve(opts_.num_ops + 16);
    b_ = p_->add_body("main", false);
    t_ = p_->intern_type(TensorType{DType::F32, {4, 8}});
    tt_ = p_->intern_type(TensorType{DType::F32, {8, 4}});
    v_ = p_->intern_type(TensorType{DType::F32, {8}});
    mask_ = p_->intern_type(TensorType{DType::I1, {4, 8}});
    p_->body(b_).result_types = {t_};
    window_.push_back(p_->add_param(b_, t_, "x0"));
    window_.push_back(p_->add_param(b_, t_, "x1"));
    y_ = p_->add_param(b_, v_, "y");
    one_ = splat(1.0);
    neg_zero_ = splat(-0.0);
    two_ = splat(2.0);
    perm_ = make_ints_attr(*p_, "perm", {1, 0});
    lt_ = p_->intern_attrs(AttrSet{{Attr{"dir", AttrValue{AttrKind::Word, {}, "lt", {}}}}});
    while (p_->body(b_).num_insts + 2 < opts_.num_ops) step();
    ValueId last = window_.back();
    p_->set_return(b_, std::span<const ValueId>(&last, 1));
    return p;
  }

 private:
  uint64_t next() {
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  ValueId splat(double d) {
    Tensor t(p_->type(t_));
    for (int64_t i = 0; i < t.size(); ++i) t.set_bits(i, double_to_float(DType::F32, d));
    return p_->literal_value(p_->intern_literal(t));
  }
  ValueId recent() const { return window_.back(); }
  ValueId any() { return window_[next() % window_.size()]; }
  ValueId emit(OpCode op, std::initializer_list<ValueId> ops, TypeId type, AttrSetId attrs = 0) {
    InstId i = p_->create_inst(b_, op, std::span<const ValueId>(ops.begin(), ops.size()), attrs,
                               std::span<const TypeId>(&type, 1));
    return p_->result(i);
  }
  void push(ValueId v) {
    if (window_.size() == 16) window_.erase(window_.begin());
    window_.push_back(v);
  }

  void step() {
    static constexpr OpCode kBin[] = {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Maximum};
    static constexpr OpCode kUn[] = {OpCode::Neg, OpCode::Abs, OpCode::Exp, OpCode::Tanh};
    uint64_t r = next() % 100;
    ValueId a = recent();
    if (r < 30) return push(emit(kBin[next() % 4], {a, any()}, t_));
    if (r < 45) return push(emit(kUn[next() % 4], {a}, t_));
    if (r < 53) return push(emit(OpCode::Transpose, {emit(OpCode::Transpose, {a}, tt_, perm_)}, t_, perm_));
    if (r < 60) {
      ValueId b = emit(OpCode::BroadcastTo, {y_}, t_);
      return push(emit(kBin[next() % 4], {a, emit(kUn[next() % 4], {b}, t_)}, t_));
    }
    if (r < 66) return push(emit(OpCode::Mul, {a, one_}, t_));
    if (r < 71) return push(emit(OpCode::Add, {neg_zero_, a}, t_));
    if (r < 76) return push(emit(OpCode::Cast, {a}, t_));
    if (r < 84) {
      ValueId o = any();
      ValueId d1 = emit(OpCode::Add, {a, o}, t_);
      ValueId d2 = emit(OpCode::Add, {o, a}, t_);
      return push(emit(OpCode::Mul, {d1, d2}, t_));
    }
    if (r < 90) return push(emit(OpCode::Add, {a, two_}, t_));
    if (r < 95) {
      emit(OpCode::Neg, {a}, t_);  // dead
      return;
    }
    ValueId o = any();
    ValueId m = emit(OpCode::Compare, {a, o}, mask_, lt_);
    push(emit(OpCode::Select, {m, a, o}, t_));
  }

  GenOptions opts_;
  uint64_t rng_;
  Program* p_ = nullptr;
  BodyId b_ = 0;
  TypeId t_ = 0, tt_ = 0, v_ = 0, mask_ = 0;
  ValueId y_ = 0, one_ = 0, neg_zero_ = 0, two_ = 0;
  AttrSetId perm_ = 0, lt_ = 0;
  std::vector<ValueId> window_;
};

}  // namespace

std::unique_ptr<Program> generate_program(const GenOptions& opts) { return Generator(opts).run(); }

}  // namespace ptir::bench
