// The option layer of `ptir` (tools/options.h): the parser on a small table of every kind, and the real
// table (tools/option_table.cpp) checked for consistency.
#include "tools/options.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "fuzz/gen/generator.h"
#include "ir/dtype.h"

namespace ptir::tool {
namespace {

constexpr Scope kA = 1, kB = 2;

std::vector<OptionSpec> test_table() {
  using K = ValueKind;
  return {
      {.name = "flag", .scope = kA | kB, .help = "a flag"},
      {.name = "count", .kind = K::UInt, .meta = "N", .scope = kA, .help = "a count", .dflt = "7", .min = 1, .max = 100},
      {.name = "delta", .kind = K::Int, .meta = "D", .scope = kA, .help = "signed", .min = -5, .max = 5},
      {.name = "name", .kind = K::String, .meta = "S", .scope = kA, .help = "a name"},
      {.name = "file", .kind = K::Path, .meta = "FILE", .scope = kA, .help = "a file", .repeatable = true},
      {.name = "items", .kind = K::List, .meta = "A,B", .scope = kA, .help = "items", .dflt = "x,y",
       .choices = {"x", "y", "z"}, .repeatable = true},
      {.name = "mode", .kind = K::Enum, .meta = "M", .scope = kA, .help = "a mode", .dflt = "fast",
       .choices = {"fast", "slow"}},
      {.name = "left", .scope = kA, .help = "left", .exclusive = "side"},
      {.name = "right", .scope = kA, .help = "right", .exclusive = "side"},
      {.name = "strict", .scope = kA, .help = "needs --flag", .needs = "flag"},
      {.name = "o", .kind = K::Path, .meta = "FILE", .scope = kA | kB, .help = "output", .dflt = "-"},
      {.name = "help", .scope = kA | kB, .help = "help", .alias = "h"},
      {.name = "only-b", .kind = K::UInt, .meta = "N", .scope = kB, .help = "an option of b"},
      {.name = "old", .scope = kA, .retired = "--old is now --flag"},
  };
}

std::vector<CommandSpec> test_commands() {
  return {{.name = "a", .bit = kA, .summary = "command a", .synopsis = {"SRC [TGT]"}, .min_operands = 1,
           .max_operands = 2, .operands = {"SRC"}, .description = "Does a.", .epilogue = "Exit codes: 0."},
          {.name = "b", .bit = kB, .summary = "command b", .synopsis = {""}}};
}

struct Fixture : ::testing::Test {
  std::vector<OptionSpec> table = test_table();
  std::vector<CommandSpec> commands = test_commands();
  /// Parses for command `cmd`; the Args, or the error message.
  std::variant<Args, std::string> parse(std::vector<std::string> argv, const std::string& cmd = "a") {
    return Args::parse(table, commands, *find_command(commands, cmd), argv);
  }
  Args ok(std::vector<std::string> argv, const std::string& cmd = "a") {
    auto r = parse(std::move(argv), cmd);
    if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << "unexpected error: " << *e;
    return std::get<Args>(std::move(r));
  }
  std::string error(std::vector<std::string> argv, const std::string& cmd = "a") {
    auto r = parse(std::move(argv), cmd);
    if (std::holds_alternative<Args>(r)) {
      ADD_FAILURE() << "no error";
      return "";
    }
    return std::get<std::string>(r);
  }
};

using OptionsParser = Fixture;

TEST_F(OptionsParser, EverySpellingOfAValue) {
  for (std::vector<std::string> argv : std::vector<std::vector<std::string>>{
           {"src", "--count=12"}, {"src", "--count", "12"}, {"-count=12", "src"}, {"-count", "12", "src"}}) {
    Args a = ok(argv);
    EXPECT_EQ(a.u64("count"), 12u);
    EXPECT_TRUE(a.has("count"));
    ASSERT_EQ(a.positional().size(), 1u);
    EXPECT_EQ(a.positional()[0], "src");
  }
}

TEST_F(OptionsParser, FlagsShortNamesAliasesAndOperands) {
  Args a = ok({"--flag", "-o", "out.txt", "src", "-", "-h"});
  EXPECT_TRUE(a.has("flag"));
  EXPECT_TRUE(a.has("help"));  // -h is the alias of --help
  EXPECT_EQ(a.get("o"), "out.txt");
  EXPECT_EQ(a.positional(), (std::vector<std::string>{"src", "-"}));
  Args b = ok({"-flag", "-o=x", "src"});
  EXPECT_TRUE(b.has("flag"));
  EXPECT_EQ(b.get("o"), "x");
  // After `--` everything is an operand.
  Args c = ok({"--", "-flag", "--count=3"});
  EXPECT_FALSE(c.has("flag"));
  EXPECT_EQ(c.positional(), (std::vector<std::string>{"-flag", "--count=3"}));
}

TEST_F(OptionsParser, DefaultsAndTypedGetters) {
  Args a = ok({"src"});
  EXPECT_FALSE(a.has("count"));
  EXPECT_EQ(a.u64("count"), 7u);  // the table's default
  EXPECT_EQ(a.get("mode"), "fast");
  EXPECT_EQ(a.list("items"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(a.get("o"), "-");
  EXPECT_FALSE(a.get("name").has_value());  // no default
  EXPECT_FALSE(a.i64("delta").has_value());
  Args b = ok({"src", "--delta=-5", "--mode", "slow", "--name", "n"});
  EXPECT_EQ(b.i64("delta"), -5);
  EXPECT_EQ(b.get("mode"), "slow");
  EXPECT_EQ(b.get("name"), "n");
}

TEST_F(OptionsParser, RepeatableOptionsKeepEveryValueInOrder) {
  Args a = ok({"src", "--file", "a", "--file=b", "--items=z", "--items", "x,,y"});
  EXPECT_EQ(a.all("file"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.list("items"), (std::vector<std::string>{"z", "x", "y"}));
}

TEST_F(OptionsParser, ReadingAnUndeclaredOptionIsABug) {
  Args a = ok({"src"});
  EXPECT_THROW((void)a.has("only-b"), std::logic_error);  // declared for b, not for a
  EXPECT_THROW((void)a.get("nonexistent"), std::logic_error);
  EXPECT_THROW((void)a.u64("name"), std::logic_error);  // not an unsigned option
}

TEST_F(OptionsParser, UnknownOptionsSuggestTheClosestName) {
  EXPECT_EQ(error({"src", "--cuont=3"}), "ptir a: unknown option --cuont, did you mean --count? (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "-flga"}), "ptir a: unknown option -flga, did you mean --flag? (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--stric"}), "ptir a: unknown option --stric, did you mean --strict? (see 'ptir a --help')");
  // A prefix of exactly one name:
  EXPECT_EQ(error({"src", "--ite"}), "ptir a: unknown option --ite, did you mean --items? (see 'ptir a --help')");
  // Nothing close: no suggestion; an option of another command says so.
  EXPECT_EQ(error({"src", "-x"}), "ptir a: unknown option -x (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--only-b", "3"}), "ptir a: unknown option --only-b (an option of ptir b) (see 'ptir a --help')");
  // An old spelling names the new one.
  EXPECT_EQ(error({"src", "--old"}), "ptir a: --old is now --flag (see 'ptir a --help')");
  // Control bytes are escaped.
  EXPECT_EQ(error({"src", "--a\001b"}), "ptir a: unknown option --a\\x01b (see 'ptir a --help')");
}

TEST_F(OptionsParser, ValuesAreCheckedAgainstTheirKind) {
  EXPECT_EQ(error({"src", "--count"}), "ptir a: --count needs a value (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--count="}), "ptir a: --count needs a value (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--count=0"}), "ptir a: --count expects an integer from 1 to 100, got 0 (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--count=101"}), "ptir a: --count expects an integer from 1 to 100, got 101 (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--count", "-3"}), "ptir a: --count expects an integer from 1 to 100, got -3 (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--count=3x"}), "ptir a: --count expects an integer from 1 to 100, got 3x (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--count=99999999999999999999999"}),
            "ptir a: --count expects an integer from 1 to 100, got 99999999999999999999999 (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--delta=-6"}), "ptir a: --delta expects an integer from -5 to 5, got -6 (see 'ptir a --help')");
  EXPECT_EQ(ok({"src", "--delta", "5"}).i64("delta"), 5);
  EXPECT_EQ(error({"src", "--mode=slwo"}),
            "ptir a: --mode expects one of fast, slow, got slwo, did you mean slow? (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--items=x,w"}), "ptir a: --items: unknown item w (known: x y z) (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--items=,"}), "ptir a: --items needs a value (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--flag=1"}), "ptir a: --flag takes no value, got --flag=1 (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "-o"}), "ptir a: -o needs a value (see 'ptir a --help')");
}

