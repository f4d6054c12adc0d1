// Shared helpers of the `ptir` subcommands.
#include "tools/common.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ir/verifier.h"

namespace ptir::tool {

bool Args::has(std::string_view name) const {
  for (const auto& [k, v] : options)
    if (k == name) return true;
  return false;
}

std::vector<std::string> Args::all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : options)
    if (n == name) out.push_back(v);
  return out;
}

std::optional<std::string> Args::get(std::string_view name) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : options)
    if (k == name) out = v;
  return out;
}

Args split_args(int argc, char** argv, std::initializer_list<std::string_view> value_options) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s.size() > 2 && s.rfind("--", 0) == 0) {
      std::string name = s.substr(2), value;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else {
        for (std::string_view vo : value_options)
          if (vo == name && i + 1 < argc) { value = argv[++i]; break; }
      }
      a.options.emplace_back(name, value);
    } else if (s == "-h") {
      a.options.emplace_back("help", "");
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

bool check_known(const Args& a, std::string_view cmd, std::initializer_list<std::string_view> known) {
  for (const auto& [k, v] : a.options) {
    bool ok = k == "help";
    for (std::string_view n : known) ok = ok || n == k;
    if (!ok) {
      std::fprintf(stderr, "ptir %.*s: unknown option --%s (see 'ptir %.*s --help')\n", int(cmd.size()), cmd.data(),
                   k.c_str(), int(cmd.size()), cmd.data());
      return false;
    }
  }
  return true;
}

std::optional<std::string> read_file(const std::string& path) {
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "ptir: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) {
    std::fprintf(stderr, "ptir: cannot read %s\n", path.c_str());
    return std::nullopt;
  }
  return ss.str();
}

std::unique_ptr<Loaded> load_program(const std::string& path, bool verify) {
  auto text = read_file(path);
  if (!text) return nullptr;
  auto l = std::make_unique<Loaded>();
  l->text = std::move(*text);
  l->parsed = parse_program(l->text, path == "-" ? "<stdin>" : path);
  if (!l->parsed.ok()) {
    std::fprintf(stderr, "%s\n", l->parsed.error.c_str());
    return nullptr;
  }
  if (verify) {
    auto diags = verify_program(*l->parsed.program);
    if (!diags.empty()) {
      std::fprintf(stderr, "%s\n", format_diagnostic(diags[0], *l->parsed.program, &l->parsed.source).c_str());
      return nullptr;
    }
  }
  return l;
}

std::optional<uint64_t> parse_u64_option(std::string_view cmd, std::string_view name, const std::string& v) {
  uint64_t out = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) {
    std::fprintf(stderr, "ptir %.*s: --%.*s needs a non-negative integer, got '%s'\n", int(cmd.size()), cmd.data(),
                 int(name.size()), name.data(), v.c_str());
    return std::nullopt;
  }
  return out;
}

}  // namespace ptir::tool
