/// The text format: parse/print fixed point, exact rebuild (ops, attributes, types, literal bits, names),
/// and one diagnostic per kind of malformed input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/text.h"

namespace ptir {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Structural identity of two programs, body by body, instruction by instruction.
void expect_identical(const Program& a, const Program& b, const std::string& what) {
  ASSERT_EQ(a.num_bodies(), b.num_bodies()) << what;
  for (BodyId bi = 0; bi < a.num_bodies(); ++bi) {
    const Body& x = a.body(bi);
    const Body& y = b.body(bi);
    ASSERT_EQ(x.name, y.name) << what;
    ASSERT_EQ(x.is_region, y.is_region) << what;
    ASSERT_EQ(x.params.size(), y.params.size()) << what;
    for (size_t k = 0; k < x.params.size(); ++k) {
      EXPECT_EQ(a.name(x.params[k]), b.name(y.params[k])) << what;
      EXPECT_EQ(a.type_of(x.params[k]), b.type_of(y.params[k])) << what;
    }
    std::vector<InstId> xi, yi;
    a.for_each_inst(bi, [&](InstId i) { xi.push_back(i); });
    b.for_each_inst(bi, [&](InstId i) { yi.push_back(i); });
    ASSERT_EQ(xi.size(), yi.size()) << what;
    for (size_t k = 0; k < xi.size(); ++k) {
      InstId i = xi[k], j = yi[k];
      ASSERT_EQ(a.op(i), b.op(j)) << what;
      EXPECT_EQ(a.attrs_of(i), b.attrs_of(j)) << what << " attrs of inst " << k;
      ASSERT_EQ(a.num_operands(i), b.num_operands(j)) << what;
      for (uint32_t o = 0; o < a.num_operands(i); ++o) {
        ValueId u = a.operand(i, o), v = b.operand(j, o);
        EXPECT_EQ(a.name(u), b.name(v)) << what;
        EXPECT_EQ(a.type_of(u), b.type_of(v)) << what;
        const Tensor* lu = a.value(u).kind == ValueKind::Literal ? a.constant_of(u) : nullptr;
        const Tensor* lv = b.value(v).kind == ValueKind::Literal ? b.constant_of(v) : nullptr;
        ASSERT_EQ(lu == nullptr, lv == nullptr) << what;
        if (lu) {
          EXPECT_EQ(*lu, *lv) << what;  // bit-exact
        }
      }
      ASSERT_EQ(a.num_results(i), b.num_results(j)) << what;
      for (uint32_t r = 0; r < a.num_results(i); ++r) {
        EXPECT_EQ(a.name(a.result(i, r)), b.name(b.result(j, r))) << what;
        EXPECT_EQ(a.type_of(a.result(i, r)), b.type_of(b.result(j, r))) << what;
      }
    }
  }
}

void check_round_trip(const std::string& text, const std::string& what) {
  ParseResult r1 = parse_program(text, what);
  ASSERT_TRUE(r1.ok()) << r1.error;
  std::string p1 = print_program(*r1.program);
  ParseResult r2 = parse_program(p1, what + " (printed)");
  ASSERT_TRUE(r2.ok()) << r2.error << "\n" << p1;
  expect_identical(*r1.program, *r2.program, what);
  EXPECT_EQ(p1, print_program(*r2.program)) << what << ": print is not a fixed point";
}

TEST(Text, RoundTripIsExactOnEveryRepositoryFile) {
  std::vector<fs::path> roots = {fs::path(PTIR_SOURCE_DIR) / "corpus", fs::path(PTIR_SOURCE_DIR) / "tests" / "golden",
                                 fs::path(PTIR_SHARED_DIR) / "spec" / "examples"};
  int checked = 0;
  for (const auto& root : roots) {
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().extension() != ".ptir") continue;
      std::string text = slurp(e.path());
      ParseResult r = parse_program(text, e.path().string());
      if (!r.ok()) {
        // Only the malformed-input goldens may fail to parse.
        EXPECT_NE(e.path().string().find("golden/errors"), std::string::npos) << r.error;
        continue;
      }
      check_round_trip(text, e.path().string());
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

TEST(Text, LiteralBitsSurviveRoundTrip) {
  check_round_trip(R"(
func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {
  %a = add %x, dense<[-0.0, 0x7FC00001, 0xFFC00000, 1.0e-45]> : tensor<f32, 4> -> tensor<f32, 4>
  %b = constant dense<[65504.0, 6.1e-05, -0.0, 0x7E01]> : tensor<f16, 4> -> tensor<f16, 4>
  %c = constant dense<[0.1, -3.3895314e38, 9.2e-41]> : tensor<bf16, 3> -> tensor<bf16, 3>
  %d = constant dense<[18446744073709551615, 0]> : tensor<ui64, 2> -> tensor<ui64, 2>
  %e = constant dense<[-9223372036854775808]> : tensor<si64, 1> -> tensor<si64, 1>
  %f = constant dense<[[true, false]]> : tensor<i1, 1x2> -> tensor<i1, 1x2>
  %g = constant dense<[[], []]> : tensor<f64, 2x0> -> tensor<f64, 2x0>
  %h = constant dense<2.5> : tensor<f64> -> tensor<f64>
  return %a
}
)", "literals");
}

TEST(Text, PrinterUsesCanonicalForms) {
  ParseResult r = parse_program(R"(
func @f(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %c = constant value[dense<[1.0, 1.0]> : tensor<f32, 2>] -> tensor<f32, 2>
  %y = add(%x, %c) -> tensor<f32, 2>
  return %y
}
)");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(print_program(*r.program),
            "func @f(%x: tensor<f32, 2>) -> tensor<f32, 2> {\n"
            "  %c = constant dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>\n"
            "  %y = add %x, %c -> tensor<f32, 2>\n"
            "  return %y\n"
            "}\n");
}

TEST(Text, EntryIsMainElseFirstFunc) {
  ParseResult r = parse_program("func @a() -> tensor<f32> {\n  %c = constant dense<1.0> : tensor<f32> -> tensor<f32>\n  return %c\n}\n"
                                "func @main() -> tensor<f32> {\n  %c = constant dense<2.0> : tensor<f32> -> tensor<f32>\n  return %c\n}\n");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.program->body(r.program->entry()).name, "main");
}

