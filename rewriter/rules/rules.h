// The declarative rule language (docs/rules.md): load rule files at run time and compile their rules
// into ordinary Patterns for the greedy driver. Generic machinery: it knows no particular rule; the
// built-in library (patterns/rules/*.rules) and users' files both go through here.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rewriter/pattern.h"
#include "rewriter/rules/ast.h"

namespace ptir::rules {

/// Parses rule text (syntax only). `path` names the file in diagnostics.
std::variant<RuleFile, RuleError> parse_rule_text(std::string_view text, const std::string& path);

/// Type-checks a parsed file: known ops with the right arity and attributes, captures bound before
/// use and used with one meaning, known predicates and helpers with the right arguments, derivable
/// result types, unique rule names. Returns the first error (every rule's first error after it in
/// RuleError::more), or nothing.
std::optional<RuleError> check_rule_file(const RuleFile& f);

/// Fills RuleError::line_text of `e` and of its `more` errors from the file's text.
void attach_source_lines(RuleError& e, std::string_view text);

/// parse_rule_text + check_rule_file (syntax errors first: a file with any is not type-checked).
std::variant<RuleFile, RuleError> load_rule_text(std::string_view text, const std::string& path);
/// A C++ pattern's instance template (docs/embedding.md): a source DAG in rule syntax, optionally with
/// `where` constraints, loaded as the rule `rule t : DAG => ROOT` (the root bound with `as`) and
/// checked like any rule: a bare capture, a constraint on a capture the DAG never binds, an unknown
/// op are errors. The rule's matcher then tells which instances are of the template.
std::variant<RuleFile, RuleError> load_template_text(std::string_view dag, const std::string& path);
/// Reads and loads a file from disk (an unreadable file is an error at line 0).
std::variant<RuleFile, RuleError> load_rule_file(const std::string& path);

class CompiledRule;
struct Captures;

/// A pattern running one rule. Its debug name is the rule's name; its labels are the rule's labels
/// plus "rules"; it fires only in functions whose fast-math flags include the rule's assumptions.
class RulePattern final : public Pattern {
 public:
  explicit RulePattern(std::shared_ptr<const CompiledRule> rule);
  ~RulePattern() override;
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override;
  /// The source root's operand count and the kind of each direct operand (root_may_match's first look),
  /// and the type facts its `where` clause requires of operands 0 and 1 (add_type_facts in pattern.cpp).
  RootShape root_shape() const override;
  /// True when the rule's source DAG and constraints match at `root` (no IR change).
  bool matches(const Program& p, InstId root) const;
  /// matches() that leaves the bindings in `c` (natives.h); `tree_only` uses the recursive matcher even
  /// for a flat rule (tests compare the two).
  bool matches(const Program& p, InstId root, Captures& c, bool tree_only) const;
  /// Whether the rule is matched by the flat matcher (CompiledRule::flat).
  bool flat() const;
  const Rule& rule() const;
  /// The file the rule comes from (shared: keeps the rule's AST alive).
  std::shared_ptr<const RuleFile> file() const;

 private:
  void add_type_facts(RootShape& s) const;

  std::shared_ptr<const CompiledRule> rule_;
  OpCode root_op_[1];
  uint8_t assumes_ = 0;  ///< the rule's Assume bits, kept here: read on every attempt
};

/// Compiles every rule of a checked file into a RulePattern and adds it to `set`. The file is shared
/// by the patterns (kept alive by them).
void add_rule_patterns(PatternSet& set, std::shared_ptr<const RuleFile> file);

/// Fast-math assumption bits (ast.h Assume) that the function holding body `b` carries.
uint8_t function_assumptions(const Program& p, BodyId b);

/// Names of the native predicates and helpers, with their signatures, for docs and --help.
std::string describe_natives();

}  // namespace ptir::rules
