// ProgramRewriter: every edit, the listener events it emits, versions and match keys.
#include "rewriter/rewriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "rewriter/describe.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::inst_named;
using testing::parse;
using testing::print;
using testing::value_named;
using testing::verify_error;

/// Records every listener event as a short string.
struct Recorder : RewriteListener {
  std::vector<std::string> events;
  void notify_inserted(InstId i) override { events.push_back("insert " + std::to_string(i)); }
  void notify_modified(InstId i) override { events.push_back("modify " + std::to_string(i)); }
  void notify_replaced(InstId i, std::span<const ValueId>) override { events.push_back("replace " + std::to_string(i)); }
  void notify_erased(InstId i) override { events.push_back("erase " + std::to_string(i)); }
  void notify_match_failure(InstId, std::string_view r) override { events.push_back("fail " + std::string(r)); }
  void notify_unseen_edit() override { events.push_back("unseen"); }
};

constexpr const char* kChain = R"(
func @main(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %a = neg %x -> tensor<f32, 2>
  %b = abs %a -> tensor<f32, 2>
  %c = exp %b -> tensor<f32, 2>
  return %c
}
)";

TEST(ProgramRewriter, InspectsLikeTheProgram) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  InstId a = inst_named(*p, "a"), b = inst_named(*p, "b");
  EXPECT_EQ(rw.op(b), OpCode::Abs);
  EXPECT_EQ(rw.operands(b).size(), 1u);
  EXPECT_EQ(rw.operands(b)[0], rw.value_of(a));
  EXPECT_EQ(rw.inst_of(rw.value_of(a)), a);
  EXPECT_EQ(rw.inst_of(value_named(*p, 0, "x")), kNone);  // parameters have no defining instruction
  std::vector<InstId> users(rw.users_of(rw.value_of(a)).begin(), rw.users_of(rw.value_of(a)).end());
  EXPECT_EQ(users, std::vector<InstId>{b});
  EXPECT_EQ(rw.type_of(rw.value_of(a)).dims, std::vector<int64_t>{2});
  EXPECT_TRUE(rw.is_before(a, b));
  EXPECT_FALSE(rw.is_before(b, a));
}

TEST(ProgramRewriter, InsertBeforeCreatesAndNotifies) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Recorder rec;
  rw.add_listener(&rec);
  InstId b = inst_named(*p, "b");
  ValueId x = value_named(*p, 0, "x");
  ValueId s = rw.insert_before(b, OpCode::Sqrt, {x}, rw.type_id(x));
  InstId si = rw.inst_of(s);
  EXPECT_EQ(rec.events, std::vector<std::string>{"insert " + std::to_string(si)});
  EXPECT_TRUE(rw.is_before(inst_named(*p, "a"), si));
  EXPECT_TRUE(rw.is_before(si, b));
  EXPECT_EQ(verify_error(*p), "");
}

