// The dialect-conversion driver (docs/rewriter.md, "Conversion").
#include "rewriter/conversion/conversion.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include <deque>
#include <sstream>

#include "rewriter/describe.h"

namespace ptir::conversion {

std::string conversion_kind(OpCode op, DType elem, std::string_view dir, std::optional<DType> accum) {
  const bool folds = find_attr_spec(op, "accum") != nullptr;  // the ops that take an accumulation dtype
  std::string k(mnemonic(op));
  if (!dir.empty()) k += " dir[" + std::string(dir) + "]";
  k += " " + std::string(dtype_name(elem));
  if (folds) k += accum ? " accum[" + std::string(dtype_name(*accum)) + "]" : std::string(" no accum");
  return k;
}

std::string conversion_kind_of(const Program& p, InstId i) {
  const DType elem = p.type_of(p.num_operands(i) > 0 ? p.operand(i, 0) : p.result(i)).dtype;
  const AttrSet& attrs = p.attrs_of(i);
  std::string dir;
  if (p.op(i) == OpCode::Compare)
    if (const AttrValue* d = attrs.find("dir")) dir = d->text;
  std::optional<DType> accum;
  if (const AttrValue* a = attrs.find("accum"); a && a->kind == AttrKind::DType && a->ints.size() == 1 &&
                                                a->ints[0] >= 0 && a->ints[0] < kNumDTypes)
    accum = static_cast<DType>(a->ints[0]);
  return conversion_kind(p.op(i), elem, dir, accum);
}

std::string inst_text(const Program& p, InstId i) { return describe_inst(p, i); }

std::optional<DType> compute_dtype(const Program& p, InstId i) {
  const OpCode op = p.op(i);
  switch (op) {
    case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: case OpCode::DotGeneral:
    case OpCode::ReduceWindow: case OpCode::SegmentReduce: {
      const DType elem = p.type_of(p.operand(i, 0)).dtype;
      if (const AttrValue* a = p.attrs_of(i).find("accum"); a && a->kind == AttrKind::DType && !a->ints.empty())
        return static_cast<DType>(a->ints[0]);
      return elem == DType::F16 || elem == DType::BF16 ? DType::F32 : elem;
    }
    case OpCode::Compare: return p.type_of(p.operand(i, 0)).dtype;
    case OpCode::Select: case OpCode::Cast: case OpCode::StopGradient: return std::nullopt;
    default:
      if (has_trait(op, Elementwise)) return p.type_of(p.result(i)).dtype;
      return std::nullopt;
  }
}

std::optional<std::string> ConversionTarget::illegal_reason(const Program& p, InstId i) const {
  const OpCode op = p.op(i);
  if (op == OpCode::Return) return std::nullopt;
  if (auto it = illegal_ops.find(op); it != illegal_ops.end())
    return std::string(mnemonic(op)) + " is illegal on target " + name + (it->second.empty() ? "" : ": " + it->second);
  if (auto it = dynamic.find(op); it != dynamic.end())
    if (std::optional<std::string> why = it->second(p, i)) return why;
  if (std::optional<DType> d = compute_dtype(p, i)) {
    if (!legal_dtypes.count(*d))
      return std::string(mnemonic(op)) + " computes in " + dtype_name(*d) + ", not a legal dtype of target " + name;
    // A reduction or dot_general accumulating in a legal dtype still needs a kernel for its operands.
    for (uint32_t k = 0; k < p.num_operands(i); ++k)
      if (const DType o = p.type_of(p.operand(i, k)).dtype; !legal_dtypes.count(o))
        return std::string(mnemonic(op)) + " reads " + dtype_name(o) + ", not a legal dtype of target " + name;
  }
  return std::nullopt;
}

namespace {

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> w;
  std::istringstream in{std::string(line)};
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

std::optional<OpCode> op_by_name(std::string_view s) {
  for (int k = 0; k < kNumOps; ++k)
    if (mnemonic(static_cast<OpCode>(k)) == s) return static_cast<OpCode>(k);
  return std::nullopt;
}

}  // namespace

std::optional<ConversionTarget> parse_target(std::string_view text, std::string_view file, std::string& err) {
  ConversionTarget t;
  t.source = std::string(file);
  int lineno = 0;
  auto fail = [&](const std::string& m) {
    err = std::string(file) + (lineno > 0 ? ":" + std::to_string(lineno) : std::string()) + ": error: " + m;
    return std::nullopt;
  };
  int target_line = 0;
  std::map<DType, int> convert_line;  // the line of each `convert FROM ...`
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineno;
    // `//` starts a comment (quotes inside it are comment text); a reason in double quotes may follow an
    // illegal op, then only a comment.
    std::string quoted, trailing;
    bool has_quoted = false;
    const size_t c0 = line.find("//"), q = line.find('"');
    if (q != std::string_view::npos && (c0 == std::string_view::npos || q < c0)) {
      const size_t q2 = line.find('"', q + 1);
      if (q2 == std::string_view::npos) return fail("unterminated \"");
      quoted = std::string(line.substr(q + 1, q2 - q - 1));
      has_quoted = true;
      std::string_view rest = line.substr(q2 + 1);
      if (size_t c = rest.find("//"); c != std::string_view::npos) rest = rest.substr(0, c);
      if (const std::vector<std::string> after = words(rest); !after.empty()) trailing = after[0];
      line = line.substr(0, q);
    } else if (c0 != std::string_view::npos) {
      line = line.substr(0, c0);
    }
    std::vector<std::string> w = words(line);
    if (w.empty()) {
      if (has_quoted) return fail("a quoted reason belongs after 'illegal-op OP'");
      continue;
    }
    const std::string& key = w[0];
    if (has_quoted && key != "illegal-op") return fail("a quoted reason belongs after 'illegal-op OP', not '" + key + "'");
    if (!trailing.empty()) return fail("text after the quoted reason: '" + trailing + "'");
    if (key == "target") {
      if (w.size() != 2) return fail("'target' takes one name");
      if (target_line) return fail("a second 'target' line (the first is line " + std::to_string(target_line) + ")");
      target_line = lineno;
      t.name = w[1];
    } else if (key == "legal-dtypes") {
      for (size_t k = 1; k < w.size(); ++k) {
        std::optional<DType> d = parse_dtype(w[k]);
        if (!d || dtype_name(*d) != w[k]) return fail("unknown dtype '" + w[k] + "'");
        t.legal_dtypes.insert(*d);
      }
    } else if (key == "illegal-op") {
      if (w.size() != 2) return fail("'illegal-op' takes one op, then an optional \"reason\"");
      std::optional<OpCode> op = op_by_name(w[1]);
      if (!op) return fail("unknown op '" + w[1] + "'");
      // Every body ends in a return and no pattern can remove it: the driver never checks it, so a
      // line naming it would be accepted and do nothing (a red team's target file).
      if (*op == OpCode::Return) return fail("'illegal-op return': every body ends in a return, which no conversion can remove");
      t.illegal_ops[*op] = quoted;
    } else if (key == "convert") {
      // convert bf16 f32: compute bf16 arithmetic in f32
      if (w.size() != 3) return fail("'convert' takes two dtypes: convert FROM TO");
      std::optional<DType> a = parse_dtype(w[1]), b = parse_dtype(w[2]);
      if (!a || dtype_name(*a) != w[1]) return fail("unknown dtype '" + w[1] + "'");
      if (!b || dtype_name(*b) != w[2]) return fail("unknown dtype '" + w[2] + "'");
      if (auto it = convert_line.find(*a); it != convert_line.end())
        return fail(std::string("a second 'convert ") + dtype_name(*a) + "' (the first is line " + std::to_string(it->second) + ")");
      convert_line[*a] = lineno;
      t.type_map[*a] = *b;
    } else if (key == "patterns") {
      for (size_t k = 1; k < w.size(); ++k) {
        // Listed twice, a pattern would be tried twice and its "did not apply" reason printed twice.
        if (auto it = std::find(t.patterns.begin(), t.patterns.end(), w[k]); it != t.patterns.end())
          return fail("pattern '" + w[k] + "' is listed twice (first on line " +
                      std::to_string(t.pattern_lines[static_cast<size_t>(it - t.patterns.begin())]) + ")");
        t.patterns.push_back(w[k]), t.pattern_lines.push_back(lineno);
      }
    } else if (key == "accept-accum-change") {
      if (w.size() != 1) return fail("'accept-accum-change' takes nothing");
      t.accepts_accum_change = true;
    } else {
      return fail("unknown line '" + key +
                  "' (target, legal-dtypes, illegal-op, convert, patterns, accept-accum-change)");
    }
  }
  lineno = 0;
  if (t.name.empty()) return fail("no 'target NAME' line");
  for (auto [from, to] : t.type_map)
    if (!t.legal_dtypes.count(to)) {
      lineno = convert_line[from];
      return fail(std::string("convert ") + dtype_name(from) + " " + dtype_name(to) + ": " + dtype_name(to) +
                  " is not a legal dtype (add it to a 'legal-dtypes' line)");
    }
  return t;
}