struct BadInput {
  const char* text;
  const char* message;  ///< expected "FILE:LINE:COL: error: ..." suffix after the file name
};

class TextErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(TextErrors, GivesOneLocatedMessage) {
  ParseResult r = parse_program(GetParam().text, "in.ptir");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, std::string("in.ptir:") + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, TextErrors,
    ::testing::Values(
        BadInput{"", "1:1: error: empty file: expected 'func' or 'region'"},
        BadInput{"func @f() -> tensor<f32> {\n  %y = frob %x -> tensor<f32>\n  return %y\n}\n",
                 "2:8: error: unknown op 'frob'"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  %y = add %x -> tensor<f32>\n  return %y\n}\n",
                 "2:8: error: op 'add' expects 2 operands, got 1"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  %y = neg %z -> tensor<f32>\n  return %y\n}\n",
                 "2:12: error: use of undefined value '%z'"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  %x = neg %x -> tensor<f32>\n  return %x\n}\n",
                 "2:3: error: redefinition of value '%x'"},
        BadInput{"func @f(%x: tensor<f33>) -> tensor<f32> {\n  return %x\n}\n", "1:20: error: unknown dtype 'f33'"},
        BadInput{"func @f() -> tensor<si8> {\n  %c = constant dense<300> : tensor<si8> -> tensor<si8>\n  return %c\n}\n",
                 "2:23: error: integer literal 300 is out of range for si8"},
        BadInput{"func @f() -> tensor<f32, 2> {\n  %c = constant dense<[1.0, 2.0, 3.0]> : tensor<f32, 2> -> tensor<f32, 2>\n  return %c\n}\n",
                 "2:17: error: literal of shape [3] does not match its type tensor<f32, 2>"},
        BadInput{"func @f() -> tensor<f32, 2x2> {\n  %c = constant dense<[[1.0], [2.0, 3.0]]> : tensor<f32, 2x2> -> tensor<f32, 2x2>\n  return %c\n}\n",
                 "2:31: error: ragged literal: nested lists of different shapes"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  %y = neg %x tensor<f32>\n  return %y\n}\n",
                 "2:15: error: expected '->' before the result types, found 'tensor'"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  %y = neg %x\n", "3:1: error: expected '->' and the result types, found end of file"},
        BadInput{"func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 3x2> {\n  %y = transpose %x perm[1, 0] bogus[1] -> tensor<f32, 3x2>\n  return %y\n}\n",
                 "2:32: error: unknown attribute 'bogus' for op 'transpose'"},
        BadInput{"func @f(%x: tensor<f32, 2x3>) -> tensor<f32, 3x2> {\n  %y = transpose %x -> tensor<f32, 3x2>\n  return %y\n}\n",
                 "2:8: error: op 'transpose' requires attribute 'perm'"},
        BadInput{"func @f(%p: tensor<i1>) -> tensor<f32> {\n  %y = cond %p then[^t] else[^e] -> tensor<f32>\n  return %y\n}\n",
                 "2:21: error: reference to undefined region '^t'"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  %y = neg %x -> tensor<f32>\n", "3:1: error: unterminated body: expected 'return'"},
        BadInput{"func @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\nfunc @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n",
                 "4:1: error: redefinition of func '@f'"},
        BadInput{"func @f(%x: tensor<f32, 99999999999>) -> tensor<f32> {\n  return %x\n}\n", "1:25: error: dimension is too large"},
        BadInput{"module {\n}\n", "1:1: error: expected 'func' or 'region' at top level"}));