// A plugin's pattern calls insert_before/append_inst with ids of its own: each id is checked in every
// build (a stale one crashed inside create_inst); a refused call inserts nothing, tells no listener,
// returns kNone and records the first error.
TEST(ProgramRewriter, CreationWithIdsThatDoNotExistIsRefused) {
  auto p = parse(kChain);
  const std::string before = print(*p);
  InstId a = inst_named(*p, "a"), b = inst_named(*p, "b");
  ValueId x = value_named(*p, 0, "x");
  const TypeId t = p->type_id(x);
  struct Case {
    const char* want;
    std::function<ValueId(ProgramRewriter&)> call;
  };
  const std::vector<Case> cases = {
      {"insert_before: no such instruction to insert before (nothing inserted)",
       [&](ProgramRewriter& rw) { return rw.insert_before(InstId{999999}, OpCode::Neg, {x}, t); }},
      {"insert_before: no such operand value (nothing inserted)",
       [&](ProgramRewriter& rw) { return rw.insert_before(b, OpCode::Neg, {ValueId{999999}}, t); }},
      {"insert_before: no such result type (nothing inserted)",
       [&](ProgramRewriter& rw) { return rw.insert_before(b, OpCode::Neg, {x}, TypeId{999999}); }},
      {"insert_before: no such attribute set (nothing inserted)",
       [&](ProgramRewriter& rw) { return rw.insert_before(b, OpCode::Neg, {x}, t, AttrSetId{999999}); }},
      {"insert_before: no such op (nothing inserted)",
       [&](ProgramRewriter& rw) { return rw.insert_before(b, static_cast<OpCode>(kNumOps), {x}, t); }},
      {"append_inst: no such body (nothing inserted)",
       [&](ProgramRewriter& rw) {
         const ValueId ops[] = {x};
         return rw.append_inst(BodyId{77}, OpCode::Neg, ops, std::span<const TypeId>(&t, 1));
       }},
      {"append_inst: no such operand value (nothing inserted)",
       [&](ProgramRewriter& rw) {
         const ValueId ops[] = {ValueId{999999}};
         return rw.append_inst(p->inst(a).body, OpCode::Neg, ops, std::span<const TypeId>(&t, 1));
       }},
  };
  for (const Case& c : cases) {
    ProgramRewriter rw(*p);
    Recorder rec;
    rw.add_listener(&rec);
    EXPECT_EQ(c.call(rw), kNone) << c.want;
    EXPECT_EQ(rw.error(), c.want);
    EXPECT_TRUE(rec.events.empty()) << c.want;
    EXPECT_EQ(print(*p), before) << c.want;
  }
  // An erased instruction is no place to insert either.
  ProgramRewriter rw(*p);
  rw.replace_all_uses(rw.value_of(b), rw.value_of(a));
  rw.erase_inst(b);
  ASSERT_EQ(rw.error(), "");
  EXPECT_EQ(rw.insert_before(b, OpCode::Neg, {x}, t), kNone);
  EXPECT_EQ(rw.error(), "insert_before: no such instruction to insert before (nothing inserted)");
}

// set_name of a value that does not exist is refused in every build (it wrote past the value table:
// a plugin crashed ptir opt and ptir prove).
TEST(ProgramRewriter, SetNameOfAValueThatDoesNotExistIsRefused) {
  auto p = parse(kChain);
  const std::string before = print(*p);
  ProgramRewriter rw(*p);
  rw.set_name(ValueId{999999}, "z");
  EXPECT_EQ(rw.error(), "set_name: no such value (nothing renamed)");
  EXPECT_EQ(print(*p), before);
  ProgramRewriter ok(*p);
  ok.set_name(ok.value_of(inst_named(*p, "a")), "renamed");
  EXPECT_EQ(ok.error(), "");
  EXPECT_NE(print(*p).find("%renamed = neg %x"), std::string::npos);
}

TEST(ProgramRewriter, ReplaceAllUsesUpdatesFunctionResults) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Recorder rec;
  rw.add_listener(&rec);
  InstId b = inst_named(*p, "b"), c = inst_named(*p, "c");
  rw.replace_all_uses(rw.value_of(c), rw.value_of(b));  // `return %c` becomes `return %b`
  InstId ret = p->terminator(0);
  EXPECT_EQ(p->operand(ret, 0), rw.value_of(b));
  EXPECT_EQ(rec.events, std::vector<std::string>{"modify " + std::to_string(ret)});
  EXPECT_FALSE(rw.has_uses(rw.value_of(c)));
  EXPECT_NE(print(*p).find("return %b"), std::string::npos);
}

TEST(ProgramRewriter, ReplaceAllUsesUpdatesRegionResults) {
  auto p = parse(R"(
region ^body(%v: tensor<f32>) -> tensor<f32> {
  %n = neg %v -> tensor<f32>
  %m = abs %n -> tensor<f32>
  return %m
}
func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = cond %p, %x then[^body] else[^body] -> tensor<f32>
  return %r
}
)");
  ProgramRewriter rw(*p);
  BodyId region = p->find_body("body", true);
  InstId m = inst_named(*p, "m"), n = inst_named(*p, "n");
  rw.replace_all_uses(rw.value_of(m), rw.value_of(n));
  EXPECT_EQ(p->operand(p->terminator(region), 0), rw.value_of(n));
  EXPECT_EQ(verify_error(*p), "");
}

TEST(ProgramRewriter, ReplaceOpReplacesThenErases) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Recorder rec;
  rw.add_listener(&rec);
  InstId a = inst_named(*p, "a"), b = inst_named(*p, "b"), c = inst_named(*p, "c");
  rw.replace_op(b, rw.value_of(a));  // c now reads %a
  EXPECT_TRUE(rw.is_erased(b));
  EXPECT_EQ(rw.operand(c, 0), rw.value_of(a));
  std::vector<std::string> want = {"replace " + std::to_string(b), "modify " + std::to_string(c),
                                   "erase " + std::to_string(b)};
  EXPECT_EQ(rec.events, want);
  EXPECT_EQ(verify_error(*p), "");
}

