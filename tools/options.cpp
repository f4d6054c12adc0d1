// The option parser and the generated help (tools/options.h).
#include "tools/options.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace ptir::tool {
namespace {

constexpr size_t kHelpWidth = 100;  ///< columns of the generated help
constexpr size_t kMaxOptionColumn = 28;  ///< where option help starts at most

/// Control bytes (and bytes >= 0x7f) as \xHH, so an error never prints them raw.
std::string escaped(std::string_view s) {
  std::string o;
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      o += "\\x";
      o += hex[c >> 4];
      o += hex[c & 15];
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

bool in_scope(const OptionSpec& o, const CommandSpec& cmd) { return (o.scope & cmd.bit) != 0; }

/// "(see 'ptir CMD --help')" after every usage error.
std::string fail(const CommandSpec& cmd, const std::string& what) {
  return "ptir " + cmd.name + ": " + what + " (see 'ptir " + cmd.name + " --help')";
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? std::string(sep) : "") + v[i];
  return s;
}

/// Checks a value against its option's kind; returns the error ("" when fine).
std::string check_value(const OptionSpec& o, const std::string& v) {
  const std::string name = option_spelling(o.name);
  switch (o.kind) {
    case ValueKind::None:
    case ValueKind::String:
    case ValueKind::Path:
      return "";
    case ValueKind::Int:
    case ValueKind::UInt: {
      const std::string range = (o.kind == ValueKind::Int ? "an integer from " : "an integer from ") +
                                std::to_string(o.min) + " to " + std::to_string(o.max);
      const std::string bad = name + " expects " + range + ", got " + escaped(v);
      const char* b = v.data();
      const char* e = v.data() + v.size();
      if (!v.empty() && v[0] == '-') {
        int64_t x = 0;
        auto r = std::from_chars(b, e, x);
        if (o.kind != ValueKind::Int || r.ec != std::errc() || r.ptr != e || x < o.min) return bad;
        return "";
      }
      uint64_t x = 0;
      auto r = std::from_chars(b, e, x);
      if (r.ec != std::errc() || r.ptr != e || x > o.max) return bad;
      if (o.min > 0 && x < static_cast<uint64_t>(o.min)) return bad;
      if (o.kind == ValueKind::Int && x > static_cast<uint64_t>(INT64_MAX)) return bad;
      return "";
    }
    case ValueKind::Enum: {
      if (std::find(o.choices.begin(), o.choices.end(), v) != o.choices.end()) return "";
      std::string s = name + " expects one of " + join(o.choices, ", ") + ", got " + escaped(v);
      if (std::string near = closest_name(v, o.choices); !near.empty()) s += ", did you mean " + near + "?";
      return s;
    }
    case ValueKind::List: {
      const std::vector<std::string> items = split_list(v);
      if (items.empty()) return name + " needs a value";
      if (o.choices.empty()) return "";
      for (const std::string& it : items)
        if (std::find(o.choices.begin(), o.choices.end(), it) == o.choices.end()) {
          std::string s = name + ": unknown item " + escaped(it) + " (known: " + join(o.choices, " ") + ")";
          if (std::string near = closest_name(it, o.choices); !near.empty()) s += ", did you mean " + near + "?";
          return s;
        }
      return "";
    }
  }
  return "";
}

/// Wraps one paragraph (no '\n') to kHelpWidth, every line starting at `indent` columns. A paragraph
/// that starts with spaces keeps them; one of the form "  TERM  text" hangs its continuation lines
/// under "text".
std::string wrap_paragraph(std::string_view p, size_t indent) {
  size_t lead = p.find_first_not_of(' ');
  if (lead == std::string_view::npos) return "\n";
  size_t hang = lead;
  std::string prefix(p.substr(0, lead));
  std::string_view rest = p.substr(lead);
  if (lead > 0) {
    const size_t gap = rest.find("  ");
    if (gap != std::string_view::npos) {
      const size_t text = rest.find_first_not_of(' ', gap);
      if (text != std::string_view::npos) {
        hang = lead + text;
        prefix += std::string(rest.substr(0, text));
        rest = rest.substr(text);
      }
    }
  }
  std::string out, line = std::string(indent, ' ') + prefix;
  bool empty_line = true;
  size_t b = 0;
  while (b < rest.size()) {
    size_t e = rest.find(' ', b);
    if (e == std::string_view::npos) e = rest.size();
    std::string_view word = rest.substr(b, e - b);
    b = e + 1;
    if (word.empty()) continue;
    if (!empty_line && line.size() + 1 + word.size() > kHelpWidth) {
      out += line + "\n";
      line = std::string(indent + hang, ' ');
      empty_line = true;
    }
    if (!empty_line) line += ' ';
    line += word;
    empty_line = false;
  }
  return out + line + "\n";
}

/// Wraps `text` (paragraphs separated by '\n'; an empty line stays empty) at `indent` columns.
std::string wrap(std::string_view text, size_t indent) {
  std::string out;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    std::string_view p = text.substr(b, e - b);
    out += p.empty() ? "\n" : wrap_paragraph(p, indent);
    b = e + 1;
    if (e == text.size()) break;
  }
  return out;
}

