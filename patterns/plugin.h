// Pattern plugins: a shared library that adds patterns to `ptir opt` and `ptir prove` without a rebuild
// of ptir (docs/embedding.md). The plugin exports one C function, `ptir_plugin_info`, written by the
// PTIR_PLUGIN macro; the host checks the plugin API version, ptir's version and the C++ ABI before it
// calls the registration function, which adds C++ patterns (with their instance templates for the
// prover) and rule files to a PluginRegistry. A plugin links no ptir library: it resolves ptir's
// symbols against the `ptir` executable that loads it, so there is one copy of everything.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/version.h"
#include "rewriter/pattern.h"
#include "rewriter/rules/rules.h"

namespace ptir {

/// Version of the PluginInfo layout and of the registration protocol. Bumped on any change to either.
inline constexpr uint32_t kPluginApiVersion = 1;

/// The C++ standard library ABI a plugin was compiled for: a plugin and the host must agree on it,
/// since std::string and std::vector cross the boundary.
#if defined(_LIBCPP_VERSION)
#define PTIR_PLUGIN_CXX_ABI "libc++"
#elif defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
#define PTIR_PLUGIN_CXX_ABI "libstdc++ cxx11"
#else
#define PTIR_PLUGIN_CXX_ABI "libstdc++ pre-cxx11"
#endif

class PluginRegistry;

/// What `ptir_plugin_info` returns. Plain C data: `api_version` comes first and stays first, so a host
/// can read it from a plugin of any version before it trusts the rest.
struct PluginInfo {
  uint32_t api_version;    ///< kPluginApiVersion the plugin was built with
  const char* ptir_version;  ///< PTIR_VERSION_STRING the plugin was built against
  const char* cxx_abi;     ///< PTIR_PLUGIN_CXX_ABI of the plugin's compiler
  const char* name;        ///< the plugin's name, for messages
  void (*register_patterns)(PluginRegistry&);  ///< adds the plugin's patterns
};

/// The C symbol every plugin exports (the PTIR_PLUGIN macro defines it).
inline constexpr const char* kPluginEntrySymbol = "ptir_plugin_info";

/// Collects what a plugin adds. Patterns are added as factories: `ptir prove` builds a fresh set for
/// every pattern it proves, `ptir opt` one per canonicalize pass.
class PluginRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Pattern>()>;

  /// Adds a C++ pattern P constructed from `args` (copied into the factory).
  template <typename P, typename... Args>
  void add_pattern(Args... args) {
    add_pattern_factory([=] { return std::unique_ptr<Pattern>(std::make_unique<P>(args...)); });
  }
  /// Adds a C++ pattern made by `make`.
  void add_pattern_factory(Factory make);
  /// Declares a source DAG (rule-language source syntax, docs/rules.md) that pattern `name` must
  /// handle: `ptir prove` generates its instances and near misses from it, as for a rule. A C++ pattern
  /// without a template is an ERROR row in `ptir prove`. Checked when the plugin loads.
  void add_template(std::string_view name, std::string_view source_dag);
  /// Adds the rules of a rule file whose text the plugin carries (embedded at build time; see
  /// `ptir_add_plugin(... RULES ...)` in docs/embedding.md). `name` appears in origins and errors as
  /// PLUGIN(name):LINE. Checked when the plugin loads.
  void add_rule_text(std::string_view name, std::string_view text);
  /// Adds the rules of a rule file on disk; a relative path is taken from the plugin's folder.
  void add_rule_file(std::string_view path);

 private:
  friend class PluginLoader;
  PluginRegistry() = default;
  struct RuleSource {
    std::string name, text;
    bool is_path = false;
  };
  std::vector<Factory> factories_;
  std::vector<std::pair<std::string, std::string>> templates_;
  std::vector<RuleSource> rules_;
};

/// A loaded plugin. It stays loaded for the life of the process (patterns hold its code).
class Plugin {
 public:
  /// The path it was loaded from, as given.
  const std::string& path() const { return path_; }
  /// The name it declared.
  const std::string& name() const { return name_; }
  /// Adds its C++ patterns, then the rules of its rule files. Each pattern's origin names the plugin:
  /// "C++ plugin PATH" for a C++ pattern, "PATH(FILE):LINE" for a rule.
  void populate(PatternSet& set) const;
  /// (pattern name, source DAG) templates of its C++ patterns, for `ptir prove`.
  const std::vector<std::pair<std::string, std::string>>& templates() const { return templates_; }
  size_t num_cpp_patterns() const { return factories_.size(); }
  const std::vector<std::shared_ptr<const rules::RuleFile>>& rule_files() const { return rule_files_; }

 private:
  friend class PluginLoader;
  std::string path_, name_;
  std::vector<PluginRegistry::Factory> factories_;
  std::vector<std::pair<std::string, std::string>> templates_;
  std::vector<std::shared_ptr<const rules::RuleFile>> rule_files_;
};

/// Loads the plugin at `path`, checks its versions and runs its registration function. An error is one
/// line for people: "PATH: error: ..." (missing file, not a shared library, no ptir_plugin_info, built
/// against ptir 0.4.0 while this is 0.5.0, a rule file or template that does not parse, ...).
std::variant<std::shared_ptr<const Plugin>, std::string> load_plugin(const std::string& path);

/// Every pattern the plugins add, in order (Plugin::populate of each).
void populate_plugin_patterns(PatternSet& set, const std::vector<std::shared_ptr<const Plugin>>& plugins);

}  // namespace ptir

/// Defines the plugin's entry point. Use once per plugin, at namespace scope:
///   PTIR_PLUGIN("my_patterns", registry) { registry.add_pattern<MyPattern>(); ... }
#define PTIR_PLUGIN(NAME, REGISTRY)                                                                         \
  static void ptir_plugin_register(::ptir::PluginRegistry& REGISTRY);                                      \
  extern "C" __attribute__((visibility("default"))) const ::ptir::PluginInfo* ptir_plugin_info() {         \
    static const ::ptir::PluginInfo info{::ptir::kPluginApiVersion, PTIR_VERSION_STRING, PTIR_PLUGIN_CXX_ABI, \
                                         NAME, &ptir_plugin_register};                                     \
    return &info;                                                                                          \
  }                                                                                                        \
  static void ptir_plugin_register(::ptir::PluginRegistry& REGISTRY)