/// Names (values, functions, regions, attributes) are at most 4096 characters (docs/text-format.md,
/// "Limits"): 4096 is read, 4097 is one located error.
TEST(Text, NamesAreAtMost4096Characters) {
  const auto call = [](const std::string& value, const std::string& attr) {
    return "func @f(%x: tensor<f32>) -> tensor<f32> {\n  %" + value + " = custom_call %x target[\"ns.f.v1\"] " + attr +
           "[1] -> tensor<f32>\n  return %" + value + "\n}\n";
  };
  const std::string ok(4096, 'a'), long_name(4097, 'a');
  ParseResult r = parse_program(call(ok, ok), "in.ptir");
  EXPECT_TRUE(r.ok()) << r.error;
  r = parse_program(call(long_name, "w"), "in.ptir");
  EXPECT_EQ(r.error.substr(0, r.error.find('\n')), "in.ptir:2:4: error: name is longer than 4096 characters");
  r = parse_program(call("y", long_name), "in.ptir");
  EXPECT_EQ(r.error.substr(0, r.error.find('\n')), "in.ptir:2:41: error: attribute name is longer than 4096 characters");
}

/// A custom_call may carry many attributes: each name is looked up once (a linear search per
/// attribute made 60,000 of them take 8 s), and a repeated one is still an error where it stands.
TEST(Text, ManyAttributesParseAndDuplicatesAreFound) {
  std::string attrs;
  for (int k = 0; k < 60000; ++k) attrs += " a" + std::to_string(k) + "[" + std::to_string(k) + "]";
  const std::string head = "func @f(%x: tensor<f32>) -> tensor<f32> {\n  %y = custom_call %x target[\"ns.f.v1\"]";
  ParseResult r = parse_program(head + attrs + " -> tensor<f32>\n  return %y\n}\n", "in.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.program->attrs_of(r.program->body(r.program->entry()).first).attrs.size(), 60001u);
  const std::string dup = head + attrs + " a59999[0] -> tensor<f32>\n  return %y\n}\n";
  r = parse_program(dup, "in.ptir");
  ASSERT_FALSE(r.ok());
  const size_t col = dup.find(" a59999[0]") - dup.find("\n") + 1;  // 1-based column of the repeated name
  EXPECT_EQ(r.error.substr(0, r.error.find('\n')),
            "in.ptir:2:" + std::to_string(col) + ": error: duplicate attribute 'a59999'");
}

TEST(Text, NeverCrashesOnTruncationsOfAValidFile) {
  std::string good = R"(region ^r(%a: tensor<f32, 2>) -> tensor<f32, 2> {
  %b = neg %a -> tensor<f32, 2>
  return %b
}
func @main(%x: tensor<f32, 2>, %p: tensor<i1>) -> (tensor<f32, 2>, tensor<si32, 2x1>) {
  %c = constant dense<[1.5, -0.0]> : tensor<f32, 2> -> tensor<f32, 2>
  %y = cond %p, %x then[^r] else[^r] -> tensor<f32, 2>
  %v, %i = top_k %y k[1] axis[0] largest[true] -> (tensor<f32, 1>, tensor<si32, 1>)
  %q = custom_call(%x) target["a.b.v1"] eps[1e-5] -> tensor<f32, 2>
  return %y, dense<[[1], [2]]> : tensor<si32, 2x1>
}
)";
  ASSERT_TRUE(parse_program(good).ok()) << parse_program(good).error;
  for (size_t n = 0; n < good.size(); ++n) {
    ParseResult r = parse_program(good.substr(0, n), "t.ptir");
    if (!r.ok()) {
      EXPECT_EQ(r.error.rfind("t.ptir:", 0), 0u) << r.error;
    }
  }
  // Byte flips: every result is a program or a located error.
  for (size_t n = 0; n < good.size(); ++n) {
    std::string bad = good;
    bad[n] = static_cast<char>(bad[n] ^ 0x5A);
    ParseResult r = parse_program(bad, "t.ptir");
    if (!r.ok()) {
      EXPECT_EQ(r.error.rfind("t.ptir:", 0), 0u) << r.error;
    }
  }
}