/// "--name META", "-o FILE", "--help, -h".
std::string option_head(const OptionSpec& o) {
  std::string s = option_spelling(o.name);
  if (o.kind != ValueKind::None) s += " " + (o.meta.empty() ? std::string("V") : o.meta);
  if (!o.alias.empty()) s += ", " + option_spelling(o.alias);
  return s;
}

/// The rows of `cmd`, in table order, without the retired spellings.
std::vector<const OptionSpec*> visible(std::span<const OptionSpec> table, const CommandSpec& cmd) {
  std::vector<const OptionSpec*> out;
  for (const OptionSpec& o : table)
    if (in_scope(o, cmd) && o.retired.empty()) out.push_back(&o);
  return out;
}

/// The bracketed synopsis items of a command's options: "[--inputs FILE | --random SEED]", "[--rules FILE]...".
std::vector<std::string> synopsis_items(const std::vector<const OptionSpec*>& opts) {
  std::vector<std::string> items;
  std::vector<std::string> groups_done;
  for (const OptionSpec* o : opts) {
    if (o->name == "help" || o->name == "version") continue;
    if (!o->exclusive.empty()) {
      if (std::find(groups_done.begin(), groups_done.end(), o->exclusive) != groups_done.end()) continue;
      groups_done.push_back(o->exclusive);
      std::string s = "[";
      bool first = true;
      for (const OptionSpec* p : opts)
        if (p->exclusive == o->exclusive) {
          std::string h = option_spelling(p->name);
          if (p->kind != ValueKind::None) h += " " + p->meta;
          s += (first ? "" : " | ") + h;
          first = false;
        }
      items.push_back(s + "]");
      continue;
    }
    std::string h = option_spelling(o->name);
    if (o->kind != ValueKind::None) h += " " + o->meta;
    items.push_back("[" + h + "]" + (o->repeatable ? "..." : ""));
  }
  return items;
}

