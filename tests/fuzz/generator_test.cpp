/// The program generator: every program it writes parses and verifies, it reaches every op of the op
/// table and every seeded template, it is deterministic for a seed, and it honours its options.
#include "fuzz/gen/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "fuzz/gen/seeded.h"
#include "ir/text.h"
#include "ir/verifier.h"

namespace ptir::fuzz {
namespace {

/// Generates with a seed and fails the test when the program does not parse or verify.
Generated gen_ok(uint64_t seed, const GenOptions& o) {
  PrngChoices c(seed);
  Generated g = generate(c, o);
  EXPECT_TRUE(g.program) << "seed " << seed << ": " << g.error << "\n" << g.text;
  if (g.program) {
    auto d = verify_program(*g.program, 1);
    EXPECT_TRUE(d.empty()) << "seed " << seed << ": " << (d.empty() ? "" : d[0].message) << "\n" << g.text;
  }
  return g;
}

std::set<OpCode> ops_of(const Program& p) {
  std::set<OpCode> s;
  for (BodyId b = 0; b < p.num_bodies(); ++b) p.for_each_inst(b, [&](InstId i) { s.insert(p.op(i)); });
  return s;
}

TEST(Generator, EveryOpIsGeneratedAndEveryProgramVerifies) {
  std::set<OpCode> seen;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Generated g = gen_ok(seed, {.num_ops = 16});
    if (!g.program) continue;
    for (OpCode op : ops_of(*g.program)) seen.insert(op);
  }
  for (int k = 0; k < kNumOps; ++k)
    EXPECT_TRUE(seen.count(static_cast<OpCode>(k))) << "never generated: " << mnemonic(static_cast<OpCode>(k));
}

TEST(Generator, EveryProfileVerifies) {
  for (Profile p : {Profile::Mlp, Profile::Attention, Profile::Conv, Profile::Control})
    for (uint64_t seed = 1; seed <= 60; ++seed) gen_ok(seed, {.num_ops = 14, .profile = p});
}

TEST(Generator, EveryDTypeAppearsAndDTypeListsAreHonoured) {
  std::set<DType> seen;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    Generated g = gen_ok(seed, {.num_ops = 10});
    if (!g.program) continue;
    for (size_t t = 0; t < g.program->num_types(); ++t) seen.insert(g.program->type(static_cast<TypeId>(t)).dtype);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kNumDTypes));
  // Only bf16 data: besides bf16, only the predicate and index dtypes may appear.
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Generated g = gen_ok(seed, {.num_ops = 10, .dtypes = {DType::BF16}});
    if (!g.program) continue;
    for (size_t t = 0; t < g.program->num_types(); ++t) {
      DType d = g.program->type(static_cast<TypeId>(t)).dtype;
      EXPECT_TRUE(d == DType::BF16 || d == DType::I1 || d == DType::SI32 || d == DType::SI64)
          << dtype_name(d) << " in\n"
          << g.text;
    }
  }
}

TEST(Generator, ShapesIncludeRankZeroEmptyAndUnitDims) {
  bool rank0 = false, empty = false, unit = false;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Generated g = gen_ok(seed, {.num_ops = 10});
    if (!g.program) continue;
    for (size_t t = 0; t < g.program->num_types(); ++t) {
      const TensorType& ty = g.program->type(static_cast<TypeId>(t));
      rank0 |= ty.rank() == 0;
      for (int64_t d : ty.dims) empty |= d == 0, unit |= d == 1;
    }
  }
  EXPECT_TRUE(rank0 && empty && unit);
}

TEST(Generator, DeterministicForASeed) {
  for (uint64_t seed : {1u, 7u, 99u}) {
    PrngChoices a(seed), b(seed);
    EXPECT_EQ(generate(a, {.num_ops = 20}).text, generate(b, {.num_ops = 20}).text);
  }
  PrngChoices a(1), b(2);
  EXPECT_NE(generate(a, {.num_ops = 20}).text, generate(b, {.num_ops = 20}).text);
}

TEST(Generator, SeededModePlantsEveryTemplate) {
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Generated g = gen_ok(seed, {.num_ops = 12, .seeded_patterns = true});
    seen.insert(g.templates.begin(), g.templates.end());
  }
  for (const SeedTemplate& t : seed_templates()) EXPECT_TRUE(seen.count(std::string(t.name))) << t.name;
}

TEST(Generator, OptionsSwitchOffOpFamilies) {
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    Generated g = gen_ok(
        seed, {.num_ops = 12, .opaque_ops = false, .effects = false, .regions = false, .transcendentals = false});
    if (!g.program) continue;
    for (OpCode op : ops_of(*g.program)) {
      EXPECT_FALSE(has_trait(op, Opaque) || has_trait(op, Effect) || has_trait(op, Regions) ||
                   has_trait(op, Transcendental))
          << mnemonic(op);
    }
  }
}

