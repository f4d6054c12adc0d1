// `ptir prove --list-natives` (rules::describe_natives) prints what the rule loader accepts: for every
// predicate and helper, every argument position and every capture kind (%x, $T, $p, $c), a rule with that
// argument loads exactly when the printed spelling names the kind (both come from rules::param_accepts).
// It used to print `lowest(%x|$T)` while `lowest(%x)` was rejected.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rewriter/rules/natives.h"
#include "rewriter/rules/rules.h"

namespace ptir {
namespace {
using rules::CapKind;
using rules::Param;
using rules::Site;
using ptir::AttrRole;

constexpr CapKind kKinds[] = {CapKind::Value, CapKind::Type, CapKind::Attr, CapKind::Lit};

/// A capture of `k` the test rules' source binds; an attribute of the role the parameter needs (a
/// permutation $p, axes $a, per-axis starts $s; any role: $p), since roles are checked too.
std::string capture(CapKind k, rules::ArgRole role = std::nullopt) {
  switch (k) {
    case CapKind::Value: return "%x";
    case CapKind::Type: return "$T";
    case CapKind::Attr:
      return role == AttrRole::AxisList ? "$a" : role == AttrRole::PerAxis ? "$s" : "$p";
    case CapKind::Lit: return "$c";
  }
  return "?";
}

rules::ArgRole role_at(const std::vector<rules::ArgRole>& roles, size_t i) {
  return i < roles.size() ? roles[i] : std::nullopt;
}

/// An argument of parameter `p` at `site` the loader accepts (the first capture kind the table admits).
/// A word argument names something that exists for its native (the loader checks it): a dtype for
/// dtype_is, an attribute for has_attr; attr_is compares the permutation $p with an integer.
std::string accepted(Param p, Site site, rules::ArgRole role, std::string_view native) {
  if (p == Param::Word) return native == "has_attr" ? "accum" : native == "attr_is" ? "1" : "f32";
  if (p == Param::Int) return "1";
  for (CapKind k : kKinds)
    if (rules::param_accepts(p, site, k)) return capture(k, role);
  ADD_FAILURE() << "a capture parameter accepts no capture at all";
  return "%x";
}

/// The arguments of a call with `params`, position `at` replaced by `arg`.
std::string args(std::string_view native, const std::vector<Param>& params, const std::vector<rules::ArgRole>& roles,
                 Site site, size_t at, const std::string& arg) {
  std::string s;
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? ", " : "") + (i == at ? arg : accepted(params[i], site, role_at(roles, i), native));
  return s;
}

/// A source binding one capture of each kind: %x (a value), $c (a literal), $T (a type), and attributes
/// of three roles: $p (a permutation), $a (axis numbers), $s (one integer per axis).
constexpr const char* kSource =
    "transpose(slice(reduce_sum(add(%x, const($c)) : $T) {axes = $a}) {starts = $s}) {perm = $p}";

/// A result that gives a helper's value `call` to an attribute of the helper's result role.
std::string result_using(AttrRole role, const std::string& call) {
  switch (role) {
    case AttrRole::Permutation: return " => transpose(%x) {perm = " + call + "}";
    case AttrRole::AxisList: return " => reduce_sum(%x) {axes = " + call + "} : $T";
    default: return " => tile(%x) {repeats = " + call + "} : $T";
  }
}

bool loads(const std::string& rule, std::string* error) {
  auto r = rules::load_rule_text(rule, "t.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) {
    *error = e->format();
    return false;
  }
  return true;
}

std::string spelled(std::string_view name, const std::vector<Param>& params, Site site) {
  std::string s = std::string(name) + "(";
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + rules::param_spelling(params[i], site);
  return s + ")";
}

/// Checks every argument position and capture kind of one native called through `make(ARGS)`.
template <class Make>
void check_native(std::string_view name, const std::vector<Param>& params, const std::vector<rules::ArgRole>& roles,
                  Site site, Make make, int* checked) {
  const std::string help = rules::describe_natives();
  EXPECT_NE(help.find("  " + spelled(name, params, site) + "  "), std::string::npos)
      << name << ": --list-natives does not print " << spelled(name, params, site);
  // Every other argument accepted: the native loads.
  std::string error;
  EXPECT_TRUE(loads(make(args(name, params, roles, site, params.size(), "")), &error)) << name << ": " << error;
  for (size_t at = 0; at < params.size(); ++at) {
    if (params[at] == Param::Word || params[at] == Param::Int) continue;
    for (CapKind k : kKinds) {
      const std::string rule = make(args(name, params, roles, site, at, capture(k, role_at(roles, at))));
      error.clear();
      const bool ok = loads(rule, &error);
      EXPECT_EQ(ok, rules::param_accepts(params[at], site, k))
          << rule << "\n  --list-natives says " << spelled(name, params, site) << "; the loader "
          << (ok ? "accepts it" : "says: " + error);
      ++*checked;
    }
  }
}

TEST(NativesHelp, EveryPrintedSpellingLoadsAndNoOther) {
  int checked = 0;
  for (const auto& p : rules::all_predicates())
    check_native(p.name, p.params, p.roles, Site::Predicate,
                 [&](const std::string& a) { return "rule r : " + std::string(kSource) + " where " + std::string(p.name) + "(" + a + ") => %x"; },
                 &checked);
  for (const auto& h : rules::all_attr_helpers())
    check_native(h.name, h.params, h.roles, Site::Helper,
                 [&](const std::string& a) {
                   // The helper's result goes to an attribute of its role.
                   const std::string call = std::string(h.name) + "(" + a + ")";
                   return "rule r : " + std::string(kSource) + result_using(h.result_role, call);
                 },
                 &checked);
  for (const auto& h : rules::all_lit_helpers())
    check_native(h.name, h.params, {}, Site::Helper,
                 [&](const std::string& a) { return "rule r : " + std::string(kSource) + " => const(" + std::string(h.name) + "(" + a + "))"; },
                 &checked);
  EXPECT_GT(checked, 4 * 25);  // every native has at least one capture parameter
}

/// Every native's attribute parameters name their role, and an attribute of another role is a load error
/// that names both (docs/rules.md "Helpers"); tests/golden/rules/helper_roles.ptir shows the messages.
TEST(NativesHelp, AttributeArgumentsOfAnotherRoleAreLoadErrors) {
  int checked = 0;
  auto check = [&](std::string_view name, const std::vector<Param>& params, const std::vector<rules::ArgRole>& roles,
                   Site site, auto make) {
    for (size_t at = 0; at < params.size(); ++at) {
      if (params[at] != Param::Attr) continue;
      const rules::ArgRole want = role_at(roles, at);
      // Every attribute parameter of the library's natives names a role, except attr_is (any attribute).
      if (name != "attr_is") EXPECT_TRUE(want.has_value()) << name << " argument " << at + 1 << " names no role";
      for (AttrRole other : {AttrRole::Permutation, AttrRole::AxisList, AttrRole::PerAxis}) {
        if (!want || other == *want) continue;
        const std::string rule = make(args(name, params, roles, site, at, capture(CapKind::Attr, other)));
        std::string error;
        EXPECT_FALSE(loads(rule, &error)) << rule;
        EXPECT_NE(error.find("argument " + std::to_string(at + 1) + " must be " + attr_role_name(*want)), std::string::npos)
            << rule << "\n" << error;
        ++checked;
      }
    }
  };
  for (const auto& p : rules::all_predicates())
    check(p.name, p.params, p.roles, Site::Predicate, [&](const std::string& a) {
      return "rule r : " + std::string(kSource) + " where " + std::string(p.name) + "(" + a + ") => %x";
    });
  for (const auto& h : rules::all_attr_helpers())
    check(h.name, h.params, h.roles, Site::Helper, [&](const std::string& a) {
      const std::string call = std::string(h.name) + "(" + a + ")";
      return "rule r : " + std::string(kSource) + result_using(h.result_role, call);
    });
  // 19 attribute parameters (composes_to_identity 2, is_identity_perm 1, axes_all_size 1, some_axis_size 1,
  // keeps_free_order 3, compose_perm 2, inverse_perm 1, add_ints 2, mul_ints 2, permute_axes 2, sub_ints 2),
  // each tried with the two other roles.
  EXPECT_EQ(checked, 38);
}

TEST(NativesHelp, LowestTakesATypeCaptureOnly) {
  const std::string help = rules::describe_natives();
  EXPECT_NE(help.find("  lowest($T)  "), std::string::npos) << help;
  EXPECT_NE(help.find("  is_float(%x|$T)  "), std::string::npos) << help;
  std::string error;
  EXPECT_TRUE(loads("rule r : reduce_max(%x) {axes = $a} : $T where some_axis_size(%x, $a, 0) => const(lowest($T))", &error))
      << error;
  EXPECT_FALSE(loads("rule r : reduce_max(%x) {axes = $a} : $T where some_axis_size(%x, $a, 0) => const(lowest(%x))", &error));
  EXPECT_NE(error.find("a helper takes '$' captures only"), std::string::npos) << error;
  // A `$` capture of the wrong kind is named with what the helper takes.
  EXPECT_FALSE(loads("rule r : reduce_max(%x) {axes = $a} : $T where some_axis_size(%x, $a, 0) => const(lowest($a))", &error));
  EXPECT_NE(error.find("helper lowest argument 1 cannot be an attribute (it takes $T)"), std::string::npos) << error;
}

}  // namespace
}  // namespace ptir
