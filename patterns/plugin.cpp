// Loading pattern plugins (patterns/plugin.h): dlopen, the version checks, the registration call, and
// the checks of what the plugin registered (templates and rule files parse) before anything runs.
#include "patterns/plugin.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

// Present in every copy of ptir_patterns. A plugin that (wrongly) links ptir's static libraries carries
// its own copy of this object, since every plugin calls PluginRegistry; the loader finds the marker in
// the plugin and refuses it, rather than run with two copies of ptir's code and state.
extern "C" __attribute__((visibility("default"))) const char ptir_patterns_library_copy[] = "ptir_patterns";

namespace ptir {

void PluginRegistry::add_pattern_factory(Factory make) { factories_.push_back(std::move(make)); }

void PluginRegistry::add_template(std::string_view name, std::string_view source_dag) {
  templates_.emplace_back(std::string(name), std::string(source_dag));
}

void PluginRegistry::add_rule_text(std::string_view name, std::string_view text) {
  rules_.push_back({std::string(name), std::string(text), false});
}

void PluginRegistry::add_rule_file(std::string_view path) { rules_.push_back({std::string(path), {}, true}); }

namespace {
constexpr const char* kRuleFromFactory =
    "register rules with add_rule_text or add_rule_file (ptir loads and proves those); a factory's pattern is C++";
}  // namespace

void Plugin::populate(PatternSet& set) const {
  for (const PluginRegistry::Factory& make : factories_) {
    std::unique_ptr<Pattern> p;
    try {
      p = make();
    } catch (const std::exception& e) {
      throw std::runtime_error(path_ + ": a pattern factory threw: " + e.what());
    } catch (...) {
      throw std::runtime_error(path_ + ": a pattern factory threw an exception that is not a std::exception");
    }
    if (!p) throw std::runtime_error(path_ + ": a pattern factory returned null");
    // A factory's object is the plugin's code: it is proved as C++ (bounded only), never as a rule. A
    // rule pattern built by the factory would be proved and certified for all shapes as a rule while the
    // factory may return another object on the next call (a red team's plugin got a wrong rewrite
    // CERTIFIED that way, 2026-12-07). Rules go through add_rule_text / add_rule_file: ptir loads those.
    if (dynamic_cast<const rules::RulePattern*>(p.get()))
      throw std::runtime_error(path_ + ": a pattern factory returned a rule pattern ('" + std::string(p->debug_name()) +
                               "'): " + kRuleFromFactory);
    p->set_origin("C++ plugin " + path_);
    set.add(std::move(p));
  }
  for (const auto& f : rule_files_) rules::add_rule_patterns(set, f);
}

void populate_plugin_patterns(PatternSet& set, const std::vector<std::shared_ptr<const Plugin>>& plugins) {
  for (const auto& p : plugins) p->populate(set);
}

/// One load: each step returns an error line or nothing.
class PluginLoader {
 public:
  explicit PluginLoader(std::string path) : path_(std::move(path)) {}
  ~PluginLoader() {
    if (handle_ && !keep_) dlclose(handle_);
  }

  std::variant<std::shared_ptr<const Plugin>, std::string> run() {
    std::string err = open();
    if (err.empty()) err = check_versions();
    if (err.empty()) err = register_patterns();
    if (err.empty()) err = check_templates();
    if (err.empty()) err = load_rules();
    if (!err.empty()) return path_ + ": error: " + err;
    return std::shared_ptr<const Plugin>(std::move(plugin_));
  }

 private:
  std::string open() {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return "no such plugin file";
    if (std::filesystem::is_directory(path_, ec)) return "is a directory, not a plugin";
    // A bare file name would make dlopen search the library path; the user means this file.
    const std::string file = path_.find('/') == std::string::npos ? "./" + path_ : path_;
    handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) return std::string("cannot load plugin: ") + dlerror();
    auto* entry = reinterpret_cast<const PluginInfo* (*)()>(dlsym(handle_, kPluginEntrySymbol));
    if (!entry)
      return std::string("not a ptir plugin: it exports no '") + kPluginEntrySymbol +
             "' (define one with PTIR_PLUGIN, patterns/plugin.h)";
    if (const void* copy = dlsym(handle_, "ptir_patterns_library_copy"); copy && copy != ptir_patterns_library_copy)
      return "the plugin contains its own copy of ptir's libraries: link it against ptir::plugin only "
             "(ptir_add_plugin does), not ptir::patterns; it resolves ptir from the ptir that loads it";
    info_ = entry();
    if (!info_) return std::string(kPluginEntrySymbol) + " returned null";
    return {};
  }

