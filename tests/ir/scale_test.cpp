// Linear structure handling: bodies found through a table, named values across the parser's batches,
// the region-depth limit enforced by the verifier (the same one the interpreter has), deep chains
// handled without recursion. Speed itself is measured in bench/, not here.
#include <gtest/gtest.h>

#include <string>

#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"

namespace ptir {
namespace {

TEST(ProgramTables, FindBodyByKindAndName) {
  Program p;
  BodyId f = p.add_body("f", false);
  BodyId rf = p.add_body("f", true);  // a region may share a function's name
  BodyId g = p.add_body("g", false);
  BodyId dup = p.add_body("g", false);  // the first body of a name keeps it
  EXPECT_EQ(p.find_body("f", false), f);
  EXPECT_EQ(p.find_body("f", true), rf);
  EXPECT_EQ(p.find_body("g", false), g);
  EXPECT_NE(dup, g);
  EXPECT_EQ(p.find_body("g", true), kNone);
  EXPECT_EQ(p.find_body("h", false), kNone);
  EXPECT_EQ(p.find_body("", false), kNone);
  std::string name = "f";  // lookups by a view of any string
  EXPECT_EQ(p.find_body(std::string_view(name), false), f);
  Program copy = p;
  EXPECT_EQ(copy.find_body("f", true), rf);
  EXPECT_EQ(copy.find_body("g", false), g);
}

TEST(ProgramTables, EntryIsMainElseTheFirstFunction) {
  Program p;
  p.add_body("main", true);  // a region named main is not the entry
  EXPECT_EQ(p.entry(), kNone);
  BodyId a = p.add_body("a", false);
  EXPECT_EQ(p.entry(), a);
  BodyId m = p.add_body("main", false);
  p.add_body("main", false);
  EXPECT_EQ(p.entry(), m);
}

TEST(ProgramTables, ThousandsOfFunctionsAndRegionReferencesResolve) {
  std::string text;
  const int n = 3000;
  for (int k = 0; k < n; ++k)
    text += "region ^r" + std::to_string(k) + "(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n";
  text += "func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n";
  for (int k = 0; k < n; k += 2)
    text += "  %y" + std::to_string(k) + " = cond %p, %x then[^r" + std::to_string(k) + "] else[^r" +
            std::to_string(k + 1) + "] -> tensor<f32>\n";
  text += "  return %y" + std::to_string(n - 2) + "\n}\n";
  ParseResult r = parse_program(text, "many.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  const Program& p = *r.program;
  EXPECT_EQ(p.entry(), static_cast<BodyId>(n));
  for (int k = 0; k < n; k += 997) EXPECT_EQ(p.find_body("r" + std::to_string(k), true), static_cast<BodyId>(k));
  EXPECT_TRUE(verify_program(p).empty());
  // The region references of the last cond point at the right bodies.
  InstId last = p.inst(p.terminator(p.entry())).prev;
  EXPECT_EQ(p.attrs_of(last).find("then")->ints[0], n - 2);
  EXPECT_EQ(p.attrs_of(last).find("else")->ints[0], n - 1);
}

/// A body of `n` named values, each (after the first) reading the one defined `stride` lines earlier.
std::string named_chain(int n, int stride) {
  std::string s = "func @main(%in_x: tensor<f32>) -> tensor<f32> {\n  %layer0_value = neg %in_x -> tensor<f32>\n";
  for (int k = 1; k < n; ++k)
    s += "  %layer" + std::to_string(k) + "_value = neg %layer" + std::to_string(k < stride ? k - 1 : k - stride) +
         "_value -> tensor<f32>\n";
  return s;
}

TEST(NamedValues, LookupsNearAndFarAcrossBatches) {
  std::string text = named_chain(5000, 1500) + "  return %layer4999_value\n}\n";
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error;
  const Program& p = *r.program;
  // %layer4999_value reads %layer3499_value, which reads %layer1999_value, ...
  ValueId v = p.operand(p.terminator(0), 0);
  for (int k : {4999, 3499, 1999, 499, 498, 497}) {
    EXPECT_EQ(p.name(v), "layer" + std::to_string(k) + "_value");
    v = p.operand(p.def_inst(v), 0);
  }
}

TEST(NamedValues, RedefinitionFarApartIsReported) {
  std::string text = named_chain(3000, 1) + "  %layer5_value = neg %in_x -> tensor<f32>\n  return %layer5_value\n}\n";
  ParseResult r = parse_program(text, "dup.ptir");
  EXPECT_EQ(r.error, "dup.ptir:3002:3: error: redefinition of value '%layer5_value'");
}

TEST(NamedValues, AFarRedefinitionIsReportedBeforeALaterError) {
  std::string text = named_chain(3000, 1) + "  %layer5_value = neg %in_x -> tensor<f32>\n" +
                     "  %z = neg %nowhere -> tensor<f32>\n  return %z\n}\n";
  ParseResult r = parse_program(text, "dup.ptir");
  EXPECT_EQ(r.error, "dup.ptir:3002:3: error: redefinition of value '%layer5_value'");
  std::string undefined = named_chain(3000, 1) + "  %z = neg %nowhere -> tensor<f32>\n  return %z\n}\n";
  EXPECT_EQ(parse_program(undefined, "u.ptir").error, "u.ptir:3002:12: error: use of undefined value '%nowhere'");
}

TEST(NamedValues, AOneLineBodyGrowsTheTableAndKeepsEveryName) {
  // The name table is sized from the line count (here 3 lines for 4000 names): it grows many times, and
  // names moved across each growth are still found, near and far, and still clash with a redefinition.
  std::string body;
  for (int k = 1; k < 4000; ++k)
    body += " %layer" + std::to_string(k) + "_value = neg %layer" + std::to_string(k < 1500 ? k - 1 : k - 1500) +
            "_value -> tensor<f32>";
  const std::string head = "func @main(%in_x: tensor<f32>) -> tensor<f32> {\n %layer0_value = neg %in_x -> tensor<f32>";
  ParseResult r = parse_program(head + body + " return %layer3999_value\n}\n");
  ASSERT_TRUE(r.ok()) << r.error;
  const Program& p = *r.program;
  ValueId v = p.operand(p.terminator(0), 0);
  for (int k : {3999, 2499, 999, 998, 997}) {
    EXPECT_EQ(p.name(v), "layer" + std::to_string(k) + "_value");
    v = p.operand(p.def_inst(v), 0);
  }
  const std::string dup = " %layer7_value = neg %in_x -> tensor<f32>";
  ParseResult d = parse_program(head + body + dup + " return %layer7_value\n}\n", "one.ptir");
  EXPECT_EQ(d.error, "one.ptir:2:" + std::to_string(head.size() - head.find('\n') + body.size() + 1) +
                         ": error: redefinition of value '%layer7_value'");
}

TEST(NamedValues, EachBodyHasItsOwnScopeOverManyBodies) {
  // More bodies than the table has generations (65535): the same names in every function never clash,
  // a name of an earlier function is not visible, and a redefinition in the last one is still found.
  std::string text;
  const int n = 70000;
  for (int k = 0; k < n; ++k)
    text += "func @f" + std::to_string(k) + "(%in_x: tensor<f32>) -> tensor<f32> {\n  %a_b = neg %in_x -> tensor<f32>\n"
            "  %c_d = neg %a_b -> tensor<f32>\n  return %c_d\n}\n";
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.program->num_bodies(), static_cast<size_t>(n));
  ParseResult undefined = parse_program(text + "func @g(%x: tensor<f32>) -> tensor<f32> {\n  return %a_b\n}\n", "u.ptir");
  EXPECT_EQ(undefined.error, "u.ptir:" + std::to_string(5 * n + 2) + ":10: error: use of undefined value '%a_b'");
  ParseResult dup = parse_program(
      text + "func @g(%x: tensor<f32>) -> tensor<f32> {\n  %a_b = neg %x -> tensor<f32>\n  %a_b = neg %x -> tensor<f32>\n"
             "  return %a_b\n}\n", "d.ptir");
  EXPECT_EQ(dup.error, "d.ptir:" + std::to_string(5 * n + 3) + ":3: error: redefinition of value '%a_b'");
}

/// @main runs ^r0, which runs ^r1, ... : `regions` regions, then ^leaf; both branches go down the chain.
std::string chain(size_t regions) {
  std::string s =
      "func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
      "  %y = cond %p, %p, %x then[^r0] else[^r0] -> tensor<f32>\n  return %y\n}\n";
  for (size_t k = 0; k < regions; ++k) {
    std::string next = k + 1 < regions ? "^r" + std::to_string(k + 1) : "^leaf";
    s += "region ^r" + std::to_string(k) + "(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n" +
         "  %n = neg %x -> tensor<f32>\n  %y = cond %p, %p, %n then[" + next + "] else[" + next +
         "] -> tensor<f32>\n  return %y\n}\n";
  }
  return s + "region ^leaf(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n";
}

std::vector<Tensor> chain_inputs() {
  Tensor p(TensorType{DType::I1, {}}), x(TensorType{DType::F32, {}});
  p.set_bits(0, 1);
  x.set_bits(0, double_to_float(DType::F32, 3.0));
  return {p, x};
}

TEST(RegionDepth, TheVerifiersLimitIsTheInterpretersLimit) {
  // kMaxRegionDepth bodies: @main, 126 regions, ^leaf. Verifies and runs to the end.
  ParseResult ok = parse_program(chain(kMaxRegionDepth - 2));
  ASSERT_TRUE(ok.ok()) << ok.error;
  EXPECT_TRUE(verify_program(*ok.program).empty());
  RunResult run = run_program(*ok.program, chain_inputs());
  ASSERT_EQ(run.status, RunStatus::Ok) << run.message;
  EXPECT_EQ(run.results[0].bits(0), double_to_float(DType::F32, 3.0));  // 126 negations
  // One more body: rejected by the verifier, with the limit named; the interpreter refuses it too.
  ParseResult deep = parse_program(chain(kMaxRegionDepth - 1), "deep.ptir");
  ASSERT_TRUE(deep.ok()) << deep.error;
  auto diags = verify_program(*deep.program);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].message,
            "cond: regions nest 129 bodies deep from @main (@main -> ^r0 -> ^r1 -> ^r2 -> ...), more than the "
            "limit of 128");
  EXPECT_NE(run_program(*deep.program, chain_inputs()).status, RunStatus::Ok);
}