DType TypeConverter::convert(DType d) const {
  auto it = t_.type_map.find(d);
  return it == t_.type_map.end() ? d : it->second;
}

ValueId TypeConverter::materialize(ProgramRewriter& rw, InstId at, ValueId v, DType d) const {
  TensorType ty = rw.type_of(v);
  if (ty.dtype == d) return v;
  ty.dtype = d;
  return rw.insert_before(at, OpCode::Cast, {v}, rw.intern_type(ty));
}

std::string legalization_cycle(const std::vector<const ConversionPattern*>& patterns) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const size_t n = patterns.size();
  Graph g(n);
  for (size_t a = 0; a < n; ++a)
    for (OpCode gen : patterns[a]->generates())
      for (size_t b = 0; b < n; ++b)
        for (OpCode r : patterns[b]->roots())
          if (r == gen && !boost::edge(a, b, g).second) boost::add_edge(a, b, g);
  std::vector<int> comp(n);
  const int nc = n ? boost::strong_components(g, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g)))
                   : 0;
  std::vector<std::vector<size_t>> members(nc);
  for (size_t v = 0; v < n; ++v) members[comp[v]].push_back(v);
  for (const auto& m : members) {
    if (m.size() == 1 && !boost::edge(m[0], m[0], g).second) continue;
    std::string s = "the legalization graph has a cycle:";
    for (size_t v : m) s += " " + std::string(patterns[v]->name());
    return s + " (each may produce an op another converts; a conversion could run forever)";
  }
  return "";
}