  std::string check_versions() {
    // api_version is read first and alone: the rest of the struct is only trusted when it matches.
    if (info_->api_version != kPluginApiVersion)
      return "plugin API version " + std::to_string(info_->api_version) + ", but ptir " + kVersionString +
             " loads plugins of API version " + std::to_string(kPluginApiVersion) + ": rebuild the plugin against ptir " +
             kVersionString;
    const std::string name = info_->name ? info_->name : "(unnamed)";
    const char* version = info_->ptir_version ? info_->ptir_version : "(none)";
    if (std::strcmp(version, kVersionString) != 0)
      return "plugin '" + name + "' was built against ptir " + version + ", but this is ptir " + kVersionString +
             ": rebuild it against this version (find_package(ptir " + kVersionString + " CONFIG REQUIRED))";
    const char* abi = info_->cxx_abi ? info_->cxx_abi : "(none)";
    if (std::strcmp(abi, PTIR_PLUGIN_CXX_ABI) != 0)
      return "plugin '" + name + "' was built for the C++ library ABI '" + abi + "', but ptir uses '" +
             PTIR_PLUGIN_CXX_ABI + "'";
    if (!info_->register_patterns) return "plugin '" + name + "' has no registration function";
    return {};
  }

  std::string register_patterns() {
    PluginRegistry registry;
    keep_ = true;  // from here on the plugin's code may be referenced (factories, vtables)
    try {
      info_->register_patterns(registry);
    } catch (const std::exception& e) {
      return std::string("the plugin's registration function threw: ") + e.what();
    } catch (...) {
      return "the plugin's registration function threw";
    }
    plugin_ = std::make_shared<Plugin>();
    plugin_->path_ = path_;
    plugin_->name_ = info_->name ? info_->name : "";
    plugin_->factories_ = std::move(registry.factories_);
    plugin_->templates_ = std::move(registry.templates_);
    rules_ = std::move(registry.rules_);
    return {};
  }

  /// Every template loads (rules::load_template_text: parsed and checked as a rule) and names one of
  /// the plugin's C++ patterns.
  std::string check_templates() {
    std::vector<std::string> names;
    for (const auto& make : plugin_->factories_) {
      std::unique_ptr<Pattern> p;
      try {
        p = make();
      } catch (const std::exception& e) {
        return std::string("a pattern factory threw: ") + e.what();
      } catch (...) {
        return "a pattern factory threw an exception that is not a std::exception";
      }
      if (!p) return "a pattern factory returned null";
      if (dynamic_cast<const rules::RulePattern*>(p.get()))
        return "a pattern factory returned a rule pattern ('" + std::string(p->debug_name()) + "'): " + kRuleFromFactory;
      names.emplace_back(p->debug_name());
    }
    for (const auto& [name, dag] : plugin_->templates_) {
      if (std::find(names.begin(), names.end(), name) == names.end())
        return "template '" + dag + "' is declared for '" + name + "', which is not one of the plugin's C++ patterns";
      auto loaded = rules::load_template_text(dag, path_ + "(template of " + name + ")");
      if (auto* e = std::get_if<rules::RuleError>(&loaded)) return "bad template: " + e->format();
    }
    return {};
  }

  std::string load_rules() {
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    for (const auto& r : rules_) {
      std::string text = r.text;
      if (r.is_path) {
        const std::filesystem::path file =
            std::filesystem::path(r.name).is_absolute() ? std::filesystem::path(r.name) : dir / r.name;
        std::ifstream in(file, std::ios::binary);
        if (!in) return "cannot read its rule file " + file.string();
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
      }
      auto loaded = rules::load_rule_text(text, path_ + "(" + r.name + ")");
      if (auto* e = std::get_if<rules::RuleError>(&loaded)) return "in its rule file:\n" + e->format();
      plugin_->rule_files_.push_back(std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded))));
    }
    return {};
  }

  std::string path_;
  void* handle_ = nullptr;
  bool keep_ = false;
  const PluginInfo* info_ = nullptr;
  std::shared_ptr<Plugin> plugin_;
  std::vector<PluginRegistry::RuleSource> rules_;
};

std::variant<std::shared_ptr<const Plugin>, std::string> load_plugin(const std::string& path) {
  return PluginLoader(path).run();
}

}  // namespace ptir
