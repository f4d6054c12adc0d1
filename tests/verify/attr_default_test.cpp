/// The op table's attribute defaults (ir/ops.cpp AttrSpec::dflt) agree with what the interpreter and the
/// SMT encoders do when the attribute is left out: for every optional attribute with a stated default,
/// a program writing that default is PROVED equal to one leaving it out (check_refinement runs the
/// interpreter's fast pass and Z3, both ways round), on several dtypes. The prover's coverage classes
/// ("NAME OP = not default", verify/prove/coverage.cpp) read the same table through attr_is_default, so
/// the test also checks that the written default is one attr_is_default accepts and that one other
/// value is not. Every (op, attribute) with a default must have a case here: a new one fails the test
/// until it has one.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/attrs.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "verify/refine.h"

namespace ptir::verify {
namespace {

/// One op with its required attributes (`base`, written before `->`), the operand rank, and for each
/// optional attribute its default and one other value, as text.
struct Case {
  OpCode op;
  std::string params;   ///< "%x: tensor<$T, 3x3>"
  std::string base;     ///< "reduce_window %x kind[sum] window[2, 2]"
  std::string results;  ///< "tensor<$T, 2x2>"
  std::string ret;      ///< "%r" or "%v, %i"
  int rank;             ///< operand 0's rank
  struct Opt {
    std::string name, dflt, other;
  };
  std::vector<Opt> opts;
};

std::string subst(std::string s, const std::string& t) {
  for (size_t p; (p = s.find("$T")) != std::string::npos;) s.replace(p, 2, t);
  return s;
}

std::string program(const Case& c, const std::string& attrs, const std::string& t) {
  const std::string lhs = c.ret == "%r" ? "%r" : c.ret;
  return subst("func @f(" + c.params + ") -> " + c.results + " {\n  " + lhs + " = " + c.base + attrs + " -> " +
                   c.results + "\n  return " + c.ret + "\n}\n",
               t);
}

std::vector<Case> cases() {
  return {
      {OpCode::Pad, "%x: tensor<$T, 2x3>", "pad %x low[1, 0] high[0, 1]", "tensor<$T, 3x4>", "%r", 2,
       {{"value", "[0]", "[1]"}}},
      {OpCode::ReduceWindow, "%x: tensor<$T, 3x3>", "reduce_window %x kind[sum] window[2, 2]", "tensor<$T, 2x2>", "%r", 2,
       {{"strides", "[1, 1]", "[1, 2]"},
        {"pad_low", "[0, 0]", "[1, 0]"},
        {"pad_high", "[0, 0]", "[0, -1]"},
        {"base_dilation", "[1, 1]", "[2, 1]"},
        {"window_dilation", "[1, 1]", "[1, 2]"}}},
      {OpCode::ExtractPatches, "%x: tensor<$T, 3x3>", "extract_patches %x window[2, 2]", "tensor<$T, 2x2x4>", "%r", 2,
       {{"strides", "[1, 1]", "[2, 1]"},
        {"dilation", "[1, 1]", "[1, 2]"},
        {"pad_low", "[0, 0]", "[1, 1]"},
        {"pad_high", "[0, 0]", "[0, 1]"},
        {"value", "[0]", "[3]"}}},
      {OpCode::Argmax, "%x: tensor<$T, 2x3>", "argmax %x axis[1]", "tensor<si32, 2>", "%r", 2,
       {{"keepdims", "[false]", "[true]"}}},
      {OpCode::TopK, "%x: tensor<$T, 2x4>", "top_k %x k[2]", "(tensor<$T, 2x2>, tensor<si32, 2x2>)", "%v, %i", 2,
       {{"axis", "[1]", "[0]"}, {"largest", "[true]", "[false]"}}},
  };
}

std::unique_ptr<Program> parse(const std::string& text) {
  ParseResult r = parse_program(text, "<test>");
  EXPECT_TRUE(r.ok()) << r.error << "\n" << text;
  if (!r.ok()) return nullptr;
  auto d = verify_program(*r.program);
  EXPECT_TRUE(d.empty()) << (d.empty() ? "" : d[0].message) << "\n" << text;
  return d.empty() ? std::move(r.program) : nullptr;
}

TEST(AttrDefaults, EveryStatedDefaultHasACase) {
  std::set<std::pair<OpCode, std::string>> covered;
  for (const Case& c : cases())
    for (const Case::Opt& o : c.opts) covered.insert({c.op, o.name});
  for (int k = 0; k < kNumOps; ++k) {
    const OpCode op = static_cast<OpCode>(k);
    for (const AttrSpec& s : op_attr_schema(op)) {
      const bool stated = s.dflt == AttrDefault::Zeros || s.dflt == AttrDefault::Ones || s.dflt == AttrDefault::Zero ||
                          s.dflt == AttrDefault::False || s.dflt == AttrDefault::True || s.dflt == AttrDefault::Last;
      if (stated) EXPECT_TRUE(covered.count({op, std::string(s.name)})) << mnemonic(op) << " " << s.name << " has no case";
      if (s.dflt != AttrDefault::None) EXPECT_FALSE(s.required) << mnemonic(op) << " " << s.name;
    }
  }
}

TEST(AttrDefaults, WritingTheDefaultChangesNothingAndAnotherValueIsNotDefault) {
  for (const Case& c : cases())
    for (const std::string t : {"f32", "bf16", "si32", "ui8"}) {
      auto absent = parse(program(c, "", t));
      ASSERT_TRUE(absent);
      for (const Case::Opt& o : c.opts) {
        const std::string where = std::string(mnemonic(c.op)) + " " + o.name + " " + t;
        // A float fill is written as a float.
        const std::string dflt = o.name == "value" && (t == "f32" || t == "bf16") ? "[0.0]" : o.dflt;
        auto written = parse(program(c, " " + o.name + dflt, t));
        ASSERT_TRUE(written) << where;
        const AttrSpec* spec = find_attr_spec(c.op, o.name);
        ASSERT_TRUE(spec) << where;
        const InstId w = written->body(written->entry()).first;
        const AttrValue* v = written->attrs_of(w).find(o.name);
        ASSERT_TRUE(v) << where;
        EXPECT_TRUE(attr_is_default(*spec, *v, c.rank)) << where << ": the written default is not default";
        const Verdict fwd = check_refinement(*absent, *written);
        EXPECT_TRUE(fwd.proved()) << where << ": " << verdict_word(fwd);
        const Verdict back = check_refinement(*written, *absent);
        EXPECT_TRUE(back.proved()) << where << ": " << verdict_word(back);
        // Another value: not the default (the coverage class fires on it). Only parsed: another value
        // may change the result type, which attr_is_default does not look at.
        ParseResult other = parse_program(program(c, " " + o.name + o.other, t), "<other>");
        ASSERT_TRUE(other.ok()) << where << ": " << other.error;
        const AttrValue* ov = other.program->attrs_of(other.program->body(other.program->entry()).first).find(o.name);
        ASSERT_TRUE(ov) << where;
        EXPECT_FALSE(attr_is_default(*spec, *ov, c.rank)) << where << ": " << o.other << " counted as the default";
      }
    }
}

}  // namespace
}  // namespace ptir::verify
