/// The real-number licences of `ptir prove` (verify/prove/licence.h, docs/verification.md "Licences"):
/// which rules get LICENSED (afn) / LICENSED (reassoc), and that rules that are false over the reals,
/// lack the flags, or are not elementwise real arithmetic get none.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "rewriter/rules/rules.h"
#include "verify/prove/licence.h"

namespace ptir::prove {
namespace {

const char* kFast = "assumes nnan ninf nsz reassoc contract afn";

/// The licence of the one rule in `text` ("" when none), and why in `why`.
std::string licence(const std::string& text, std::string* why = nullptr) {
  auto loaded = rules::load_rule_text(text, "t.rules");
  auto* f = std::get_if<rules::RuleFile>(&loaded);
  if (!f) {
    ADD_FAILURE() << "does not load: " << text;
    return "load error";
  }
  std::string w;
  const std::optional<Status> l = licence_of(f->rules.at(0), 4000, &w);
  if (why) *why = w;
  return l ? status_word(*l) : "";
}

std::string rule(const std::string& flags, const std::string& body) {
  return "rule r [" + flags + "] : " + body + "\n";
}

TEST(Licence, CancellationsAreLicensedByReassoc) {
  EXPECT_EQ(licence(rule(kFast, "add(%x, sub(%y, %x)) where is_float(%x) => %y")), "LICENSED (reassoc)");
  EXPECT_EQ(licence(rule("assumes nnan ninf nsz reassoc", "sub(add(%x, %y), %x) where is_float(%x) => %y")),
            "LICENSED (reassoc)");
  EXPECT_EQ(licence(rule(kFast, "add(mul(%a, %c) as %l, mul(%b, %c) as %r) where is_float(%a), one_use(%l), one_use(%r) => mul(add(%a, %b), %c)")),
            "LICENSED (reassoc)");
}

TEST(Licence, FunctionIdentitiesAreLicensedByAfn) {
  EXPECT_EQ(licence(rule(kFast, "mul(exp(%a), exp(%b)) => exp(add(%a, %b))")), "LICENSED (afn)");
  EXPECT_EQ(licence(rule(kFast, "div(exp(%a), exp(%b)) => exp(sub(%a, %b))")), "LICENSED (afn)");
  EXPECT_EQ(licence(rule(kFast, "div(%a, exp(%b)) => mul(%a, exp(neg(%b)))")), "LICENSED (afn)");
  EXPECT_EQ(licence(rule(kFast, "log(exp(%a)) => %a")), "LICENSED (afn)");
  EXPECT_EQ(licence(rule(kFast, "tanh(neg(%x)) => neg(tanh(%x))")), "LICENSED (afn)");
  // Where the source is defined over the reals (x > 0; elsewhere it makes a NaN or -inf: UB under
  // nnan/ninf), exp(log(x)) is x.
  EXPECT_EQ(licence(rule(kFast, "exp(log(%x)) => %x")), "LICENSED (afn)");
  EXPECT_EQ(licence(rule(kFast, "log(sqrt(%x)) => mul(log(%x), splat(0.5))")), "LICENSED (afn)");
}

TEST(Licence, FalseOverTheRealsIsNotLicensed) {
  std::string why;
  EXPECT_EQ(licence(rule(kFast, "exp(add(%a, %b)) => add(exp(%a), exp(%b))"), &why), "");
  EXPECT_NE(why.find("not shown equal"), std::string::npos) << why;
  EXPECT_EQ(licence(rule(kFast, "add(%x, %y) where is_float(%x) => %x")), "");
  // log(a*b) is defined for a, b < 0, log(a) + log(b) is not.
  EXPECT_EQ(licence(rule(kFast, "log(mul(%a, %b)) => add(log(%a), log(%b))")), "");
  // x / x is 1 only where x != 0; the source x * 0 is defined everywhere.
  EXPECT_EQ(licence(rule(kFast, "mul(%x, splat(0)) where is_float(%x) => sub(div(%x, %x), splat(1))")), "");
}

TEST(Licence, NeedsTheFlagsFloatsAndRealArithmetic) {
  std::string why;
  EXPECT_EQ(licence(rule("assumes reassoc", "add(%x, sub(%y, %x)) where is_float(%x) => %y"), &why), "");
  EXPECT_NE(why.find("nnan ninf nsz"), std::string::npos) << why;
  EXPECT_EQ(licence(rule("assumes nnan ninf nsz reassoc", "mul(exp(%a), exp(%b)) => exp(add(%a, %b))"), &why), "");
  EXPECT_NE(why.find("does not assume afn"), std::string::npos) << why;
  EXPECT_EQ(licence(rule("assumes nnan ninf nsz afn", "add(%x, sub(%y, %x)) where is_float(%x) => %y"), &why), "");
  EXPECT_NE(why.find("does not assume reassoc"), std::string::npos) << why;
  EXPECT_EQ(licence(rule(kFast, "add(%x, sub(%y, %x)) => %y"), &why), "");
  EXPECT_NE(why.find("integers"), std::string::npos) << why;
  EXPECT_EQ(licence(rule(kFast, "exp(reshape(%x) as %t) where one_use(%t) => reshape(exp(%x))"), &why), "");
  EXPECT_NE(why.find("not real arithmetic"), std::string::npos) << why;
}

}  // namespace
}  // namespace ptir::prove