/// print_program to a stream writes the same bytes as print_program to a string, across its 64 KB pieces
/// (three bodies, one of them with unnamed values, about 600 KB of text), and reports a failed write.
TEST(Text, PrintingToAStreamWritesTheSameText) {
  std::string src;
  for (int f = 0; f < 3; ++f) {
    src += "func @f" + std::to_string(f) + "(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n  %v0 = neg %x -> tensor<f32, 4>\n";
    for (int i = 1; i < 4000; ++i)
      src += "  %v" + std::to_string(i) + " = add %v" + std::to_string(i - 1) + ", dense<[1.0, 2.0, 3.0, 4.5]> : tensor<f32, 4> -> tensor<f32, 4>\n";
    src += "  return %v3999\n}\n";
  }
  ParseResult r = parse_program(src);
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  const BodyId b = p.entry();
  const TypeId t = p.type_id(p.body(b).params[0]);
  p.create_inst(b, OpCode::Neg, std::vector<ValueId>{p.body(b).params[0]}, 0, std::vector<TypeId>{t});  // unnamed
  const std::string want = print_program(p);
  ASSERT_GT(want.size(), size_t{3} << 16);
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(print_program(p, f));
  std::fclose(f);
  EXPECT_EQ(std::string(buf, len), want);
  std::free(buf);
  if (std::FILE* full = std::fopen("/dev/full", "w")) {
    std::setvbuf(full, nullptr, _IONBF, 0);
    EXPECT_FALSE(print_program(p, full));
    std::fclose(full);
  }
}

}  // namespace
}  // namespace ptir