TEST(ProgramRewriter, EraseInstDropsOperandUses) {
  auto p = parse(R"(
func @main(%x: tensor<f32>) -> tensor<f32> {
  %a = neg %x -> tensor<f32>
  %dead = abs %a -> tensor<f32>
  return %a
}
)");
  ProgramRewriter rw(*p);
  InstId a = inst_named(*p, "a"), dead = inst_named(*p, "dead");
  EXPECT_FALSE(rw.has_one_use(rw.value_of(a)));
  rw.erase_inst(dead);
  EXPECT_TRUE(rw.has_one_use(rw.value_of(a)));  // only the return is left
  EXPECT_EQ(p->body(0).num_insts, 2u);
}

TEST(ProgramRewriter, MaterializeConstantCreatesAConstantOp) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Tensor t(TensorType{DType::F32, {2}});
  t.set_bits(0, 0x3f800000);
  t.set_bits(1, 0x40000000);
  InstId b = inst_named(*p, "b");
  ValueId c = rw.materialize_constant(b, t);
  EXPECT_EQ(rw.op(rw.inst_of(c)), OpCode::Constant);
  ASSERT_NE(rw.constant_of(c), nullptr);
  EXPECT_EQ(*rw.constant_of(c), t);
  rw.replace_all_uses(rw.value_of(inst_named(*p, "a")), c);
  EXPECT_EQ(verify_error(*p), "");
  EXPECT_NE(print(*p).find("constant dense<[1.0, 2.0]>"), std::string::npos);
}

TEST(ProgramRewriter, LiteralValuesAreSharedByBits) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Tensor pz(TensorType{DType::F32, {}}), nz(TensorType{DType::F32, {}});
  nz.set_bits(0, 0x80000000);
  EXPECT_EQ(rw.literal_value(pz), rw.literal_value(pz));
  EXPECT_NE(rw.literal_value(pz), rw.literal_value(nz));  // -0.0 and +0.0 are different literals
}

TEST(ProgramRewriter, InPlaceUpdateFinalizeNotifiesOnce) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Recorder rec;
  rw.add_listener(&rec);
  InstId c = inst_named(*p, "c");
  ValueId x = value_named(*p, 0, "x");
  uint32_t before = rw.version(c);
  rw.update_in_place(c, [&] { rw.set_operand(c, 0, x); });
  EXPECT_EQ(rw.operand(c, 0), x);
  EXPECT_EQ(rec.events, std::vector<std::string>{"modify " + std::to_string(c)});
  EXPECT_GT(rw.version(c), before);
}

TEST(ProgramRewriter, InPlaceUpdateCancelRestores) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x3>) -> tensor<f32, 3x2> {
  %t = transpose %x perm[1, 0] -> tensor<f32, 3x2>
  return %t
}
)");
  std::string before = print(*p);
  ProgramRewriter rw(*p);
  Recorder rec;
  rw.add_listener(&rec);
  InstId t = inst_named(*p, "t");
  uint32_t v = rw.version(t);
  rw.start_update(t);
  AttrSet s;
  s.attrs.push_back(Attr{"perm", AttrValue{AttrKind::Ints, {0, 1}, {}, {}}});
  rw.set_attrs(t, rw.intern_attrs(s));
  rw.cancel_update(t);
  EXPECT_EQ(print(*p), before);
  EXPECT_TRUE(rec.events.empty());
  EXPECT_EQ(rw.version(t), v);
}

TEST(ProgramRewriter, EmptyUpdateIsNotAChange) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  InstId c = inst_named(*p, "c");
  uint64_t m = rw.num_mutations();
  rw.update_in_place(c, [] {});
  EXPECT_EQ(rw.num_mutations(), m);
}

