// The option layer of the `ptir` command: one declarative table of every option of every subcommand
// (tools/option_table.cpp, `option_table()` and `command_table()`), the one parser every subcommand's
// arguments go through (`Args::parse`), and the `--help` texts generated from the table (`command_help`,
// `tool_help`). A subcommand reads its options only through `Args`, whose getters refuse a name the
// table does not give that command.
//
// Accepted spellings, as in LLVM tools and lit RUN lines: `--name`, `-name`, `--name=V`, `-name=V`,
// `--name V`, `-name V` (a value option takes the next argument whatever it looks like, so `--seed -3`
// is a bad value, not a missing one); one-letter names (`-o`, `-h`) the same way; `--` ends the
// options (what follows is an operand); `-` alone is an operand (stdin).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptir::tool {

/// What an option takes.
enum class ValueKind : uint8_t {
  None,    ///< a flag: `--x`; `--x=V` is an error
  Int,     ///< a signed decimal integer in [min, max]
  UInt,    ///< an unsigned decimal integer in [min, max]
  String,  ///< any non-empty text
  Path,    ///< a file name (non-empty)
  List,    ///< comma-separated items, empty items dropped; with `choices`, each item must be one of them
  Enum,    ///< one of `choices`
};

/// The subcommands an option belongs to: one bit per command (CommandSpec::bit).
using Scope = uint32_t;

/// One row of the option table.
struct OptionSpec {
  std::string name;                  ///< without dashes ("timeout-ms"); a one-letter name shows as "-o"
  ValueKind kind = ValueKind::None;
  std::string meta{};                ///< the value's placeholder in help ("N", "FILE", "A,B")
  Scope scope = 0;                   ///< the commands that take it
  std::string help{};                ///< what it does; '\n' breaks a line, a line starting with spaces keeps them
  std::string dflt{};                ///< the default value, parsed as a given one would be; empty: none
  std::string dflt_help{};           ///< how help shows a default that is not a value ("no limit")
  int64_t min = 0;                   ///< Int, UInt: the smallest value
  uint64_t max = UINT64_MAX;         ///< Int, UInt: the largest value
  std::vector<std::string> choices{};  ///< Enum, List: the accepted values (List: empty = any)
  bool repeatable = false;           ///< may be given more than once (values kept in order)
  std::string exclusive{};           ///< options of one command with the same group name exclude each other
  std::string needs{};               ///< another option that must be given with this one
  std::string alias{};               ///< a second spelling ("h" for "help")
  std::string retired{};             ///< an old spelling: using it is a usage error with this text
};

/// One subcommand as its help and the parser see it.
struct CommandSpec {
  std::string name;
  Scope bit = 0;
  std::string summary;                ///< one line in `ptir --help`
  std::vector<std::string> synopsis;  ///< operand forms, one usage line each ("[FILE]", "SRC TGT")
  size_t min_operands = 0, max_operands = 0;  ///< SIZE_MAX: no upper bound
  std::vector<std::string> operands;  ///< the names of the required operands, for "missing TGT"
  std::string description;            ///< the paragraphs between the usage and the options
  std::string epilogue;               ///< after the options (exit codes, output files)
  int usage_code = 2;                 ///< exit code of a usage error (check-equiv: 3)
};

/// Every option of `ptir`, every command. Rows of one name have disjoint scopes.
const std::vector<OptionSpec>& option_table();
/// Every subcommand, in `ptir --help` order.
const std::vector<CommandSpec>& command_table();
/// The command named `name`, or nullptr.
const CommandSpec* find_command(std::span<const CommandSpec> commands, std::string_view name);

/// The arguments of one subcommand, checked against the table.
class Args {
 public:
  /// Parses `argv` (the arguments after the subcommand's name) for `cmd`, one of `commands`. On a usage
  /// error returns the message (one line, "ptir CMD: ... (see 'ptir CMD --help')").
  static std::variant<Args, std::string> parse(std::span<const OptionSpec> table, std::span<const CommandSpec> commands,
                                               const CommandSpec& cmd, std::span<const std::string> argv);

  /// The operands, in order.
  const std::vector<std::string>& positional() const { return positional_; }
  /// Whether the option was given.
  bool has(std::string_view name) const;
  /// The value given, else the default, else nullopt.
  std::optional<std::string> get(std::string_view name) const;
  /// Every value given, in order (a repeatable option).
  std::vector<std::string> all(std::string_view name) const;
  /// A List option: the items of every value given, in order, else of the default.
  std::vector<std::string> list(std::string_view name) const;
  /// A UInt option: the value given, else the default, else nullopt.
  std::optional<uint64_t> u64(std::string_view name) const;
  /// An Int option: the value given, else the default, else nullopt.
  std::optional<int64_t> i64(std::string_view name) const;
  /// The command these arguments are for.
  const CommandSpec& command() const { return *cmd_; }

 private:
  /// The row of `name` for this command; throws std::logic_error when the table gives it none (a
  /// command reading an option it did not declare is a bug).
  const OptionSpec& spec(std::string_view name) const;
  const CommandSpec* cmd_ = nullptr;
  std::vector<const OptionSpec*> specs_;  ///< the rows of this command
  std::vector<std::string> positional_;
  std::vector<std::pair<const OptionSpec*, std::string>> given_;
};

/// `ptir CMD --help`: the usage lines, the description, one entry per option (help, range, choices,
/// default, repeatable, exclusions), the epilogue.
std::string command_help(std::span<const OptionSpec> table, const CommandSpec& cmd);
/// `ptir --help`: the commands, the options every command takes, the syntax, the exit codes.
std::string tool_help(std::span<const OptionSpec> table, std::span<const CommandSpec> commands);

/// Edit distance counting an adjacent transposition as one edit (for "did you mean").
size_t edit_distance(std::string_view a, std::string_view b);
/// The name of `known` closest to `typed` when it is close enough to be a likely typo (or `typed`, of 3
/// characters or more, is a prefix of exactly one of them), else "".
std::string closest_name(std::string_view typed, std::span<const std::string> known);
/// Splits "a,b,,c" into {"a", "b", "c"}.
std::vector<std::string> split_list(std::string_view s);
/// How help and errors spell an option: "--name", or "-o" for a one-letter name.
std::string option_spelling(std::string_view name);

}  // namespace ptir::tool