namespace ptir {
namespace {

TEST(Text, NumberedAndOtherNamesShareOneScopePerBody) {
  // Numbered names (%v1, %7, %t12) live in dense arrays, others in a hash table: both must detect
  // redefinitions, resolve uses, and start empty in every body.
  const char* ok = R"(func @a(%v1: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %7 = add %v1, %x -> tensor<f32>
  %t12 = neg %7 -> tensor<f32>
  %v01 = neg %t12 -> tensor<f32>
  %p1 = neg %v01 -> tensor<f32>
  %q1 = neg %p1 -> tensor<f32>
  %r1 = neg %q1 -> tensor<f32>
  %s1 = neg %r1 -> tensor<f32>
  %v999999999 = neg %s1 -> tensor<f32>
  return %v999999999
}
func @main(%v1: tensor<f32>) -> tensor<f32> {
  %7 = neg %v1 -> tensor<f32>
  return %7
}
)";
  ParseResult r = parse_program(ok, "n.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  check_round_trip(ok, "numbered names");

  ParseResult dup = parse_program("func @f(%v1: tensor<f32>) -> tensor<f32> {\n  %v1 = neg %v1 -> tensor<f32>\n  return %v1\n}\n", "d.ptir");
  EXPECT_EQ(dup.error, "d.ptir:2:3: error: redefinition of value '%v1'");
  ParseResult undef = parse_program("func @f(%v1: tensor<f32>) -> tensor<f32> {\n  %y = neg %v2 -> tensor<f32>\n  return %y\n}\n", "u.ptir");
  EXPECT_EQ(undef.error, "u.ptir:2:12: error: use of undefined value '%v2'");
  // A name of another body is not visible.
  ParseResult scoped = parse_program("func @a(%v3: tensor<f32>) -> tensor<f32> {\n  return %v3\n}\n"
                                     "func @b(%x: tensor<f32>) -> tensor<f32> {\n  return %v3\n}\n", "s.ptir");
  EXPECT_EQ(scoped.error, "s.ptir:5:10: error: use of undefined value '%v3'");
}

TEST(Text, FreshNamesAvoidExistingOnes) {
  ParseResult r = parse_program("func @f(%t0: tensor<f32>, %t2: tensor<f32>) -> tensor<f32> {\n  return %t0\n}\n");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  BodyId b = p.entry();
  TypeId t = p.type_id(p.body(b).params[0]);
  ValueId x = p.body(b).params[0];
  InstId n1 = p.create_inst(b, OpCode::Neg, std::vector<ValueId>{x}, 0, std::vector<TypeId>{t});
  InstId n2 = p.create_inst(b, OpCode::Neg, std::vector<ValueId>{p.result(n1)}, 0, std::vector<TypeId>{t});
  InstId n3 = p.create_inst(b, OpCode::Neg, std::vector<ValueId>{p.result(n2)}, 0, std::vector<TypeId>{t});
  p.replace_all_uses(x, p.result(n3));
  p.set_operand(n1, 0, x);
  EXPECT_EQ(print_program(p),
            "func @f(%t0: tensor<f32>, %t2: tensor<f32>) -> tensor<f32> {\n"
            "  %t1 = neg %t0 -> tensor<f32>\n"
            "  %t3 = neg %t1 -> tensor<f32>\n"
            "  %t4 = neg %t3 -> tensor<f32>\n"
            "  return %t4\n"
            "}\n");
  check_round_trip(print_program(p), "fresh names");
}

}  // namespace
}  // namespace ptir