ConversionResult apply_conversion(Program& p, const ConversionTarget& t,
                                  const std::vector<const ConversionPattern*>& patterns, Mode mode) {
  ConversionResult res;
  if (std::string c = legalization_cycle(patterns); !c.empty()) {
    res.ok = false;
    res.error = c;
    return res;
  }
  // Rollback: a copy of the program is taken first and put back when a full conversion fails; analysis
  // converts the copy and leaves `p` alone.
  Program saved = p;
  Program& work = mode == Mode::Analysis ? saved : p;
  TypeConverter tc(t);
  {
    ProgramRewriter rw(work);
    const InstId first_new = static_cast<InstId>(work.num_inst_slots());
    std::deque<InstId> queue;
    for (BodyId b = 0; b < work.num_bodies(); ++b) work.for_each_inst(b, [&](InstId i) { queue.push_back(i); });
    for (InstId i : queue)
      if (t.illegal_reason(work, i)) ++res.illegal_before;
    // Each instruction is tried once; what a rewrite creates is queued and tried in turn. A rewrite
    // removes its root, so this ends after at most (instructions + created instructions) steps, and the
    // acyclic legalization graph bounds how deep creation goes.
    size_t budget = 64 * (queue.size() + 16);
    while (!queue.empty() && budget-- > 0) {
      const InstId i = queue.front();
      queue.pop_front();
      if (rw.is_erased(i)) continue;
      std::optional<std::string> why = t.illegal_reason(work, i);
      if (!why) continue;
      const std::string text = inst_text(work, i);
      std::string tried;
      const ConversionPattern* used = nullptr;
      for (const ConversionPattern* pat : patterns) {
        bool root = false;
        for (OpCode r : pat->roots()) root |= r == work.op(i);
        if (!root) continue;
        if (!pat->exact() && !t.accepts_accum_change) {
          tried += std::string(tried.empty() ? "" : "; ") + std::string(pat->name()) +
                   ": not exact, and the target does not accept it";
          continue;
        }
        std::string fail;
        if (!pat->match(work, i, t, fail)) {
          tried += std::string(tried.empty() ? "" : "; ") + std::string(pat->name()) + ": " + fail;
          continue;
        }
        used = pat;
        break;
      }
      if (!used) {
        res.still_illegal.push_back({work.body(work.inst(i).body).name, text,
                                     *why + "; " + (tried.empty() ? "no conversion pattern has this op as its root"
                                                                  : "no pattern applied (" + tried + ")")});
        continue;
      }
      // Record what exists, convert the operands (the adaptor), rewrite, then queue what was created.
      const size_t before = work.num_inst_slots();
      Adaptor a;
      for (uint32_t k = 0; k < work.num_operands(i); ++k) a.original.push_back(work.operand(i, k));
      for (ValueId v : a.original) a.converted.push_back(tc.materialize(rw, i, v, tc.convert(work.type_of(v).dtype)));
      const std::string fn = work.body(work.inst(i).body).name;
      res.fired_on.insert(std::string(used->name()) + " " + conversion_kind_of(work, i));
      used->rewrite(rw, i, a, t, tc);
      ++res.converted;
      ++res.fired[std::string(used->name())];
      if (mode == Mode::Analysis) res.would_convert.push_back("@" + fn + ": " + text + "  (by " + std::string(used->name()) + ")");
      for (InstId n = static_cast<InstId>(before); n < work.num_inst_slots(); ++n)
        if (!work.inst(n).erased) queue.push_back(n);
    }
    if (!queue.empty()) {
      res.ok = false;
      res.error = "the conversion did not finish within its step budget (a pattern keeps creating illegal ops)";
    }
    // Materialized casts no longer read (an operand converted for nothing) are removed.
    for (InstId n = first_new; n < work.num_inst_slots(); ++n)
      if (!work.inst(n).erased && work.op(n) == OpCode::Cast && !work.has_uses(work.result(n))) rw.erase_inst(n);
  }
  if (mode == Mode::Full && (!res.still_illegal.empty() || !res.error.empty())) {
    p = std::move(saved);
    res.ok = false;
    res.restored = true;
  }
  return res;
}

}  // namespace ptir::conversion
