// Pipeline strings: `canonicalize,cse`, `fixpoint(4){canonicalize,cse,dce}`, nested groups allowed.
//
//   pipeline := item (',' item)*
//   item     := NAME | 'fixpoint' '(' INT ')' '{' pipeline '}'
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/pass.h"

namespace ptir {

/// The passes a pipeline string may name, each with a factory. An object, not a global: the tool
/// builds one from the options it was given.
class PassRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Pass>()>;
  void add(std::string name, std::string summary, Factory f);
  /// nullptr when `name` is unknown.
  std::unique_ptr<Pass> create(std::string_view name) const;
  struct Entry {
    std::string name, summary;
    Factory factory;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

/// Parses `text` and appends its passes to `into`. Returns an empty string, or an error such as
/// "pipeline:1:13: unknown pass 'cse2' (known: canonicalize, cse, dce)".
std::string parse_pipeline(std::string_view text, const PassRegistry& registry, PassGroup& into);

}  // namespace ptir