namespace ptir {
namespace {

// Program::set_name takes any string (ProgramRewriter::set_name lets a plugin's pattern call it): a name
// the parser could not read back is printed as a fresh %tN, so the text never says another program than
// the one in memory. (A hostile plugin renamed a parameter to `y: ...) -> ... {\n  return %x\n}\nfunc
// @dead(...` and `ptir opt` printed another program than the one it had CERTIFIED.) A name another value
// of the body has is printed as it is: the text then fails to parse ("redefinition of value"), it
// cannot say another program.
TEST(Text, UnreadableNamesPrintAsFreshNames) {
  ParseResult r = parse_program(
      "func @main(%x: tensor<f32, 4>, %y: tensor<f32, 4>) -> tensor<f32, 4> {\n"
      "  %a = neg %x -> tensor<f32, 4>\n"
      "  %b = add %a, %y -> tensor<f32, 4>\n"
      "  return %b\n"
      "}\n",
      "names.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  Program& p = *r.program;
  const BodyId b = p.entry();
  const ValueId y = p.body(b).params[1];
  InstId add = kNone;
  p.for_each_inst(b, [&](InstId i) {
    if (p.op(i) == OpCode::Add) add = i;
  });
  ASSERT_NE(add, kNone);
  const ValueId a = p.operand(add, 0);
  for (const char* bad : {"y: tensor<f32, 4>) -> tensor<f32, 4> {\n  return %x\n}\nfunc @dead(%z", "", "9a", "a-b",
                          "x y", ".a", "%a"}) {
    p.set_name(y, bad);
    p.set_name(a, "t0");  // a valid tN name stays taken: y's fresh name is another
    const std::string text = print_program(p);
    EXPECT_EQ(text.find("dead"), std::string::npos) << text;
    ParseResult again = parse_program(text, "printed.ptir");
    ASSERT_TRUE(again.ok()) << again.error << "\n" << text;
    EXPECT_EQ(print_program(*again.program), text);
    EXPECT_NE(text.find("%t0 = neg %x"), std::string::npos) << text;
    EXPECT_NE(text.find("= add %t0, %t1"), std::string::npos) << text;
  }
  // Readable names print as they are, digits and dots included.
  p.set_name(y, "y.2_b");
  EXPECT_NE(print_program(p).find("%y.2_b: tensor<f32, 4>"), std::string::npos);
  p.set_name(y, "17");
  EXPECT_NE(print_program(p).find("%17: tensor<f32, 4>"), std::string::npos);
  // A repeated name: the text does not parse.
  p.set_name(add == kNone ? y : p.result(add, 0), "x");
  ParseResult dup = parse_program(print_program(p), "dup.ptir");
  EXPECT_FALSE(dup.ok());
  EXPECT_NE(dup.error.find("redefinition of value '%x'"), std::string::npos) << dup.error;
}


// is_readable_name is the parser's own rule for a name after '%': for every name tried, the predicate
// says yes exactly when a program using that name as a parameter parses (and keeps the name).
TEST(Text, ReadableNameIsWhatTheParserReads) {
  std::vector<std::string> names = {"x", "_", "a.b", "a..", "A9_.z", "0", "17", "007", "9a", "a-b", ".a", "",
                                    "x y", "a\tb", "\xc3\xa9", "a%", std::string(4096, 'q'), std::string(4097, 'q'),
                                    std::string(4096, '7'), std::string(4097, '7')};
  // Every byte after a letter and as the first byte, 16 bytes long too (the parser's vector loop).
  for (int c = 1; c < 256; ++c) {
    names.push_back(std::string("a") + static_cast<char>(c));
    names.push_back(std::string(1, static_cast<char>(c)));
    names.push_back(std::string("abcdefghijklmno") + static_cast<char>(c) + "pq");
  }
  int readable = 0;
  for (const std::string& n : names) {
    const std::string text = "func @main(%" + n + ": tensor<f32, 2>) -> tensor<f32, 2> {\n  return %" + n + "\n}\n";
    ParseResult r = parse_program(text, "name.ptir");
    const bool parsed = r.ok() && r.program->name(r.program->body(r.program->entry()).params[0]) == n;
    EXPECT_EQ(is_readable_name(n), parsed) << "name '" << n << "' (" << n.size() << " bytes)";
    readable += parsed;
  }
  EXPECT_GT(readable, 100);  // letters, digits, '_' and '.' after a letter, in both lengths
}

}  // namespace
}  // namespace ptir
