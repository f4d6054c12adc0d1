// Shared helpers of the `ptir` subcommands: argument handling, file loading, exit codes.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"
#include "ir/text.h"

namespace ptir::tool {

/// Exit codes shared by every subcommand (check-equiv uses its own 0..3, documented in its help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

/// Arguments after the subcommand name.
struct Args {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  ///< --name=value or --name value; flags have ""

  bool has(std::string_view name) const;
  std::optional<std::string> get(std::string_view name) const;
  /// Every value of a repeatable option, in order.
  std::vector<std::string> all(std::string_view name) const;
};

/// Splits argv. `value_options` lists the options that take a value (`--x v` or `--x=v`); anything else
/// starting with `--` is a flag. Unknown options are reported by the caller via `check_known`.
Args split_args(int argc, char** argv, std::initializer_list<std::string_view> value_options);
/// Prints "ptir CMD: unknown option --x" and returns false when an option is not in `known`.
bool check_known(const Args& a, std::string_view cmd, std::initializer_list<std::string_view> known);

/// Reads a whole file ("-" = stdin). On failure prints "ptir: cannot read FILE: reason" and returns nullopt.
std::optional<std::string> read_file(const std::string& path);
/// Reads, parses and verifies a file; prints the one-line diagnostic on failure.
struct Loaded {
  std::string text;
  ParseResult parsed;
  Program& program() { return *parsed.program; }
};
std::unique_ptr<Loaded> load_program(const std::string& path, bool verify = true);

/// Parses an unsigned integer option, printing a usage error when malformed.
std::optional<uint64_t> parse_u64_option(std::string_view cmd, std::string_view name, const std::string& v);

}  // namespace ptir::tool