TEST(ProgramRewriter, MatchKeyChangesWhenAnOperandProducerChanges) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  InstId a = inst_named(*p, "a"), b = inst_named(*p, "b"), c = inst_named(*p, "c");
  uint32_t kb = rw.match_key(b), kc = rw.match_key(c);
  // Rewire a's operand: a changes, so b (which reads a) sees a new key; c (two hops away) does not.
  ValueId x = value_named(*p, 0, "x");
  ValueId s = rw.insert_before(a, OpCode::Sqrt, {x}, rw.type_id(x));
  kb = rw.match_key(b);
  kc = rw.match_key(c);
  rw.update_in_place(a, [&] { rw.set_operand(a, 0, s); });
  EXPECT_NE(rw.match_key(b), kb);
  EXPECT_EQ(rw.match_key(c), kc);
}

TEST(ProgramRewriter, MatchFailureReachesListenersOnly) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  bool built = false;
  EXPECT_FALSE(rw.notify_match_failure([&] {
    built = true;
    return std::string("why");
  }));
  EXPECT_FALSE(built);  // nobody listens: the reason is never built
  Recorder rec;
  rw.add_listener(&rec);
  rw.notify_match_failure("operand is not a transpose");
  EXPECT_EQ(rec.events, std::vector<std::string>{"fail operand is not a transpose"});
}

TEST(ProgramRewriter, ChangeLogRecordsTouchedAndFreed) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  rw.set_track_changes(true);
  InstId a = inst_named(*p, "a"), b = inst_named(*p, "b"), c = inst_named(*p, "c");
  rw.replace_op(b, rw.value_of(a));
  EXPECT_EQ(rw.change_log().touched, std::vector<InstId>{c});
  // `a` lost b's use; b lost c's use (through replace_all_uses) before it was erased.
  EXPECT_NE(std::find(rw.change_log().freed.begin(), rw.change_log().freed.end(), a), rw.change_log().freed.end());
}

TEST(Describe, PrintsOneInstructionAndFingerprintsChange) {
  auto p = parse(kChain);
  EXPECT_EQ(describe_inst(*p, inst_named(*p, "b")), "%b = abs %a -> tensor<f32, 2>");
  uint64_t f0 = program_fingerprint(*p);
  ProgramRewriter rw(*p);
  rw.replace_op(inst_named(*p, "b"), rw.value_of(inst_named(*p, "a")));
  EXPECT_NE(program_fingerprint(*p), f0);
}

}  // namespace
}  // namespace ptir

namespace ptir {
namespace {

// An edit of the Program made around its ProgramRewriter (a plugin that casts away the const of
// rw.program()) reaches no listener. The Program's edit count gives it away: the next edit, bracket or
// check of the rewriter reports it as an error and to the listeners, once; the rewriter's own edits
// never do (a plugin's such edit was CERTIFIED by ptir opt --certify).
TEST(ProgramRewriter, EditsAroundTheRewriterAreReported) {
  auto p = parse(kChain);
  ProgramRewriter rw(*p);
  Recorder rec;
  rw.add_listener(&rec);
  const InstId a = inst_named(*p, "a"), b = inst_named(*p, "b");
  // The rewriter's own edits, of every kind: nothing unseen.
  rw.update_in_place(b, [&] { rw.set_operand(b, 0, rw.operand(a, 0)); });
  rw.set_name(rw.value_of(a), "renamed");
  rw.replace_all_uses(rw.value_of(a), rw.operand(a, 0));
  rw.erase_inst(a);
  rw.check_unseen_edits();
  EXPECT_EQ(rw.error(), "");
  EXPECT_EQ(std::count(rec.events.begin(), rec.events.end(), "unseen"), 0);
  // One edit through the Program itself: reported at the next check, once.
  const InstId c = inst_named(*p, "c");
  const_cast<Program&>(rw.program()).set_operand(c, 0, rw.operand(b, 0));
  rw.check_unseen_edits();
  rw.check_unseen_edits();
  EXPECT_NE(rw.error().find("the program was edited around the ProgramRewriter"), std::string::npos) << rw.error();
  EXPECT_EQ(std::count(rec.events.begin(), rec.events.end(), "unseen"), 1);
  // Or at the rewriter's next edit.
  auto q = parse(kChain);
  ProgramRewriter rw2(*q);
  const_cast<Program&>(rw2.program()).set_name(rw2.value_of(inst_named(*q, "a")), "sneaky");
  rw2.set_name(rw2.value_of(inst_named(*q, "b")), "fine");
  EXPECT_NE(rw2.error().find("edited around the ProgramRewriter"), std::string::npos) << rw2.error();
}

}  // namespace
}  // namespace ptir
