/// alpha_equivalent (verify/alpha.h): bodies that differ only in value names are equivalent; a
/// difference in one attribute, a literal's bits (+0.0 against -0.0), an operand's wiring, a type, the
/// fast-math flags or a literal written as a constant instruction is not.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ir/text.h"
#include "verify/alpha.h"

namespace ptir::verify {
namespace {

std::unique_ptr<Program> parse(const std::string& text) {
  auto r = parse_program(text, "<test>");
  EXPECT_TRUE(r.ok()) << r.error << "\n" << text;
  return r.ok() ? std::move(r.program) : nullptr;
}

bool equivalent(const std::string& a, const std::string& b, std::string* why = nullptr) {
  auto p = parse(a), q = parse(b);
  if (!p || !q) return false;
  return alpha_equivalent(*p, p->entry(), *q, q->entry(), why);
}

const std::string kBase =
    "func @f(%x: tensor<f32, 2x3>, %y: tensor<f32, 2x3>) -> tensor<f32, 3x2> {\n"
    "  %a = add %x, dense<-0.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>\n"
    "  %b = mul %a, %y -> tensor<f32, 2x3>\n"
    "  %t = transpose %b perm[1, 0] -> tensor<f32, 3x2>\n"
    "  return %t\n"
    "}\n";

TEST(Alpha, RenamedValuesAreEquivalent) {
  std::string why;
  EXPECT_TRUE(equivalent(kBase,
                         "func @g(%p: tensor<f32, 2x3>, %q: tensor<f32, 2x3>) -> tensor<f32, 3x2> {\n"
                         "  %0 = add %p, dense<-0.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>\n"
                         "  %1 = mul %0, %q -> tensor<f32, 2x3>\n"
                         "  %2 = transpose %1 perm[1, 0] -> tensor<f32, 3x2>\n"
                         "  return %2\n"
                         "}\n",
                         &why))
      << why;
}

TEST(Alpha, OneAttributeDifferenceIsNotEquivalent) {
  const std::string c = "func @f(%x: tensor<si32, 4>) -> tensor<i1, 4> {\n"
                        "  %c = compare %x, %x dir[lt] -> tensor<i1, 4>\n"
                        "  return %c\n"
                        "}\n";
  std::string d = c;
  d.replace(d.find("dir[lt]"), 7, "dir[le]");
  std::string why;
  EXPECT_TRUE(equivalent(c, c));
  EXPECT_FALSE(equivalent(c, d, &why));
  EXPECT_NE(why.find("attributes differ"), std::string::npos) << why;

  const std::string t = "func @f(%x: tensor<f32, 2x2>) -> tensor<f32, 2x2> {\n"
                        "  %t = transpose %x perm[1, 0] -> tensor<f32, 2x2>\n"
                        "  return %t\n"
                        "}\n";
  std::string u = t;
  u.replace(u.find("perm[1, 0]"), 10, "perm[0, 1]");
  EXPECT_FALSE(equivalent(t, u, &why));
  EXPECT_NE(why.find("attributes differ"), std::string::npos) << why;
}

TEST(Alpha, LiteralBitsWiringTypesAndFlagsMatter) {
  std::string plus_zero = kBase;
  plus_zero.replace(plus_zero.find("dense<-0.0>"), 11, "dense<0.0>");
  std::string why;
  EXPECT_FALSE(equivalent(kBase, plus_zero, &why));
  EXPECT_NE(why.find("literal"), std::string::npos) << why;

  std::string swapped = kBase;  // mul %a, %y -> mul %y, %a: commutative, but not the same structure
  swapped.replace(swapped.find("mul %a, %y"), 10, "mul %y, %a");
  EXPECT_FALSE(equivalent(kBase, swapped));

  std::string params = kBase;  // the two parameters exchanged
  params.replace(params.find("add %x"), 6, "add %y");
  params.replace(params.find("mul %a, %y"), 10, "mul %a, %x");
  EXPECT_FALSE(equivalent(kBase, params));

  const std::string f64 = "func @f(%x: tensor<f64>) -> tensor<f64> {\n  %r = neg %x -> tensor<f64>\n  return %r\n}\n";
  const std::string f32 = "func @f(%x: tensor<f32>) -> tensor<f32> {\n  %r = neg %x -> tensor<f32>\n  return %r\n}\n";
  EXPECT_FALSE(equivalent(f64, f32));

  std::string nsz = f32;
  nsz.replace(nsz.find(" {"), 2, " attributes[fastmath[nsz]] {");
  EXPECT_FALSE(equivalent(f32, nsz, &why));

  const std::string inline_lit =
      "func @f(%x: tensor<f32>) -> tensor<f32> {\n  %r = add %x, dense<1.0> : tensor<f32> -> tensor<f32>\n  return %r\n}\n";
  const std::string const_inst =
      "func @f(%x: tensor<f32>) -> tensor<f32> {\n  %c = constant dense<1.0> : tensor<f32> -> tensor<f32>\n"
      "  %r = add %x, %c -> tensor<f32>\n  return %r\n}\n";
  EXPECT_FALSE(equivalent(inline_lit, const_inst));
  EXPECT_TRUE(equivalent(const_inst, const_inst));
}

}  // namespace
}  // namespace ptir::verify
