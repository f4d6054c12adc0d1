// The rule-file parser: text -> RuleFile (rewriter/rules/ast.h). Syntax in docs/rules.md. It checks
// syntax only; rewriter/rules/check.cpp type-checks the result.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "rewriter/rules/natives.h"
#include "rewriter/rules/rules.h"

namespace ptir::rules {
namespace {

struct Fail {
  Loc loc;
  std::string message;
};

class Parser {
 public:
  Parser(std::string_view text, std::string path) : s_(text), path_(std::move(path)) {}

  RuleFile parse() {
    RuleFile f;
    f.path = path_;
    while (true) {
      try {
        skip_ws();
        if (at_end()) break;
        // The comment lines directly above `rule` (the last skip that moved may have been inside the
        // previous rule's lookahead, so the comment is remembered rather than returned).
        std::string comment = std::move(comment_above_);
        const Loc at = loc();
        std::string kw = ident("'rule'");
        if (kw != "rule") throw Fail{at, "expected 'rule', found '" + kw + "'"};
        Rule r = rule(at);
        r.comment = std::move(comment);
        f.rules.push_back(std::move(r));
      } catch (const Fail& e) {
        // Report it and go on at the next line that starts with `rule`, so one run lists every
        // syntax error of the file (as compilers do), not only the first.
        errors.push_back(e);
        comment_above_.clear();
        depth_ = 0;
        if (!skip_to_next_rule()) break;
      }
    }
    return f;
  }

  std::vector<Fail> errors;  ///< every syntax error, in file order

 private:
  /// Moves to the start of the next line whose first word is `rule`; false at the end of the text.
  bool skip_to_next_rule() {
    size_t p = pos_;
    while (true) {
      p = s_.find('\n', p);
      if (p == std::string_view::npos) {
        pos_ = s_.size();
        return false;
      }
      ++p;
      size_t q = p;
      while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) ++q;
      if (s_.substr(q, 4) == "rule" && (q + 4 == s_.size() || s_[q + 4] == ' ' || s_[q + 4] == '\t')) {
        pos_ = p;
        return true;
      }
    }
  }

 public:

 private:
  // ---- lexing ----
  bool at_end() const { return pos_ >= s_.size(); }
  char cur() const { return at_end() ? '\0' : s_[pos_]; }
  Loc loc() const { return loc_at(pos_); }
  Loc loc_at(size_t p) const {
    // Lines are counted incrementally: the parser only moves forward.
    while (line_pos_ < p) {
      if (s_[line_pos_] == '\n') ++line_, line_start_ = line_pos_ + 1;
      ++line_pos_;
    }
    return {line_, static_cast<uint32_t>(p - line_start_ + 1)};
  }

  void skip_ws() { skip_ws_collect_comments(); }

  /// Skips blanks and comments; returns the `//` comment lines directly above the next token.
  std::string skip_ws_collect_comments() {
    const size_t start = pos_;
    std::string comment = skip_blanks_and_comments();
    if (pos_ != start) comment_above_ = comment;
    return comment;
  }

  std::string skip_blanks_and_comments() {
    std::string comment;
    while (!at_end()) {
      const char c = cur();
      if (c == '\n') {
        // A blank line detaches the comment above it from what follows.
        size_t q = pos_ + 1;
        while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t' || s_[q] == '\r')) ++q;
        if (q < s_.size() && s_[q] == '\n') comment.clear();
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        size_t e = s_.find('\n', pos_);
        if (e == std::string_view::npos) e = s_.size();
        std::string_view line = s_.substr(pos_ + 2, e - pos_ - 2);
        while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        if (!comment.empty()) comment += '\n';
        comment += std::string(line);
        pos_ = e;
      } else {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) throw Fail{loc(), "unexpected control byte " + hex(u)};
        break;
      }
    }
    return comment;
  }

  static std::string hex(unsigned u) {
    static const char* h = "0123456789ABCDEF";
    return std::string("0x") + h[(u >> 4) & 15] + h[u & 15];
  }

