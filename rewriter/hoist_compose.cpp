// compose_prologues: the program a hoisting claims to equal, with every prologue inlined back into the
// function it was hoisted from (rewriter/hoist.h). Built as a fresh Program so that functions keep
// their original signatures and the prologues disappear.
#include <unordered_map>
#include <unordered_set>

#include "rewriter/hoist.h"

namespace ptir {
namespace {

class Composer {
 public:
  Composer(const Program& from, const std::vector<HoistRecord>& records) : from_(from), records_(records) {}

  std::unique_ptr<Program> run(std::string* error) {
    std::unordered_set<std::string> prologues;
    for (const HoistRecord& r : records_) {
      if (from_.find_body(r.function, false) == kNone || from_.find_body(r.prologue, false) == kNone)
        return fail(error, "the hoisted program has no function @" + r.function + " or @" + r.prologue);
      prologues.insert(r.prologue);
    }
    // Every body but the prologues, in the same order (region references are remapped).
    body_map_.assign(from_.num_bodies(), kNone);
    for (BodyId b = 0; b < from_.num_bodies(); ++b) {
      const Body& body = from_.body(b);
      if (!body.is_region && prologues.count(body.name)) continue;
      body_map_[b] = to_->add_body(body.name, body.is_region);
      to_->body(body_map_[b]).fastmath = body.fastmath;  // a function's attributes: its fast-math flags
      for (TypeId t : body.result_types) to_->body(body_map_[b]).result_types.push_back(type(t));
    }
    map_.assign(from_.num_values(), kNone);
    for (BodyId b = 0; b < from_.num_bodies(); ++b) {
      if (body_map_[b] == kNone) continue;
      if (std::string e = fill(b); !e.empty()) return fail(error, e);
    }
    return std::move(to_);
  }

 private:
  static std::unique_ptr<Program> fail(std::string* error, std::string message) {
    if (error) *error = std::move(message);
    return nullptr;
  }

  TypeId type(TypeId t) { return to_->intern_type(from_.type(t)); }

  AttrSetId attrs(AttrSetId a) {
    AttrSet s = from_.attrs(a);
    for (Attr& at : s.attrs)
      if (at.value.kind == AttrKind::Region && !at.value.ints.empty() && at.value.ints[0] >= 0 &&
          static_cast<size_t>(at.value.ints[0]) < body_map_.size())
        at.value.ints[0] = body_map_[at.value.ints[0]];
    return to_->intern_attrs(s);
  }

  ValueId value(ValueId v) {
    if (from_.value(v).kind == ValueKind::Literal)
      return to_->literal_value(to_->intern_literal(from_.literal(from_.value(v).def)));
    return map_[v];
  }

  /// Copies the instructions of `src` (its return excluded) to the end of `dst`; names kept when asked.
  void copy_insts(BodyId src, BodyId dst, bool keep_names) {
    from_.for_each_inst(src, [&](InstId i) {
      if (from_.op(i) == OpCode::Return) return;
      std::vector<ValueId> ops;
      for (uint32_t k = 0; k < from_.num_operands(i); ++k) ops.push_back(value(from_.operand(i, k)));
      std::vector<TypeId> types;
      for (uint32_t k = 0; k < from_.num_results(i); ++k) types.push_back(type(from_.type_id(from_.result(i, k))));
      const InstId c = to_->create_inst(dst, from_.op(i), ops, attrs(from_.inst(i).attrs), types);
      for (uint32_t k = 0; k < from_.num_results(i); ++k) {
        map_[from_.result(i, k)] = to_->result(c, k);
        if (keep_names && !from_.name(from_.result(i, k)).empty())
          to_->set_name(to_->result(c, k), from_.name(from_.result(i, k)));
      }
    });
  }

  std::string fill(BodyId b) {
    const Body& body = from_.body(b);
    const BodyId dst = body_map_[b];
    std::vector<const HoistRecord*> mine;
    if (!body.is_region)
      for (const HoistRecord& r : records_)
        if (r.function == body.name) mine.push_back(&r);
    // The signature from before the first hoisting; then each prologue, in order, computes the
    // parameters its hoisting added.
    size_t keep = mine.empty() ? body.params.size() : mine.front()->num_params_before;
    if (keep > body.params.size()) return "@" + body.name + " has fewer parameters than its hoisting recorded";
    for (size_t k = 0; k < keep; ++k)
      map_[body.params[k]] = to_->add_param(dst, type(from_.type_id(body.params[k])), from_.name(body.params[k]));
    size_t have = keep;
    for (const HoistRecord* r : mine) {
      const BodyId g = from_.find_body(r->prologue, false);
      const Body& pro = from_.body(g);
      if (r->num_params_before != have || pro.params.size() != r->args.size() ||
          have + pro.result_types.size() > body.params.size())
        return "the hoisting of @" + body.name + " into @" + r->prologue + " does not fit the program";
      // The prologue is inlined under the function's flags: only the same flags give the program printed.
      if (pro.fastmath != body.fastmath)
        return "@" + r->prologue + " has other fast-math flags than @" + body.name + " (it is inlined under @" +
               body.name + "'s)";
      for (size_t k = 0; k < r->args.size(); ++k) {
        if (r->args[k] >= have || from_.type_id(pro.params[k]) != from_.type_id(body.params[r->args[k]]))
          return "@" + r->prologue + " parameter " + std::to_string(k) + " does not match @" + body.name;
        map_[pro.params[k]] = map_[body.params[r->args[k]]];
      }
      copy_insts(g, dst, /*keep_names=*/false);  // the function's own names stay unique
      const InstId ret = from_.terminator(g);
      if (ret == kNone) return "@" + r->prologue + " has no return";
      for (uint32_t k = 0; k < from_.num_operands(ret); ++k) {
        const ValueId param = body.params[have + k];
        if (from_.type_id(param) != from_.type_id(from_.operand(ret, k)))
          return "@" + r->prologue + " result " + std::to_string(k) + " does not match @" + body.name;
        map_[param] = value(from_.operand(ret, k));
      }
      have += from_.num_operands(ret);
    }
    if (have != body.params.size())
      return "@" + body.name + " has parameters that no recorded hoisting explains";
    copy_insts(b, dst, /*keep_names=*/true);
    const InstId ret = from_.terminator(b);
    if (ret == kNone) return "@" + body.name + " has no return";
    std::vector<ValueId> results;
    for (uint32_t k = 0; k < from_.num_operands(ret); ++k) results.push_back(value(from_.operand(ret, k)));
    to_->set_return(dst, results);
    return "";
  }

  const Program& from_;
  const std::vector<HoistRecord>& records_;
  std::unique_ptr<Program> to_ = std::make_unique<Program>();
  std::vector<BodyId> body_map_;
  std::vector<ValueId> map_;
};

}  // namespace

std::unique_ptr<Program> compose_prologues(const Program& hoisted, const std::vector<HoistRecord>& records,
                                           std::string* error) {
  return Composer(hoisted, records).run(error);
}

}  // namespace ptir
