// Pipeline strings: `canonicalize,cse`, `fixpoint(4){canonicalize,cse,dce}`, nested groups allowed.
//
//   pipeline := item (',' item)*
//   item     := NAME | 'fixpoint' '(' INT ')' '{' pipeline '}'
//
// A NAME is a pass or a named pipeline (`gptrs`), which expands in place to its own pipeline string.
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

  /// A pipeline with a name: the name, used in a pipeline string, expands to `text`.
  struct NamedPipeline {
    std::string name, summary, text;
  };
  /// Registers a named pipeline (its name must not be a pass's).
  void add_pipeline(std::string name, std::string summary, std::string text);
  /// nullptr when `name` is not a named pipeline.
  const NamedPipeline* find_pipeline(std::string_view name) const;
  const std::vector<NamedPipeline>& pipelines() const { return pipelines_; }

 private:
  std::vector<Entry> entries_;
  std::vector<NamedPipeline> pipelines_;
};

/// Parses `text` and appends its passes to `into`, expanding named pipelines. Returns an empty string,
/// or an error such as "pipeline:1:13: unknown pass 'cse2' (known: canonicalize, cse, dce, ...)"; an
/// error inside a named pipeline's own text names it ("pipeline 'gptrs':1:5: ...").
std::string parse_pipeline(std::string_view text, const PassRegistry& registry, PassGroup& into);

}  // namespace ptir