  /// What the next token looks like, for messages (printable, never raw bytes).
  std::string found() {
    skip_ws();
    if (at_end()) return "end of file";
    // A word (letters, digits, _ . % $ -, at most 16 shown) or one punctuation character.
    auto wordish = [](unsigned char u) {
      return std::isalnum(u) || u == '_' || u == '.' || u == '%' || u == '$' || u == '-';
    };
    std::string t;
    for (size_t p = pos_; p < s_.size() && t.size() < 16; ++p) {
      const auto u = static_cast<unsigned char>(s_[p]);
      if (u <= ' ' || u >= 0x7F) break;
      if (!t.empty() && !wordish(u)) break;
      t += s_[p];
      if (!wordish(u)) break;
    }
    if (t.empty()) return "byte " + hex(static_cast<unsigned char>(cur()));
    return "'" + t + "'";
  }

  bool peek(char c) {
    skip_ws();
    return cur() == c;
  }
  bool peek_arrow() {
    skip_ws();
    return s_.substr(pos_, 2) == "=>";
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const char* what) {
    if (!accept(c)) throw Fail{loc(), std::string("expected ") + what + ", found " + found()};
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  std::string ident(const char* what) {
    skip_ws();
    const size_t b = pos_;
    if (!std::isalpha(static_cast<unsigned char>(cur())) && cur() != '_')
      throw Fail{loc(), std::string("expected ") + what + ", found " + found()};
    while (!at_end() && ident_char(cur())) ++pos_;
    return std::string(s_.substr(b, pos_ - b));
  }
  bool peek_word(std::string_view w) {
    skip_ws();
    if (s_.substr(pos_, w.size()) != w) return false;
    const size_t e = pos_ + w.size();
    return e >= s_.size() || !ident_char(s_[e]);
  }

  /// `%name` or `$name` (sigil given): returns the name.
  std::string sigil(char sg, const char* what) {
    skip_ws();
    if (cur() != sg) throw Fail{loc(), std::string("expected ") + what + ", found " + found()};
    ++pos_;
    const size_t b = pos_;
    while (!at_end() && ident_char(cur())) ++pos_;
    if (pos_ == b) throw Fail{loc(), std::string("expected a name after '") + sg + "'"};
    return std::string(s_.substr(b, pos_ - b));
  }

  Number number() {
    skip_ws();
    const Loc at = loc();
    const size_t b = pos_;
    if (cur() == '-' || cur() == '+') ++pos_;
    Number n;
    if (peek_raw_word("inf") || peek_raw_word("nan")) {
      const bool inf = s_[pos_] == 'i';
      pos_ += 3;
      n.is_float = true;
      n.value.approx = inf ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      if (s_[b] == '-') n.value.approx = -n.value.approx;
    } else {
      size_t digits = 0;
      while (!at_end() && (std::isdigit(static_cast<unsigned char>(cur())) || cur() == '.' || cur() == 'e' ||
                           cur() == 'E' || ((cur() == '-' || cur() == '+') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
        if (cur() == '.' || cur() == 'e' || cur() == 'E') n.is_float = true;
        digits += std::isdigit(static_cast<unsigned char>(cur())) != 0;
        ++pos_;
      }
      if (digits == 0) throw Fail{at, "expected a number, found " + found()};
      const std::string text(s_.substr(b, pos_ - b));
      char* end = nullptr;
      n.value.approx = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size()) throw Fail{at, "malformed number '" + text + "'"};
    }
    n.text = std::string(s_.substr(b, pos_ - b));
    n.value.text = n.text;
    return n;
  }
  bool peek_raw_word(std::string_view w) const {
    if (s_.substr(pos_, w.size()) != w) return false;
    const size_t e = pos_ + w.size();
    return e >= s_.size() || !ident_char(s_[e]);
  }

  int64_t integer() {
    const Loc at = loc();
    Number n = number();
    if (n.is_float) throw Fail{at, "expected an integer, found '" + n.text + "'"};
    // Read exactly (every digit), not through a double.
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(n.text.c_str(), &end, 10);
    if (errno == ERANGE || end != n.text.c_str() + n.text.size())
      throw Fail{at, "integer '" + n.text + "' is outside the 64-bit range"};
    return static_cast<int64_t>(v);
  }

  // ---- rules ----
  Rule rule(Loc at) {
    Rule r;
    r.file = path_;
    r.loc = at;
    r.name = ident("a rule name");
    if (accept('[')) options(r);
    expect(':', "':' after the rule name");
    r.source = node(/*result=*/false);
    if (peek_word("where")) {
      ident("where");
      do r.where.push_back(constraint());
      while (accept(','));
    }
    if (!peek_arrow()) throw Fail{loc(), "expected '=>' or 'where', found " + found()};
    pos_ += 2;
    r.result = node(/*result=*/true);
    return r;
  }

  void options(Rule& r) {
    std::set<std::string> given;
    do {
      skip_ws();
      const Loc at = loc();
      const std::string o = ident("a rule option (assumes, benefit, label, bounded)");
      // Each option once (the text format refuses a repeated fast-math flag too): a second benefit
      // silently winning hides a typo.
      if ((o == "assumes" || o == "benefit" || o == "label" || o == "bounded") && !given.insert(o).second)
        throw Fail{at, "rule option '" + o + "' is given twice"};
      if (o == "assumes") {
        do {
          skip_ws();
          const Loc fa = loc();
          const std::string f = ident("a fast-math flag (nnan, ninf, nsz, reassoc, contract, afn)");
          const uint8_t bit = f == "nnan" ? kNNaN : f == "ninf" ? kNInf : f == "nsz" ? kNSZ : f == "reassoc" ? kReassoc
                              : f == "contract" ? kContract : f == "afn" ? kAFn : 0;
          if (!bit) throw Fail{fa, "unknown fast-math flag '" + f + "' (nnan, ninf, nsz, reassoc, contract, afn)"};
          if (r.assumes & bit) throw Fail{fa, "duplicate fast-math flag '" + f + "'"};
          r.assumes |= bit;
        } while (!peek(',') && !peek(']'));
      } else if (o == "benefit") {
        const int64_t b = integer();
        if (b < 0 || b > 65535) throw Fail{at, "benefit must be in 0..65535"};
        r.benefit = static_cast<int>(b);
      } else if (o == "label") {
        do {
          skip_ws();
          const Loc la = loc();
          std::string l = ident("a label");
          if (std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end()) throw Fail{la, "duplicate label '" + l + "'"};
          r.labels.push_back(std::move(l));
        } while (!peek(',') && !peek(']'));
      } else if (o == "bounded") {
        r.bounded = true;
      } else {
        throw Fail{at, "unknown rule option '" + o + "' (assumes, benefit, label, bounded)"};
      }
    } while (accept(','));
    expect(']', "']' after the rule options");
  }

  // ---- integer constraints and expressions (docs/rules.md "Integer constraints") ----
  /// Whether the constraint at the cursor is an integer one: it starts with an integer, `$`, `(`, `-`,
  /// `all NAME`, or one of dim/rank/at/min/max followed by `(`.
  bool at_int_constraint() {
    skip_ws();
    const char c = cur();
    if (c == '$' || c == '(' || c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) return true;
    for (std::string_view w : {"dim", "rank", "at", "min", "max", "if"})
      if (peek_raw_word(w)) {
        size_t q = pos_ + w.size();
        while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) ++q;
        return q < s_.size() && s_[q] == '(';
      }
    if (peek_raw_word("all")) {
      size_t q = pos_ + 3;
      while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) ++q;
      return q < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[q])) || s_[q] == '_');
    }
    return false;
  }

  std::shared_ptr<const IntCond> int_cond() {
    auto first = int_conj();
    if (!peek_word("or")) return first;
    auto o = std::make_shared<IntCond>();
    o->kind = IntCond::Kind::Or, o->loc = first->loc;
    o->kids.push_back(first);
    while (peek_word("or")) {
      ident("or");
      o->kids.push_back(int_conj());
    }
    return o;
  }
  std::shared_ptr<const IntCond> int_conj() {
    auto first = int_atom();
    if (!peek_word("and")) return first;
    auto o = std::make_shared<IntCond>();
    o->kind = IntCond::Kind::And, o->loc = first->loc;
    o->kids.push_back(first);
    while (peek_word("and")) {
      ident("and");
      o->kids.push_back(int_atom());
    }
    return o;
  }
  std::shared_ptr<const IntCond> int_atom() {
    const Nest nest(*this);
    skip_ws();
    auto c = std::make_shared<IntCond>();
    c->loc = loc();
    if (peek_word("all")) {
      ident("all");
      c->kind = IntCond::Kind::All;
      c->var = ident("a variable name after 'all'");
      expect('<', "'<' after the variable of 'all' (all i < E: C)");
      c->rhs = int_expr();
      expect(':', "':' after the bound of 'all' (all i < E: C)");
      c->kids.push_back(int_cond());
      return c;
    }
    c->kind = IntCond::Kind::Cmp;
    c->lhs = int_expr();
    skip_ws();
    const std::string_view two = s_.substr(pos_, 2);
    if (two == "==") c->cmp = IntCond::Cmp::Eq, pos_ += 2;
    else if (two == "!=") c->cmp = IntCond::Cmp::Ne, pos_ += 2;
    else if (two == "<=") c->cmp = IntCond::Cmp::Le, pos_ += 2;
    else if (two == ">=") c->cmp = IntCond::Cmp::Ge, pos_ += 2;
    else if (cur() == '<') c->cmp = IntCond::Cmp::Lt, ++pos_;
    else if (cur() == '>') c->cmp = IntCond::Cmp::Gt, ++pos_;
    else throw Fail{loc(), "expected a comparison (== != < <= > >=), found " + found()};
    c->rhs = int_expr();
    return c;
  }
  std::shared_ptr<const IntExpr> int_binary(IntExpr::Kind k, std::shared_ptr<const IntExpr> l,
                                            std::shared_ptr<const IntExpr> r, Loc at) {
    auto e = std::make_shared<IntExpr>();
    e->kind = k, e->loc = at;
    e->kids = {std::move(l), std::move(r)};
    return e;
  }
  std::shared_ptr<const IntExpr> int_expr() {
    auto l = int_term();
    while (true) {
      skip_ws();
      const Loc at = loc();
      if (cur() == '+') {
        ++pos_;
        l = int_binary(IntExpr::Kind::Add, l, int_term(), at);
      } else if (cur() == '-' && s_.substr(pos_, 2) != "->") {
        ++pos_;
        l = int_binary(IntExpr::Kind::Sub, l, int_term(), at);
      } else {
        return l;
      }
    }
  }
  std::shared_ptr<const IntExpr> int_term() {
    auto l = int_unary();
    while (peek('*')) {
      const Loc at = loc();
      ++pos_;
      l = int_binary(IntExpr::Kind::Mul, l, int_unary(), at);
    }
    return l;
  }
  std::shared_ptr<const IntExpr> int_unary() {
    const Nest nest(*this);
    skip_ws();
    const Loc at = loc();
    if (cur() == '-' && !(pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
      ++pos_;
      auto zero = std::make_shared<IntExpr>();
      zero->loc = at;
      return int_binary(IntExpr::Kind::Sub, zero, int_unary(), at);
    }
    return int_primary();
  }
  std::shared_ptr<const IntExpr> int_primary() {
    const Nest nest(*this);
    skip_ws();
    auto e = std::make_shared<IntExpr>();
    e->loc = loc();
    const char c = cur();
    if (c == '(') {
      ++pos_;
      auto in = int_expr();
      expect(')', "')'");
      return in;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
      e->kind = IntExpr::Kind::Lit, e->lit = integer();
      return e;
    }
    if (c == '$') {
      e->kind = IntExpr::Kind::Cap, e->name = sigil('$', "a capture");
      return e;
    }
    if (c == '%') throw Fail{e->loc, "a value capture is no integer: write dim(%x, k) or rank(%x)"};
    const std::string w = ident("an integer expression (an integer, $a, dim, rank, at, min, max, if)");
    if (w == "dim" || w == "rank") {
      e->kind = w == "dim" ? IntExpr::Kind::Dim : IntExpr::Kind::Rank;
      expect('(', "'(' after dim/rank");
      skip_ws();
      if (cur() == '%') e->value_sigil = true, e->name = sigil('%', "a value");
      else e->name = sigil('$', "'%x' or '$T'");
      if (e->kind == IntExpr::Kind::Dim) {
        expect(',', "',' and the axis of dim(X, k)");
        e->kids.push_back(int_expr());
      }
      expect(')', "')'");
      return e;
    }
    if (w == "at") {
      e->kind = IntExpr::Kind::At;
      expect('(', "'(' after at");
      e->name = sigil('$', "a '$' capture (an integer-list attribute or an integer literal)");
      expect(',', "',' and the index of at($a, k)");
      e->kids.push_back(int_expr());
      expect(')', "')'");
      return e;
    }
    if (w == "min" || w == "max") {
      e->kind = w == "min" ? IntExpr::Kind::Min : IntExpr::Kind::Max;
      expect('(', "'(' after min/max");
      e->kids.push_back(int_expr());
      expect(',', "','");
      e->kids.push_back(int_expr());
      expect(')', "')'");
      return e;
    }
    if (w == "if") {
      e->kind = IntExpr::Kind::If;
      expect('(', "'(' after if");
      e->cond = int_cond();
      expect(',', "',' after the condition of if(C, a, b)");
      e->kids.push_back(int_expr());
      expect(',', "','");
      e->kids.push_back(int_expr());
      expect(')', "')'");
      return e;
    }
    if (peek('(')) throw Fail{e->loc, "unknown integer function '" + w + "' (dim, rank, at, min, max, if)"};
    e->kind = IntExpr::Kind::Var, e->name = w;
    return e;
  }

  Constraint constraint() {
    const Nest nest(*this);
    Constraint c;
    skip_ws();
    c.loc = loc();
    if (at_int_constraint()) {
      const size_t b = pos_;
      c.cond = int_cond();
      std::string_view t = s_.substr(b, pos_ - b);
      while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
      c.text = std::string(t);
      return c;
    }
    c.pred = ident("a predicate");
    if (c.pred == "not") {
      c.negated = true;
      skip_ws();
      c.loc = loc();
      if (at_int_constraint())
        throw Fail{c.loc, "'not' takes a predicate; negate an integer comparison by its opposite (== and !=, < and >=)"};
      c.pred = ident("a predicate after 'not'");
      if (c.pred == "not")
        throw Fail{c.loc, "'not' twice: a constraint takes one 'not' ('not not p(...)' is p(...): drop both)"};
    }
    expect('(', "'(' after the predicate name");
    if (!peek(')')) {
      do {
        skip_ws();
        Constraint::Arg a;
        if (cur() == '%') {
          a.kind = Constraint::Arg::Kind::Value, a.name = sigil('%', "a value");
        } else if (cur() == '$') {
          a.kind = Constraint::Arg::Kind::Capture, a.name = sigil('$', "a capture");
        } else if (std::isdigit(static_cast<unsigned char>(cur())) || cur() == '-' || cur() == '+') {
          a.kind = Constraint::Arg::Kind::Int, a.i = integer();
        } else {
          a.kind = Constraint::Arg::Kind::Word, a.name = ident("an argument");
        }
        c.args.push_back(std::move(a));
      } while (accept(','));
    }
    expect(')', "')' after the predicate's arguments");
    skip_ws();
    if ((cur() == '=' && s_.substr(pos_, 2) != "=>") || cur() == '<' || cur() == '>' || cur() == '!')
      throw Fail{c.loc, std::string(find_predicate(c.pred) ? "'" + c.pred + "' is a predicate, not an integer"
                                                           : "unknown integer function '" + c.pred + "'") +
                            " (integer expressions use dim, rank, at, min, max, if)"};
    return c;
  }

  std::unique_ptr<Node> node(bool result) {
    const Nest nest(*this);
    skip_ws();
    auto n = std::make_unique<Node>();
    n->loc = loc();
    if (cur() == '%') {
      n->kind = Node::Kind::Value;
      n->name = sigil('%', "a value");
      if (!result && accept(':')) n->type_capture = sigil('$', "a type capture '$T'");
      return n;
    }
    const std::string word = ident("an op, '%value', 'splat(N)' or 'const(...)'");
    if (word == "splat") {
      n->kind = Node::Kind::Splat;
      expect('(', "'(' after splat");
      n->number = number();
      expect(')', "')' after the splat value");
    } else if (word == "const") {
      n->kind = Node::Kind::Const;
      expect('(', "'(' after const");
      if (result) {
        n->helper = ident("a literal helper, e.g. reciprocal($c)");
        expect('(', "'(' after the helper name");
        do {
          // A `$` capture alone, or (for an integer parameter: int_lit) an integer expression.
          skip_ws();
          size_t q = pos_ + 1;
          while (q < s_.size() && ident_char(s_[q])) ++q;
          while (q < s_.size() && (s_[q] == ' ' || s_[q] == '\t')) ++q;
          const bool lone_capture = cur() == '$' && q < s_.size() && (s_[q] == ',' || s_[q] == ')');
          if (lone_capture || cur() == '%' || !(cur() == '$' || cur() == '(' || cur() == '-' || std::isalnum(static_cast<unsigned char>(cur())))) {
            n->helper_args.push_back(sigil('$', "a '$' capture (a helper takes '$' captures only: 'ptir prove --list-natives')"));
            n->helper_exprs.push_back(nullptr);
          } else {
            n->helper_args.push_back("");
            n->helper_exprs.push_back(int_expr());
          }
        } while (accept(','));
        expect(')', "')' after the helper's arguments");
      } else {
        n->name = sigil('$', "a literal capture '$c'");
      }
      expect(')', "')' after const(...)");
    } else {
      auto op = op_by_mnemonic(word);
      if (!op) throw Fail{n->loc, "unknown op '" + word + "'"};
      n->kind = Node::Kind::Op;
      n->op = *op;
      expect('(', "'(' after the op name");
      if (!peek(')')) {
        do n->operands.push_back(node(result));
        while (accept(','));
      }
      expect(')', "')' after the operands");
      if (accept('{')) {
        do n->attrs.push_back(attr(result));
        while (accept(','));
        expect('}', "'}' after the attributes");
      }
    }
    if (accept(':')) {
      skip_ws();
      if (cur() == '$') {
        const std::string t = sigil('$', "a type capture");
        if (result) n->type = {TypeRef::Kind::TypeCapture, t};
        else n->type_capture = t;
      } else if (result && peek_word("dims")) {
        // dims(%x|$T, [i < E: F]): the dtype of the capture, dims computed per axis.
        ident("dims");
        expect('(', "'(' after dims");
        skip_ws();
        n->type.kind = TypeRef::Kind::Dims;
        if (cur() == '%') n->type.value_sigil = true, n->type.name = sigil('%', "a value");
        else n->type.name = sigil('$', "'%x' or '$T' (whose dtype the type takes)");
        expect(',', "',' and the dims ([i < E: F])");
        expect('[', "'[' (the dims: [i < E: F])");
        n->type.var = ident("a variable");
        expect('<', "'<'");
        n->type.count = int_expr();
        expect(':', "':' after the bound ([i < E: F])");
        n->type.elem = int_expr();
        expect(']', "']'");
        expect(')', "')' after dims(...)");
      } else if (result && peek_word("type")) {
        ident("type");
        expect('(', "'(' after type");
        n->type = {TypeRef::Kind::OfCapture, sigil('%', "a value")};
        expect(')', "')' after type(%value)");
      } else {
        throw Fail{loc(), std::string(result ? "expected '$T', 'type(%value)' or 'dims(...)'" : "expected a type capture '$T'") +
                              " after ':', found " + found()};
      }
    }
    if (!result && peek_word("as")) {
      ident("as");
      n->as_name = sigil('%', "a value name after 'as'");
    }
    return n;
  }

  AttrExpr attr(bool result) {
    AttrExpr a;
    a.loc = loc();
    a.name = ident("an attribute name");
    expect('=', "'=' after the attribute name");
    skip_ws();
    if (cur() == '$') {
      a.kind = AttrExpr::Kind::Capture;
      a.capture = sigil('$', "a capture");
    } else if (result && accept('[')) {
      // `[i < E: F]` (a per-axis list) or `[1, 0]`.
      skip_ws();
      size_t q = pos_;
      while (q < s_.size() && ident_char(s_[q])) ++q;
      size_t r = q;
      while (r < s_.size() && (s_[r] == ' ' || s_[r] == '\t')) ++r;
      if (q > pos_ && std::isalpha(static_cast<unsigned char>(s_[pos_])) && r < s_.size() && s_[r] == '<') {
        a.kind = AttrExpr::Kind::List;
        a.var = ident("a variable");
        expect('<', "'<'");
        a.count = int_expr();
        expect(':', "':' after the bound of the list ([i < E: F])");
        a.elem = int_expr();
        expect(']', "']' after the list");
        return a;
      }
      a.kind = AttrExpr::Kind::Ints;
      if (!peek(']')) {
        do a.ints.push_back(integer());
        while (accept(','));
      }
      expect(']', "']' after the integers");
    } else if (accept('[')) {
      a.kind = AttrExpr::Kind::Ints;
      if (!peek(']')) {
        do a.ints.push_back(integer());
        while (accept(','));
      }
      expect(']', "']' after the integers");
    } else if (std::isdigit(static_cast<unsigned char>(cur())) || cur() == '-' || cur() == '+') {
      a.kind = AttrExpr::Kind::Ints;
      a.ints.push_back(integer());
    } else {
      const std::string w = ident("an attribute value");
      if (result && w == "with_at" && peek('(')) {
        a.kind = AttrExpr::Kind::WithAt;
        expect('(', "'('");
        a.capture = sigil('$', "an attribute capture '$a'");
        expect(',', "',' and the index of with_at($a, k, E)");
        a.count = int_expr();
        expect(',', "',' and the new entry of with_at($a, k, E)");
        a.elem = int_expr();
        expect(')', "')' after with_at's arguments");
      } else if (result && peek('(')) {
        a.kind = AttrExpr::Kind::Call;
        a.capture = w;
        expect('(', "'('");
        do a.args.push_back(sigil('$', "an attribute capture '$p'"));
        while (accept(','));
        expect(')', "')' after the helper's arguments");
      } else {
        a.kind = AttrExpr::Kind::Word;
        a.word = w;
      }
    }
    return a;
  }

  /// Nesting of the recursive descent (operands, parentheses, unary minus, `not`): a file nesting deeper
  /// than kMaxNesting is an error at that point, not a stack overflow.
  static constexpr int kMaxNesting = 256;
  struct Nest {
    Parser& p;
    explicit Nest(Parser& q) : p(q) {
      if (p.depth_ >= kMaxNesting)
        throw Fail{p.loc(), "nesting deeper than " + std::to_string(kMaxNesting) + " levels"};
      ++p.depth_;
    }
    ~Nest() { --p.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };
  int depth_ = 0;

  std::string_view s_;
  std::string path_;
  size_t pos_ = 0;
  mutable size_t line_pos_ = 0, line_start_ = 0;
  mutable uint32_t line_ = 1;
  std::string comment_above_;  ///< comment lines directly above the token at pos_ (see parse())
};

}  // namespace