TEST(RegionDepth, A20000DeepChainIsRejectedWithoutRecursion) {
  ParseResult r = parse_program(chain(20000));
  ASSERT_TRUE(r.ok()) << r.error;
  auto diags = verify_program(*r.program, 0);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].message.find("regions nest 20002 bodies deep from @main"), std::string::npos)
      << diags[0].message;
  std::string text = print_program(*r.program);
  EXPECT_EQ(parse_program(text).error, "");
}

}  // namespace
}  // namespace ptir

namespace ptir {
namespace {

// A name given from the program's own names (a fold names its constant after the folded value) must
// survive the name storage growing under it: set_name copies a name that points into that storage.
TEST(NamedValues, ANameTakenFromTheProgramItselfSurvivesTheStorageGrowing) {
  Program p;
  const BodyId b = p.add_body("main", false);
  const TypeId t = p.intern_type(TensorType{DType::F32, {}});
  std::vector<ValueId> vs;
  for (int k = 0; k < 64; ++k) vs.push_back(p.add_param(b, t, "value_with_a_long_name_" + std::to_string(k)));
  for (int k = 0; k < 64; ++k) {
    const ValueId v = p.add_param(b, t, "");
    const std::string want(p.name(vs[static_cast<size_t>(k)]));
    p.set_name(v, p.name(vs[static_cast<size_t>(k)]));  // a view into the storage set_name appends to
    EXPECT_EQ(p.name(v), want);
  }
}

}  // namespace
}  // namespace ptir
