// Program storage: interning, instruction lists and use lists.
#include "ir/program.h"

#include <cassert>
#include <cstdint>
#include <cstdlib>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ptir {

void advise_huge_pages(const void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Opt-in (PTIR_HUGE_PAGES=1): with the kernel's usual THP defrag setting ("madvise"), an advised
  // region's first write may stall in direct compaction. Measured on the 1M realistic parse: best 0.22
  // vs 0.23 µs/op, but one run in six took 0.83 (0.76 s in the kernel); predictable times win.
  static const bool on = [] {
    const char* e = std::getenv("PTIR_HUGE_PAGES");
    return e && e[0] == '1';
  }();
  if (!on) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < 2 * kHuge) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice only: errors ignored
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {
/// Grows an array by a quarter instead of doubling, so a program that gains a few instructions after
/// being parsed into exactly-sized arrays does not double its memory.
template <typename V>
void reserve_one_more(V& v) {
  if (v.size() == v.capacity()) {
    v.reserve(v.capacity() + v.capacity() / 4 + 16);
    advise_huge_pages(v.data(), v.capacity() * sizeof(v[0]));
  }
}
}  // namespace

Program::Program() {
  attr_sets_.emplace_back();  // id 0: no attributes
  attr_index_.insert(hash_value(attr_sets_[0]), 0);
}

TypeId Program::intern_type(const TensorType& t) {
  const size_t h = hash_value(t);
  if (TypeId id = type_index_.find(h, [&](TypeId k) { return types_[k] == t; }); id != kNone) return id;
  types_.push_back(t);
  const TypeId id = static_cast<TypeId>(types_.size() - 1);
  type_index_.insert(h, id);
  return id;
}

LiteralId Program::intern_literal(const Tensor& t) {
  const size_t h = hash_value(t);
  if (LiteralId id = literal_index_.find(h, [&](LiteralId k) { return literals_[k] == t; }); id != kNone) return id;
  literals_.push_back(t);
  literal_values_.push_back(kNone);
  const LiteralId id = static_cast<LiteralId>(literals_.size() - 1);
  literal_index_.insert(h, id);
  return id;
}

AttrSetId Program::intern_attrs(const AttrSet& s) {
  if (s.attrs.empty()) return 0;
  const size_t h = hash_value(s);
  if (AttrSetId id = attr_index_.find(h, [&](AttrSetId k) { return attr_sets_[k] == s; }); id != kNone) return id;
  attr_sets_.push_back(s);
  const AttrSetId id = static_cast<AttrSetId>(attr_sets_.size() - 1);
  attr_index_.insert(h, id);
  return id;
}

BodyId Program::add_body(std::string name, bool is_region) {
  ++edits_;
  BodyId b = static_cast<BodyId>(bodies_.size());
  body_index_[is_region].emplace(name, b);  // the first body of a name keeps it
  if (!is_region && first_func_ == kNone) first_func_ = b;
  if (!is_region && main_ == kNone && name == "main") main_ = b;
  bodies_.push_back(Body{std::move(name), is_region, {}, {}, kNone, kNone, 0});
  return b;
}

BodyId Program::entry() const { return main_ != kNone ? main_ : first_func_; }

BodyId Program::find_body(std::string_view name, bool is_region) const {
  const auto& index = body_index_[is_region];
  auto it = index.find(name);
  return it == index.end() ? kNone : it->second;
}