std::string RuleError::format() const {
  auto one = [](const RuleError& e) {
    if (e.loc.line == 0) return e.file + ": error: " + e.message;
    std::string s = e.file + ":" + std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col) + ": error: " + e.message;
    if (!e.line_text.empty()) {
      s += "\n  " + e.line_text + "\n  ";
      // The caret under the column (tabs kept, so it lines up in a terminal).
      for (size_t k = 0; k + 1 < e.loc.col && k < e.line_text.size(); ++k) s += e.line_text[k] == '\t' ? '\t' : ' ';
      s += "^";
    }
    return s;
  };
  std::string s = one(*this);
  for (const RuleError& e : more) s += "\n" + one(e);
  if (!more.empty()) s += "\n" + std::to_string(more.size() + 1) + " errors in " + file;
  return s;
}

void attach_source_lines(RuleError& e, std::string_view text) {
  auto line_of = [&](uint32_t line) -> std::string {
    if (line == 0) return "";
    size_t b = 0;
    for (uint32_t k = 1; k < line; ++k) {
      b = text.find('\n', b);
      if (b == std::string_view::npos) return "";
      ++b;
    }
    size_t end = text.find('\n', b);
    std::string_view l = text.substr(b, end == std::string_view::npos ? std::string_view::npos : end - b);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return std::string(l);
  };
  e.line_text = line_of(e.loc.line);
  for (RuleError& m : e.more) m.line_text = line_of(m.loc.line);
}

std::variant<RuleFile, RuleError> parse_rule_text(std::string_view text, const std::string& path) {
  Parser p(text, path);
  RuleFile f = p.parse();
  f.text = std::string(text);
  if (p.errors.empty()) return f;
  RuleError e{path, p.errors[0].loc, p.errors[0].message, "", {}};
  for (size_t k = 1; k < p.errors.size(); ++k) e.more.push_back(RuleError{path, p.errors[k].loc, p.errors[k].message, "", {}});
  attach_source_lines(e, text);
  return e;
}

}  // namespace ptir::rules