/// Lays out "usage: ptir CMD OPERANDS ITEMS..." over lines of kHelpWidth, continuation lines under OPERANDS.
std::string usage_lines(const CommandSpec& cmd, const std::vector<std::string>& items) {
  std::string out;
  for (size_t k = 0; k < cmd.synopsis.size(); ++k) {
    const std::string lead = (k == 0 ? "usage: " : "       ") + std::string("ptir ") + cmd.name + " ";
    std::string line = lead + cmd.synopsis[k];
    if (k == 0) {
      for (const std::string& it : items) {
        if (line.size() + 1 + it.size() > kHelpWidth) {
          out += line + "\n";
          line = std::string(lead.size(), ' ') + it;
        } else {
          line += (line.back() == ' ' ? "" : " ") + it;
        }
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

/// "(1 to 86400000; default 10000; repeatable; excludes --random; needs --validate)".
std::string option_notes(const OptionSpec& o, const std::vector<const OptionSpec*>& opts) {
  std::vector<std::string> notes;
  if (o.kind == ValueKind::Int || o.kind == ValueKind::UInt) {
    if (!(o.min == 0 && o.max == UINT64_MAX)) notes.push_back(std::to_string(o.min) + " to " + std::to_string(o.max));
  }
  if (o.kind == ValueKind::Enum) notes.push_back("one of: " + join(o.choices, ", "));
  if (o.kind == ValueKind::List && !o.choices.empty()) notes.push_back("items: " + join(o.choices, " "));
  if (!o.dflt_help.empty()) notes.push_back("default: " + o.dflt_help);
  else if (!o.dflt.empty()) notes.push_back("default: " + o.dflt);
  if (o.repeatable) notes.push_back("repeatable");
  if (!o.exclusive.empty()) {
    std::vector<std::string> others;
    for (const OptionSpec* p : opts)
      if (p != &o && p->exclusive == o.exclusive) others.push_back(option_spelling(p->name));
    if (!others.empty()) notes.push_back("excludes " + join(others, ", "));
  }
  if (!o.needs.empty()) notes.push_back("needs " + option_spelling(o.needs));
  return notes.empty() ? "" : "(" + join(notes, "; ") + ")";
}

/// The "options:" block: one entry per option, its help wrapped from the option column.
std::string options_block(const std::vector<const OptionSpec*>& opts) {
  size_t col = 0;
  for (const OptionSpec* o : opts) col = std::max(col, 2 + option_head(*o).size() + 2);
  col = std::min(col, kMaxOptionColumn);
  std::string out;
  for (const OptionSpec* o : opts) {
    std::string text = o->help;
    const std::string notes = option_notes(*o, opts);
    if (!notes.empty()) text += (text.empty() ? "" : " ") + notes;
    const std::string head = "  " + option_head(*o);
    std::string body = wrap(text, col);
    if (head.size() + 2 <= col) {
      body.replace(0, head.size(), head);  // the first line starts at `col`: put the head in its spaces
      out += body;
    } else {
      out += head + "\n" + body;
    }
  }
  return out;
}

}  // namespace

std::string option_spelling(std::string_view name) {
  return (name.size() == 1 ? "-" : "--") + std::string(name);
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and transpositions of two adjacent
  // characters ("otp" -> "opt") each cost 1.
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string closest_name(std::string_view typed, std::span<const std::string> known) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const std::string& k : known) {
    const size_t d = edit_distance(typed, k);
    if (d < best_d) best_d = d, best = k;
  }
  // A typo: at most 2 edits, and fewer than half the typed characters (so "x" suggests nothing).
  if (best_d <= 2 && best_d * 2 < typed.size()) return best;
  if (typed.size() >= 3) {
    std::string only;
    for (const std::string& k : known)
      if (k.size() > typed.size() && k.compare(0, typed.size(), typed) == 0) {
        if (!only.empty()) return "";
        only = k;
      }
    return only;
  }
  return "";
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string_view::npos) e = s.size();
    if (e > b) out.emplace_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

const CommandSpec* find_command(std::span<const CommandSpec> commands, std::string_view name) {
  for (const CommandSpec& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

std::variant<Args, std::string> Args::parse(std::span<const OptionSpec> table, std::span<const CommandSpec> commands,
                                            const CommandSpec& cmd, std::span<const std::string> argv) {
  Args a;
  a.cmd_ = &cmd;
  for (const OptionSpec& o : table)
    if (in_scope(o, cmd)) a.specs_.push_back(&o);
  auto lookup = [&](std::string_view name) -> const OptionSpec* {
    for (const OptionSpec* o : a.specs_)
      if (o->name == name || (!o->alias.empty() && o->alias == name)) return o;
    return nullptr;
  };
  bool operands_only = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (operands_only || s.size() < 2 || s[0] != '-') {
      a.positional_.push_back(s);
      continue;
    }
    if (s == "--") {
      operands_only = true;
      continue;
    }
    const std::string_view body = std::string_view(s).substr(s[1] == '-' ? 2 : 1);
    const size_t eq = body.find('=');
    const std::string name(body.substr(0, eq));
    const OptionSpec* o = name.empty() || name[0] == '-' ? nullptr : lookup(name);
    if (!o) {
      const std::string shown = escaped(std::string_view(s).substr(0, s[1] == '-' ? 2 + name.size() : 1 + name.size()));
      std::vector<std::string> known;
      for (const OptionSpec* p : a.specs_)
        if (p->retired.empty()) known.push_back(p->name);
      std::string msg = "unknown option " + shown;
      if (std::string near = closest_name(name, known); !near.empty())
        msg += ", did you mean " + option_spelling(near) + "?";
      else {
        std::vector<std::string> owners;
        for (const OptionSpec& p : table)
          if (p.name == name && p.retired.empty())
            for (const CommandSpec& c : commands)
              if ((p.scope & c.bit) && c.bit != cmd.bit) owners.push_back(c.name);
        if (!owners.empty()) msg += " (an option of ptir " + join(owners, ", ptir ") + ")";
      }
      return fail(cmd, msg);
    }
    if (!o->retired.empty()) return fail(cmd, o->retired);
    const std::string spelled = option_spelling(o->name);
    std::string value;
    if (o->kind == ValueKind::None) {
      if (eq != std::string_view::npos) return fail(cmd, spelled + " takes no value, got " + escaped(s));
    } else if (eq != std::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (i + 1 < argv.size()) {
      value = argv[++i];
    } else {
      return fail(cmd, spelled + " needs a value");
    }
    if (o->kind != ValueKind::None && value.empty()) return fail(cmd, spelled + " needs a value");
    if (std::string err = check_value(*o, value); !err.empty()) return fail(cmd, err);
    if (!o->repeatable)
      for (const auto& [p, v] : a.given_)
        if (p == o) return fail(cmd, spelled + " given twice");
    a.given_.emplace_back(o, std::move(value));
  }
  for (const auto& [o, v] : a.given_) {
    if (!o->exclusive.empty())
      for (const auto& [p, w] : a.given_)
        if (p != o && p->exclusive == o->exclusive)
          return fail(cmd, option_spelling(o->name) + " and " + option_spelling(p->name) + " exclude each other");
    if (!o->needs.empty() && !a.has(o->needs))
      return fail(cmd, option_spelling(o->name) + " needs " + option_spelling(o->needs));
  }
  if (a.positional_.size() > cmd.max_operands)
    return fail(cmd, "unexpected argument '" + escaped(a.positional_[cmd.max_operands]) + "'");
  if (a.positional_.size() < cmd.min_operands) {
    std::vector<std::string> missing;
    for (size_t k = a.positional_.size(); k < cmd.min_operands && k < cmd.operands.size(); ++k)
      missing.push_back(cmd.operands[k]);
    return fail(cmd, "missing " + join(missing, " and "));
  }
  return a;
}

const OptionSpec& Args::spec(std::string_view name) const {
  for (const OptionSpec* o : specs_)
    if (o->name == name && o->retired.empty()) return *o;
  throw std::logic_error("ptir " + (cmd_ ? cmd_->name : std::string("?")) + " reads option " +
                         option_spelling(name) + ", which the option table does not give it");
}

bool Args::has(std::string_view name) const {
  const OptionSpec* o = &spec(name);
  for (const auto& [p, v] : given_)
    if (p == o) return true;
  return false;
}

std::optional<std::string> Args::get(std::string_view name) const {
  const OptionSpec* o = &spec(name);
  for (const auto& [p, v] : given_)
    if (p == o) return v;
  if (!o->dflt.empty()) return o->dflt;
  return std::nullopt;
}

std::vector<std::string> Args::all(std::string_view name) const {
  const OptionSpec* o = &spec(name);
  std::vector<std::string> out;
  for (const auto& [p, v] : given_)
    if (p == o) out.push_back(v);
  return out;
}

std::vector<std::string> Args::list(std::string_view name) const {
  const OptionSpec& o = spec(name);
  if (o.kind != ValueKind::List) throw std::logic_error(option_spelling(name) + " is not a list option");
  std::vector<std::string> out;
  bool given = false;
  for (const auto& [p, v] : given_)
    if (p == &o) {
      given = true;
      for (std::string& s : split_list(v)) out.push_back(std::move(s));
    }
  if (!given) out = split_list(o.dflt);
  return out;
}

std::optional<uint64_t> Args::u64(std::string_view name) const {
  const OptionSpec& o = spec(name);
  if (o.kind != ValueKind::UInt) throw std::logic_error(option_spelling(name) + " is not an unsigned option");
  auto v = get(name);
  if (!v) return std::nullopt;
  uint64_t x = 0;
  std::from_chars(v->data(), v->data() + v->size(), x);
  return x;
}

std::optional<int64_t> Args::i64(std::string_view name) const {
  const OptionSpec& o = spec(name);
  if (o.kind != ValueKind::Int) throw std::logic_error(option_spelling(name) + " is not an integer option");
  auto v = get(name);
  if (!v) return std::nullopt;
  int64_t x = 0;
  std::from_chars(v->data(), v->data() + v->size(), x);
  return x;
}

std::string command_help(std::span<const OptionSpec> table, const CommandSpec& cmd) {
  const std::vector<const OptionSpec*> opts = visible(table, cmd);
  std::string s = usage_lines(cmd, synopsis_items(opts));
  if (!cmd.description.empty()) s += "\n" + wrap(cmd.description, 0);
  s += "\noptions:\n" + options_block(opts);
  if (!cmd.epilogue.empty()) s += "\n" + wrap(cmd.epilogue, 0);
  return s;
}

std::string tool_help(std::span<const OptionSpec> table, std::span<const CommandSpec> commands) {
  std::string s =
      "usage: ptir COMMAND [ARGS]\n"
      "       ptir --help | --version\n\n"
      "PTIR tensor-IR toolkit: text format, verifier, reference interpreter, rewrite driver, Z3-backed\n"
      "equivalence checker and pattern prover.\n\ncommands:\n";
  size_t w = 0;
  for (const CommandSpec& c : commands) w = std::max(w, c.name.size());
  for (const CommandSpec& c : commands)
    s += "  " + c.name + std::string(w - c.name.size() + 2, ' ') + c.summary + "\n";
  // The options every command takes.
  Scope all = 0;
  for (const CommandSpec& c : commands) all |= c.bit;
  std::vector<const OptionSpec*> common;
  for (const OptionSpec& o : table)
    if ((o.scope & all) == all && o.retired.empty()) common.push_back(&o);
  s += "\noptions of every command:\n" + options_block(common);
  s += "\n" + wrap(
      "'ptir COMMAND --help' lists a command's options. Options are written --name, -name, --name=VALUE, "
      "-name=VALUE or --name VALUE, anywhere among the operands; '--' ends the options; '-' is an operand "
      "(stdin). A usage error names the option: an unknown one (with the closest name), a missing or "
      "malformed value (with the accepted range), an option given twice that is not repeatable, two that "
      "exclude each other, an unexpected operand.\n"
      "-o FILE is written to a temporary file next to FILE and renamed over it when the command succeeds: "
      "exit 0, or a complete verdict or report (check-equiv 1 and 2; prove and corpus 1 when they list "
      "failures). Otherwise FILE keeps its old content, so FILE may also be an input. Devices, FIFOs and "
      "/dev/stdout are written directly. Every write is checked, stdout too: a failed one prints 'ptir "
      "COMMAND: error: writing OUT: REASON' and fails the command.\n"
      "exit codes: 0 success, 1 bad input (parse/verify/run error) or an output that cannot be written, 2 "
      "usage error; check-equiv: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 error (bad file, usage, an output that "
      "cannot be written).",
      0);
  return s;
}

}  // namespace ptir::tool