/// The target restrictions (GenOptions::only_ops and the form switches, which the MLIR round-trip profile
/// sets): only the listed ops appear, index operands are literals, no interior padding, no float->number
/// cast, integer reductions keep their dtype, dot_general operands come as [batch, free, contract].
TEST(Generator, RestrictionsAreHonoured) {
  const std::vector<OpCode> only = {OpCode::Add, OpCode::Cast, OpCode::Pad, OpCode::DotGeneral, OpCode::ReduceSum,
                                    OpCode::Take, OpCode::DynamicSlice, OpCode::SegmentReduce, OpCode::Return};
  std::set<OpCode> seen;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    Generated g = gen_ok(seed, {.num_ops = 8, .opaque_ops = false, .effects = false, .regions = false,
                                .only_ops = only, .literal_indices = true, .interior_pad = false,
                                .float_to_int_cast = false, .int_accum_change = false, .transposing_dot = false});
    if (!g.program) continue;
    const Program& p = *g.program;
    p.for_each_inst(p.entry(), [&](InstId i) {
      const OpCode op = p.op(i);
      seen.insert(op);
      EXPECT_NE(std::find(only.begin(), only.end(), op), only.end()) << mnemonic(op) << "\n" << g.text;
      const AttrSet& at = p.attrs_of(i);
      if (op == OpCode::Take || op == OpCode::SegmentReduce || op == OpCode::DynamicSlice)
        EXPECT_NE(p.constant_of(p.operand(i, 1)), nullptr) << g.text;
      if (op == OpCode::Pad)
        for (int64_t v : at.ints("interior")) EXPECT_EQ(v, 0) << g.text;
      if (op == OpCode::Cast && is_float(p.type_of(p.operand(i, 0)).dtype)) {
        const DType to = p.type_of(p.result(i)).dtype;
        EXPECT_TRUE(is_float(to) || to == DType::I1) << g.text;
      }
      if (op == OpCode::ReduceSum && !is_float(p.type_of(p.operand(i, 0)).dtype))
        if (const AttrValue* a = at.find("accum"); a && !a->ints.empty())
          EXPECT_EQ(static_cast<DType>(a->ints[0]), p.type_of(p.operand(i, 0)).dtype) << g.text;
      if (op == OpCode::DotGeneral) {  // lhs [batch, free, contract]: batch dims 0.., contract dims last
        const auto& bl = at.ints("batch_lhs");
        const auto& cl = at.ints("contract_lhs");
        const auto& br = at.ints("batch_rhs");
        const auto& cr = at.ints("contract_rhs");
        const int lr = p.type_of(p.operand(i, 0)).rank(), rr = p.type_of(p.operand(i, 1)).rank();
        for (size_t k = 0; k < bl.size(); ++k) EXPECT_EQ(bl[k], static_cast<int64_t>(k)) << g.text;
        for (size_t k = 0; k < br.size(); ++k) EXPECT_EQ(br[k], static_cast<int64_t>(k)) << g.text;
        for (size_t k = 0; k < cl.size(); ++k) EXPECT_EQ(cl[k], lr - static_cast<int64_t>(cl.size() - k)) << g.text;
        for (size_t k = 0; k < cr.size(); ++k) EXPECT_EQ(cr[k], rr - static_cast<int64_t>(cr.size() - k)) << g.text;
      }
    });
  }
  for (OpCode op : {OpCode::Pad, OpCode::DotGeneral, OpCode::Take, OpCode::DynamicSlice, OpCode::SegmentReduce})
    EXPECT_TRUE(seen.count(op)) << mnemonic(op) << " never generated";
}

TEST(Generator, WritesThePrintersForm) {
  // fuzz_pipeline checks the print/parse round trip only where the generator's text and the printed
  // program differ (fuzz/harness/harness.cpp): the generator writes the printer's form, blank lines
  // between bodies included, so that for a program the check was already made by parsing the text.
  int programs = 0;
  for (Profile p : {Profile::Random, Profile::Mlp, Profile::Attention, Profile::Conv, Profile::Control})
    for (uint64_t seed = 1; seed <= 80; ++seed) {
      // Small tensors too: a template's splat on a one-element or empty type is where the forms differed.
      Generated g = gen_ok(seed, {.num_ops = 14,
                                  .profile = p,
                                  .seeded_patterns = seed % 2 == 0,
                                  .max_elements = seed % 3 == 0 ? 2 : 48});
      if (!g.program) continue;
      ++programs;
      EXPECT_EQ(print_program(*g.program), g.text) << "seed " << seed;
    }
  EXPECT_EQ(programs, 400);
}

TEST(Generator, BytesThatRunOutStillGiveAValidProgram) {
  // PrngChoices never runs dry; an all-zero decision stream (every choice its lowest) is the other extreme.
  struct Zero final : Choices {
    int64_t range(int64_t lo, int64_t) override { return lo; }
    uint64_t bits(int) override { return 0; }
  } z;
  Generated g = generate(z, {.num_ops = 8});
  ASSERT_TRUE(g.program) << g.error << "\n" << g.text;
  EXPECT_TRUE(verify_program(*g.program, 1).empty()) << g.text;
}

}  // namespace
}  // namespace ptir::fuzz