TEST_F(OptionsParser, RepeatsExclusionsNeedsAndOperands) {
  EXPECT_EQ(error({"src", "--count=1", "-count", "2"}), "ptir a: --count given twice (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--flag", "--flag"}), "ptir a: --flag given twice (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "-o", "x", "-o=y"}), "ptir a: -o given twice (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--left", "--right"}), "ptir a: --left and --right exclude each other (see 'ptir a --help')");
  EXPECT_EQ(error({"src", "--strict"}), "ptir a: --strict needs --flag (see 'ptir a --help')");
  EXPECT_TRUE(ok({"src", "--strict", "--flag"}).has("strict"));
  EXPECT_EQ(error({"src", "tgt", "extra"}), "ptir a: unexpected argument 'extra' (see 'ptir a --help')");
  EXPECT_EQ(error({}), "ptir a: missing SRC (see 'ptir a --help')");
  EXPECT_EQ(error({"x"}, "b"), "ptir b: unexpected argument 'x' (see 'ptir b --help')");
}

TEST_F(OptionsParser, HelpIsGeneratedFromTheTable) {
  const std::string h = command_help(table, *find_command(commands, "a"));
  // The synopsis wraps at 100 columns, continuation lines under the operands.
  EXPECT_EQ(h.rfind("usage: ptir a SRC [TGT] [--flag] [--count N] [--delta D] [--name S] [--file FILE]...\n"
                    "              [--items A,B]... [--mode M] [--left | --right] [--strict] [-o FILE]\n\n",
                    0),
            0u)
      << h;
  EXPECT_NE(h.find("[--left | --right]"), std::string::npos) << h;
  EXPECT_NE(h.find("\nDoes a.\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --count N    a count (1 to 100; default: 7)\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --mode M     a mode (one of: fast, slow; default: fast)\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --left       left (excludes --right)\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --strict     needs --flag (needs --flag)\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --file FILE  a file (repeatable)\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --help, -h   help\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("--old"), std::string::npos) << h;  // retired spellings are not listed
  EXPECT_EQ(h.find("only-b"), std::string::npos) << h;
  EXPECT_NE(h.find("\nExit codes: 0.\n"), std::string::npos) << h;
  const std::string t = tool_help(table, commands);
  EXPECT_NE(t.find("\n  a  command a\n  b  command b\n"), std::string::npos) << t;
}

TEST(OptionNames, EditDistanceAndSuggestions) {
  EXPECT_EQ(edit_distance("pipeline", "pipeline"), 0u);
  EXPECT_EQ(edit_distance("pipline", "pipeline"), 1u);
  EXPECT_EQ(edit_distance("otp", "opt"), 1u);  // a transposition is one edit
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  const std::vector<std::string> names = {"pipeline", "print-ir-after-all", "print-ir-before-all", "stats", "seed"};
  EXPECT_EQ(closest_name("pipline", names), "pipeline");
  EXPECT_EQ(closest_name("stat", names), "stats");
  EXPECT_EQ(closest_name("print-ir", names), "");  // a prefix of two names: no guess
  EXPECT_EQ(closest_name("x", names), "");
  EXPECT_EQ(split_list("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(option_spelling("o"), "-o");
  EXPECT_EQ(option_spelling("seed"), "--seed");
}

// ---- the real table ----

TEST(OptionTable, EveryCommandHasAConsistentSetOfOptions) {
  const auto& table = option_table();
  const auto& commands = command_table();
  std::set<Scope> bits;
  Scope all = 0;
  for (const CommandSpec& c : commands) {
    EXPECT_NE(c.bit, 0u) << c.name;
    EXPECT_TRUE(bits.insert(c.bit).second) << c.name << " shares its bit";
    all |= c.bit;
    EXPECT_FALSE(c.summary.empty()) << c.name;
    EXPECT_FALSE(c.synopsis.empty()) << c.name;
    EXPECT_LE(c.min_operands, c.max_operands) << c.name;
    EXPECT_EQ(c.operands.size(), c.min_operands) << c.name << ": every required operand needs a name";
  }
  for (const OptionSpec& o : table) {
    EXPECT_NE(o.scope, 0u) << o.name;
    EXPECT_EQ(o.scope & ~all, 0u) << o.name << " names a command that does not exist";
    if (!o.retired.empty()) {
      EXPECT_TRUE(o.help.empty() && o.dflt.empty()) << o.name << ": a retired spelling has no help or default";
      continue;
    }
    EXPECT_FALSE(o.help.empty()) << o.name;
    EXPECT_EQ(o.kind == ValueKind::None, o.meta.empty()) << o.name << ": a value option needs a placeholder";
    if (o.kind == ValueKind::Enum) EXPECT_FALSE(o.choices.empty()) << o.name;
  }
  for (const CommandSpec& c : commands) {
    std::set<std::string> names;
    for (const OptionSpec& o : table) {
      if (!(o.scope & c.bit)) continue;
      EXPECT_TRUE(names.insert(o.name).second) << "ptir " << c.name << " has two rows named " << o.name;
      if (!o.alias.empty()) EXPECT_TRUE(names.insert(o.alias).second) << "ptir " << c.name << ": alias " << o.alias;
      if (!o.retired.empty()) continue;
      // The default is a valid value: it parses like a given one.
      if (!o.dflt.empty()) {
        const std::vector<std::string> argv = {"--" + o.name + "=" + o.dflt};
        auto r = Args::parse(table, commands, c, argv);
        if (auto* e = std::get_if<std::string>(&r))
          // The only acceptable failure is an operand or `needs` rule of the command, not the value.
          EXPECT_TRUE(e->find("missing") != std::string::npos || e->find(" needs --") != std::string::npos)
              << c.name << " --" << o.name << " default: " << *e;
      }
      if (!o.needs.empty()) {
        bool found = false;
        for (const OptionSpec& p : table) found = found || ((p.scope & c.bit) && p.name == o.needs && p.retired.empty());
        EXPECT_TRUE(found) << "ptir " << c.name << " --" << o.name << " needs --" << o.needs << ", which it lacks";
      }
      if (!o.exclusive.empty()) {
        int members = 0;
        for (const OptionSpec& p : table) members += (p.scope & c.bit) && p.exclusive == o.exclusive;
        EXPECT_GE(members, 2) << "ptir " << c.name << ": group " << o.exclusive;
      }
    }
    // Every command takes -o, --help and --version.
    for (const char* n : {"o", "help", "version"}) EXPECT_TRUE(names.count(n)) << c.name << " lacks " << n;
  }
}

TEST(OptionTable, HelpOfEveryCommandListsEveryOption) {
  const auto& table = option_table();
  for (const CommandSpec& c : command_table()) {
    const std::string h = command_help(table, c);
    EXPECT_EQ(h.rfind("usage: ptir " + c.name + " ", 0), 0u) << h;
    EXPECT_NE(h.find("\noptions:\n"), std::string::npos) << c.name;
    for (const OptionSpec& o : table) {
      if (!(o.scope & c.bit) || !o.retired.empty()) continue;
      EXPECT_NE(h.find("\n  " + option_spelling(o.name)), std::string::npos) << c.name << " --help lacks " << o.name;
    }
    for (const std::string& line : [&] {
           std::vector<std::string> lines;
           size_t b = 0;
           while (b < h.size()) {
             size_t e = h.find('\n', b);
             lines.push_back(h.substr(b, e - b));
             b = e + 1;
           }
           return lines;
         }())
      // Lines are wrapped at 100 columns; only a term and one unbreakable word (a pipeline string) may go past.
      if (line.size() > 100) {
        size_t words = 0;
        for (size_t i = 0; i < line.size(); ++i) words += line[i] != ' ' && (i == 0 || line[i - 1] == ' ');
        EXPECT_LE(words, 2u) << line;
      }
  }
  const std::string t = tool_help(table, command_table());
  for (const CommandSpec& c : command_table()) EXPECT_NE(t.find("\n  " + c.name + " "), std::string::npos) << c.name;
}

TEST(OptionTable, ChoicesAreWhatTheParsersAccept) {
  for (const OptionSpec& o : option_table()) {
    if (o.name == "dtypes")
      for (const std::string& d : o.choices) EXPECT_TRUE(parse_dtype(d).has_value()) << d;
    if (o.name == "profile")
      for (const std::string& p : o.choices) {
        fuzz::Profile out;
        EXPECT_TRUE(fuzz::parse_profile(p, &out)) << p;
      }
  }
}

TEST(OptionTable, OneMeaningPerName) {
  const auto& table = option_table();
  const auto& commands = command_table();
  auto parse = [&](const std::string& cmd, std::vector<std::string> argv) {
    return Args::parse(table, commands, *find_command(commands, cmd), argv);
  };
  // --timeout-ms is a whole-command budget; prove's per-instance budget has its own name, and the old
  // spellings of prove name the new ones.
  for (const char* cmd : {"run", "check-equiv", "corpus"}) {
    std::vector<std::string> argv = {"--timeout-ms=5", "f"};
    if (std::string(cmd) == "check-equiv") argv.push_back("g");
    if (std::string(cmd) == "corpus") argv.push_back("--optimize");
    EXPECT_TRUE(std::holds_alternative<Args>(parse(cmd, argv))) << cmd;
  }
  auto err = [&](std::vector<std::string> argv) {
    auto r = parse("prove", std::move(argv));
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string("no error");
  };
  EXPECT_NE(err({"--timeout-ms=5"}).find("now --instance-timeout-ms"), std::string::npos);
  EXPECT_NE(err({"--all-shapes-timeout-ms=5"}).find("now --all-shapes-query-timeout-ms"), std::string::npos);
  EXPECT_NE(err({"--pattern", "x"}).find("--enable-patterns=A,B"), std::string::npos);
  EXPECT_NE(err({"--label", "x"}).find("--enable-labels=A,B"), std::string::npos);
  // opt and prove select patterns with the same four options, from the same rows.
  for (const char* n : {"enable-patterns", "disable-patterns", "enable-labels", "disable-labels"}) {
    int rows = 0;
    for (const OptionSpec& o : table)
      if (o.name == n) {
        ++rows;
        EXPECT_TRUE((o.scope & find_command(commands, "opt")->bit) && (o.scope & find_command(commands, "prove")->bit));
      }
    EXPECT_EQ(rows, 1) << n;
  }
}

}  // namespace
}  // namespace ptir::tool