ValueId Program::new_value(TypeId t, ValueKind kind, uint32_t def, uint16_t index) {
  reserve_one_more(values_);
  values_.push_back(ValueInfo{t, def, kNone, kNone, index, kind});
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId Program::add_param(BodyId b, TypeId type, std::string_view name) {
  ++edits_;
  ValueId v = new_value(type, ValueKind::Param, b, static_cast<uint16_t>(bodies_[b].params.size()));
  bodies_[b].params.push_back(v);
  if (!name.empty()) set_name(v, name);
  return v;
}

void Program::set_name(ValueId v, std::string_view name) {
  ++edits_;
  // A name read from this program (a fold giving its constant the folded value's name) points into
  // names_, which the reserve below may move: copy it out first.
  if (!name.empty() && name.data() >= names_.data() && name.data() < names_.data() + names_.size()) {
    const std::string copy(name);
    return set_name(v, copy);
  }
  values_[v].name = static_cast<uint32_t>(names_.size());
  if (names_.capacity() - names_.size() < name.size() + 1) {
    names_.reserve(names_.size() + name.size() + 1);  // (std::string at least doubles)
    advise_huge_pages(names_.data(), names_.capacity());
  }
  names_.append(name);
  names_.push_back('\0');
}

void Program::link_use(uint32_t u) {
  ValueInfo& vi = values_[uses_[u].value];
  uses_[u].prev = kNone;
  uses_[u].next = vi.first_use;
  if (vi.first_use != kNone) uses_[vi.first_use].prev = u;
  vi.first_use = u;
}

void Program::unlink_use(uint32_t u) {
  Use& us = uses_[u];
  if (us.prev != kNone) uses_[us.prev].next = us.next;
  else values_[us.value].first_use = us.next;
  if (us.next != kNone) uses_[us.next].prev = us.prev;
  us.prev = us.next = kNone;
}

InstId Program::create_inst(BodyId b, OpCode op, std::span<const ValueId> operands, AttrSetId attrs,
                            std::span<const TypeId> result_types, InstId before) {
  ++edits_;
  InstId id = static_cast<InstId>(insts_.size());
  Body& body = bodies_[b];
  if (before == kNone && body.last != kNone && insts_[body.last].op == OpCode::Return) before = body.last;
  Inst in{};
  in.op = op;
  in.erased = false;
  in.num_results = static_cast<uint16_t>(result_types.size());
  in.num_operands = static_cast<uint32_t>(operands.size());
  in.first_operand = static_cast<uint32_t>(uses_.size());
  in.attrs = attrs;
  in.body = b;
  in.first_result = static_cast<ValueId>(values_.size());
  for (size_t k = 0; k < result_types.size(); ++k)
    new_value(result_types[k], ValueKind::Result, id, static_cast<uint16_t>(k));
  if (before == kNone) {
    in.prev = body.last;
    in.next = kNone;
  } else {
    in.prev = insts_[before].prev;
    in.next = before;
  }
  reserve_one_more(insts_);
  insts_.push_back(in);
  if (in.prev != kNone) insts_[in.prev].next = id;
  else body.first = id;
  if (in.next != kNone) insts_[in.next].prev = id;
  else body.last = id;
  ++body.num_insts;
  if (uses_.capacity() - uses_.size() < operands.size()) {
    uses_.reserve(uses_.capacity() + uses_.capacity() / 4 + operands.size() + 16);
    advise_huge_pages(uses_.data(), uses_.capacity() * sizeof(Use));
  }
  for (ValueId v : operands) {
    uses_.push_back(Use{v, id, kNone, kNone});
    link_use(static_cast<uint32_t>(uses_.size() - 1));
  }
  return id;
}

InstId Program::set_return(BodyId b, std::span<const ValueId> results) {
  ++edits_;
  assert(terminator(b) == kNone);
  return create_inst(b, OpCode::Return, results, 0, {}, kNone);
}

InstId Program::terminator(BodyId b) const {
  InstId l = bodies_[b].last;
  return l != kNone && insts_[l].op == OpCode::Return ? l : kNone;
}

ValueId Program::literal_value(LiteralId lit) {
  if (literal_values_[lit] == kNone)
    literal_values_[lit] = new_value(intern_type(literals_[lit].type), ValueKind::Literal, lit, 0);
  return literal_values_[lit];
}

void Program::erase_inst(InstId i) {
  ++edits_;
  Inst& in = insts_[i];
  assert(!in.erased);
  for (uint32_t k = 0; k < in.num_results; ++k) assert(!has_uses(in.first_result + k));
  for (uint32_t k = 0; k < in.num_operands; ++k) unlink_use(in.first_operand + k);
  Body& body = bodies_[in.body];
  if (in.prev != kNone) insts_[in.prev].next = in.next;
  else body.first = in.next;
  if (in.next != kNone) insts_[in.next].prev = in.prev;
  else body.last = in.prev;
  in.prev = in.next = kNone;
  in.erased = true;
  --body.num_insts;
}

void Program::move_before(InstId i, InstId before) {
  ++edits_;
  Inst& in = insts_[i];
  Body& body = bodies_[in.body];
  if (i == before || in.next == before) return;
  if (in.prev != kNone) insts_[in.prev].next = in.next;
  else body.first = in.next;
  if (in.next != kNone) insts_[in.next].prev = in.prev;
  else body.last = in.prev;
  in.prev = insts_[before].prev;
  in.next = before;
  if (in.prev != kNone) insts_[in.prev].next = i;
  else body.first = i;
  insts_[before].prev = i;
}

void Program::set_operand(InstId i, uint32_t idx, ValueId v) {
  ++edits_;
  uint32_t u = insts_[i].first_operand + idx;
  if (uses_[u].value == v) return;
  unlink_use(u);
  uses_[u].value = v;
  link_use(u);
}

void Program::replace_all_uses(ValueId from, ValueId to) {
  ++edits_;
  if (from == to) return;
  for (uint32_t u = values_[from].first_use; u != kNone;) {
    uint32_t next = uses_[u].next;
    unlink_use(u);
    uses_[u].value = to;
    link_use(u);
    u = next;
  }
}

const Tensor* Program::constant_value(InstId i) const {
  const AttrValue* a = attr_sets_[insts_[i].attrs].find("value");
  return a ? &a->lit : nullptr;
}

std::vector<InstId> Program::users(ValueId v) const {
  std::vector<InstId> out;
  for_each_use(v, [&](InstId owner, uint32_t) {
    for (InstId o : out)
      if (o == owner) return;
    out.push_back(owner);
  });
  return out;
}

size_t Program::memory_bytes() const {
  size_t n = insts_.capacity() * sizeof(Inst) + values_.capacity() * sizeof(ValueInfo) +
             uses_.capacity() * sizeof(Use) + names_.capacity() + types_.capacity() * sizeof(TensorType) +
             literal_values_.capacity() * sizeof(ValueId) + bodies_.capacity() * sizeof(Body);
  for (const Tensor& t : literals_) n += sizeof(Tensor) + t.data.capacity() + t.type.dims.capacity() * 8;
  for (const AttrSet& s : attr_sets_) n += sizeof(AttrSet) + s.attrs.capacity() * sizeof(Attr);
  for (const TensorType& t : types_) n += t.dims.capacity() * 8;
  for (const Body& b : bodies_) n += b.params.capacity() * 4 + b.result_types.capacity() * 4;
  n += type_index_.memory_bytes() + literal_index_.memory_bytes() + attr_index_.memory_bytes();
  n += (body_index_[0].size() + body_index_[1].size()) * 64;
  return n;
}

void Program::reserve(size_t n, size_t name_bytes) {
  insts_.reserve(n);
  values_.reserve(n + n / 8);
  uses_.reserve(n * 2);
  names_.reserve(name_bytes ? name_bytes : n * 6);
  advise_huge_pages(insts_.data(), insts_.capacity() * sizeof(Inst));
  advise_huge_pages(values_.data(), values_.capacity() * sizeof(ValueInfo));
  advise_huge_pages(uses_.data(), uses_.capacity() * sizeof(Use));
  advise_huge_pages(names_.data(), names_.capacity());
}

size_t Program::num_live_insts() const {
  size_t n = 0;
  for (const Body& b : bodies_) n += b.num_insts;
  return n;
}

AttrSetId make_ints_attr(Program& p, std::string_view name, std::vector<int64_t> ints) {
  AttrSet s;
  s.attrs.push_back(Attr{std::string(name), AttrValue{AttrKind::Ints, std::move(ints), {}, {}}});
  return p.intern_attrs(s);
}

}  // namespace ptir
