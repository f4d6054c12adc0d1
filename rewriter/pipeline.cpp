// Pipeline-string parser and the pass registry.
#include "rewriter/pipeline.h"

#include <cctype>

namespace ptir {

void PassRegistry::add(std::string name, std::string summary, Factory f) {
  entries_.push_back(Entry{std::move(name), std::move(summary), std::move(f)});
}

std::unique_ptr<Pass> PassRegistry::create(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.factory();
  return nullptr;
}

void PassRegistry::add_pipeline(std::string name, std::string summary, std::string text) {
  pipelines_.push_back(NamedPipeline{std::move(name), std::move(summary), std::move(text)});
}

const PassRegistry::NamedPipeline* PassRegistry::find_pipeline(std::string_view name) const {
  for (const NamedPipeline& n : pipelines_)
    if (n.name == name) return &n;
  return nullptr;
}

namespace {

/// Named pipelines may name others; this bounds the expansion (and stops a pipeline naming itself).
constexpr int kMaxPipelineNesting = 8;

class PipelineParser {
 public:
  PipelineParser(std::string_view s, const PassRegistry& reg, std::string where = "pipeline", int depth = 0)
      : s_(s), reg_(reg), where_(std::move(where)), depth_(depth) {}

  std::string parse(PassGroup& into) {
    if (!list(into, /*nested=*/false)) return error_;
    skip();
    if (pos_ < s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return error_;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool fail(const std::string& msg) {
    if (error_.empty()) error_ = where_ + ":1:" + std::to_string(pos_ + 1) + ": " + msg;
    return false;
  }
  std::string_view word() {
    skip();
    size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
                                s_[pos_] == '-'))
      ++pos_;
    return s_.substr(b, pos_ - b);
  }
  bool list(PassGroup& g, bool nested) {
    do {
      if (!item(g)) return false;
    } while (eat(','));
    skip();
    if (nested && !eat('}')) return fail("expected ',' or '}'");
    return true;
  }
  bool item(PassGroup& g) {
    skip();
    size_t at = pos_;
    std::string_view w = word();
    if (w.empty()) return fail(pos_ < s_.size() ? "expected a pass name" : "expected a pass name, found the end");
    if (w == "fixpoint") {
      if (!eat('(')) return fail("expected '(' after 'fixpoint'");
      skip();
      size_t b = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      std::string_view n = s_.substr(b, pos_ - b);
      if (n.empty() || n.size() > 6 || std::stoi(std::string(n)) < 1)
        return fail("fixpoint needs an iteration count between 1 and 999999");
      if (!eat(')')) return fail("expected ')'");
      if (!eat('{')) return fail("expected '{' to open the fixpoint group");
      return list(g.add_fixpoint(std::stoi(std::string(n))), /*nested=*/true);
    }
    if (const PassRegistry::NamedPipeline* named = reg_.find_pipeline(w)) {
      if (depth_ >= kMaxPipelineNesting) {
        pos_ = at;
        return fail("named pipelines nest deeper than " + std::to_string(kMaxPipelineNesting) + " at '" +
                    std::string(w) + "'");
      }
      std::string err = PipelineParser(named->text, reg_, "pipeline '" + named->name + "'", depth_ + 1).parse(g);
      if (!err.empty() && error_.empty()) error_ = err;
      return err.empty();
    }
    std::unique_ptr<Pass> p = reg_.create(w);
    if (!p) {
      pos_ = at;
      std::string known;
      for (const auto& e : reg_.entries()) known += (known.empty() ? "" : ", ") + e.name;
      for (const auto& n : reg_.pipelines()) known += ", " + n.name;
      return fail("unknown pass '" + std::string(w) + "' (known: " + known + ", fixpoint(N){...})");
    }
    g.add(std::move(p));
    return true;
  }

  std::string_view s_;
  const PassRegistry& reg_;
  std::string where_;
  int depth_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::string parse_pipeline(std::string_view text, const PassRegistry& registry, PassGroup& into) {
  return PipelineParser(text, registry).parse(into);
}

}  // namespace ptir
