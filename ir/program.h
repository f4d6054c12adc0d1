// The PTIR program: functions and regions (bodies), instructions with stable ids, SSA values and use lists.
//
// Storage is a few flat arrays owned by the Program (instructions, values, operand slots), so ids stay
// stable for the life of the program and an op costs well under 100 bytes. Types, literals and attribute
// sets are interned. Every body is a single block ending in a `return` instruction, so body results are
// ordinary uses and `replace_all_uses` updates them like any other operand.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/attrs.h"
#include "ir/fastmath.h"
#include "ir/intern_index.h"
#include "ir/ops.h"
#include "ir/pod_array.h"
#include "ir/tensor.h"

namespace ptir {

using InstId = uint32_t;
using ValueId = uint32_t;
using TypeId = uint32_t;
using LiteralId = uint32_t;
using AttrSetId = uint32_t;
using BodyId = uint32_t;
inline constexpr uint32_t kNone = UINT32_MAX;

/// An array's storage in bytes: where it starts, how much is written, how much is reserved.
struct StorageBytes {
  const void* data = nullptr;
  size_t used = 0, capacity = 0;
};

/// How a value is defined.
enum class ValueKind : uint8_t { Result, Param, Literal };

struct ValueInfo {
  TypeId type;
  uint32_t def;        ///< Result: InstId; Param: BodyId; Literal: LiteralId
  uint32_t first_use;  ///< head of the use list (index into the operand slots), kNone if unused
  uint32_t name;       ///< offset into the name arena, kNone if unnamed
  uint16_t index;      ///< result index / parameter index
  ValueKind kind;
};

/// One operand slot: which value it reads and its links in that value's use list.
struct Use {
  ValueId value;
  InstId owner;
  uint32_t next;
  uint32_t prev;
};

struct Inst {
  OpCode op;
  bool erased;
  uint16_t num_results;
  uint32_t num_operands;
  uint32_t first_operand;  ///< index of operand 0 in the operand slots; operands are contiguous
  ValueId first_result;    ///< results are contiguous value ids
  AttrSetId attrs;
  BodyId body;
  InstId prev, next;       ///< order within the body
};

/// A function or a region: parameters, a single block of instructions, and a final `return`.
struct Body {
  std::string name;
  bool is_region = false;
  std::vector<ValueId> params;
  std::vector<TypeId> result_types;
  InstId first = kNone, last = kNone;  ///< last is the return once the body is complete
  uint32_t num_insts = 0;              ///< live instructions, return included
  FastMath fastmath{};                 ///< the function's `attributes[fastmath[...]]` (regions: none)
};

/// A whole PTIR file.
class Program {
 public:
  Program();

  // ---- interning ----
  TypeId intern_type(const TensorType& t);
  const TensorType& type(TypeId id) const { return types_[id]; }
  size_t num_types() const { return types_.size(); }
  LiteralId intern_literal(const Tensor& t);
  const Tensor& literal(LiteralId id) const { return literals_[id]; }
  AttrSetId intern_attrs(const AttrSet& s);
  const AttrSet& attrs(AttrSetId id) const { return attr_sets_[id]; }
  AttrSet& mutable_attrs_for_resolution(AttrSetId id) { return attr_sets_[id]; }
  size_t num_attr_sets() const { return attr_sets_.size(); }

  // ---- bodies ----
  BodyId add_body(std::string name, bool is_region);
  Body& body(BodyId b) { return bodies_[b]; }
  const Body& body(BodyId b) const { return bodies_[b]; }
  size_t num_bodies() const { return bodies_.size(); }
  /// The entry function: the one named @main, else the first function. kNone if there is no function.
  BodyId entry() const;
  /// The first function (or region) named `name`, kNone if there is none. One hash lookup: a table per
  /// kind kept by add_body, so parsing N functions or region references is linear. Bodies are named
  /// once, by add_body (Body::name must not be changed afterwards).
  BodyId find_body(std::string_view name, bool is_region) const;
  ValueId add_param(BodyId b, TypeId type, std::string_view name);
  /// The fast-math flags in force in body b: a function's own flags; a region inherits the flags of the
  /// functions whose instructions (directly or through other regions) use it, all of them in common
  /// (a region used by no function has none). Scans the program for a region: runs pass the flags down.
  FastMath fastmath_of(BodyId b) const;
  /// The fast-math flags that hold in body b for *some* function running it: a function's own flags; for
  /// a region, the union over the functions that use it (what may change around a rewrite made there).
  FastMath fastmath_of_any(BodyId b) const;

  // ---- instructions ----
  /// Creates an instruction in body `b` before `before` (kNone: at the end, before the return if any).
  InstId create_inst(BodyId b, OpCode op, std::span<const ValueId> operands, AttrSetId attrs,
                     std::span<const TypeId> result_types, InstId before = kNone);
  /// Creates the body's terminator.
  InstId set_return(BodyId b, std::span<const ValueId> results);
  InstId terminator(BodyId b) const;
  /// The value standing for an inline literal operand (shared per literal).
  ValueId literal_value(LiteralId lit);
  /// Erases an instruction whose results have no uses. Its operand uses are dropped.
  void erase_inst(InstId i);
  /// Moves instruction `i` to just before `before` in the same body.
  void move_before(InstId i, InstId before);
  void set_operand(InstId i, uint32_t idx, ValueId v);
  /// Replaces an instruction's attribute set (patterns do this through ProgramRewriter's in-place update).
  void set_attrs(InstId i, AttrSetId a) {
    ++edits_;
    insts_[i].attrs = a;
  }
  /// Every use of `from` (operands and body results) now reads `to`.
  void replace_all_uses(ValueId from, ValueId to);

  // ---- inspection ----
  const Inst& inst(InstId i) const { return insts_[i]; }
  size_t num_inst_slots() const { return insts_.size(); }
  OpCode op(InstId i) const { return insts_[i].op; }
  uint32_t num_operands(InstId i) const { return insts_[i].num_operands; }
  ValueId operand(InstId i, uint32_t k) const { return uses_[insts_[i].first_operand + k].value; }
  std::span<const Use> operand_uses(InstId i) const {
    return {uses_.data() + insts_[i].first_operand, insts_[i].num_operands};
  }
  uint32_t num_results(InstId i) const { return insts_[i].num_results; }
  ValueId result(InstId i, uint32_t k = 0) const { return insts_[i].first_result + k; }
  const AttrSet& attrs_of(InstId i) const { return attr_sets_[insts_[i].attrs]; }

  const ValueInfo& value(ValueId v) const { return values_[v]; }
  size_t num_values() const { return values_.size(); }
  TypeId type_id(ValueId v) const { return values_[v].type; }
  const TensorType& type_of(ValueId v) const { return types_[values_[v].type]; }
  /// Defining instruction of a result value; kNone for parameters and literals.
  InstId def_inst(ValueId v) const { return values_[v].kind == ValueKind::Result ? values_[v].def : kNone; }
  /// The literal of a literal value or of a `constant` result; nullptr otherwise.
  const Tensor* constant_of(ValueId v) const {
    const ValueInfo& vi = values_[v];
    if (vi.kind == ValueKind::Literal) return &literals_[vi.def];
    if (vi.kind == ValueKind::Result && insts_[vi.def].op == OpCode::Constant) return constant_value(vi.def);
    return nullptr;  // inline: most operands are neither, and every matcher asks
  }
  bool has_uses(ValueId v) const { return values_[v].first_use != kNone; }
  bool has_one_use(ValueId v) const {
    uint32_t u = values_[v].first_use;
    return u != kNone && uses_[u].next == kNone;
  }
  const Use& use(uint32_t u) const { return uses_[u]; }
  /// Calls f(InstId owner, uint32_t operand_index) for every use of v.
  template <typename F>
  void for_each_use(ValueId v, F&& f) const {
    for (uint32_t u = values_[v].first_use; u != kNone;) {
      uint32_t next = uses_[u].next;
      f(uses_[u].owner, u - insts_[uses_[u].owner].first_operand);
      u = next;
    }
  }
  /// Distinct instructions using v, in use-list order.
  std::vector<InstId> users(ValueId v) const;

  std::string_view name(ValueId v) const {
    uint32_t n = values_[v].name;
    return n == kNone ? std::string_view() : std::string_view(names_.data() + n);
  }
  void set_name(ValueId v, std::string_view name);
  /// The name of v as a NUL-terminated string (no length computed), nullptr if v is unnamed.
  const char* name_chars(ValueId v) const {
    uint32_t n = values_[v].name;
    return n == kNone ? nullptr : names_.data() + n;
  }

  /// Live instructions of body b in order (return included).
  template <typename F>
  void for_each_inst(BodyId b, F&& f) const {
    for (InstId i = bodies_[b].first; i != kNone;) {
      InstId next = insts_[i].next;
      f(i);
      i = next;
    }
  }
  /// Approximate heap bytes held by the program (capacity of its arrays and tables).
  size_t memory_bytes() const;
  /// Pre-sizes the arrays for about n instructions and name_bytes bytes of value names (0: 6 per
  /// instruction).
  void reserve(size_t n, size_t name_bytes = 0);
  /// The storage of the instruction, value, operand-slot and name arrays, for a helper that faults in
  /// their pages ahead of a parser (ir/prefault.h). Valid until the next change of the program.
  std::array<StorageBytes, 4> storage() const {
    return {StorageBytes{insts_.data(), insts_.size() * sizeof(Inst), insts_.capacity() * sizeof(Inst)},
            StorageBytes{values_.data(), values_.size() * sizeof(ValueInfo), values_.capacity() * sizeof(ValueInfo)},
            StorageBytes{uses_.data(), uses_.size() * sizeof(Use), uses_.capacity() * sizeof(Use)},
            StorageBytes{names_.data(), names_.size(), names_.capacity()}};
  }
  /// Number of live instructions over all bodies (returns included).
  size_t num_live_insts() const;
  /// How many edits the program has had: each call of add_body, add_param, create_inst, set_return,
  /// erase_inst, move_before, set_operand, set_attrs, replace_all_uses and set_name adds at least one
  /// (interning a type, literal or attribute set does not: it changes no instruction). A
  /// ProgramRewriter compares it with the edits it made itself, so an edit made around it (a plugin's
  /// pattern that casts away the const of `rw.program()`) reaches its listeners as
  /// `notify_unseen_edit` (rewriter/listener.h). Writes through the non-const `body()` reference are not
  /// counted.
  uint64_t edit_count() const { return edits_; }

 private:
  FastMath fastmath_reaching(BodyId b, bool any) const;
  ValueId new_value(TypeId t, ValueKind kind, uint32_t def, uint16_t index);
  const Tensor* constant_value(InstId i) const;  ///< a `constant` instruction's value attribute
  void link_use(uint32_t u);
  void unlink_use(uint32_t u);

  std::vector<TensorType> types_;
  InternIndex type_index_;
  std::vector<Tensor> literals_;
  InternIndex literal_index_;
  std::vector<ValueId> literal_values_;  ///< LiteralId -> shared value, kNone if not made yet
  std::vector<AttrSet> attr_sets_;
  InternIndex attr_index_;
  std::vector<Body> bodies_;
  /// Heterogeneous string hash, so find_body looks up a string_view without building a string.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, BodyId, NameHash, std::equal_to<>> body_index_[2];  ///< [is_region]
  BodyId main_ = kNone, first_func_ = kNone;  ///< for entry()
  // Grown with realloc (ir/pod_array.h): a pass that appends instructions does not copy them all.
  PodArray<Inst> insts_;
  PodArray<ValueInfo> values_;
  PodArray<Use> uses_;
  std::string names_;  ///< NUL-terminated value names
  uint64_t edits_ = 0;  ///< edit_count()
};

/// Asks the kernel to back the whole 2 MB pages inside [p, p + bytes) with transparent huge pages
/// (madvise MADV_HUGEPAGE; Linux only, a no-op elsewhere or below 4 MB). Call it on a large array
/// *before* its pages are first written: one fault then maps 2 MB instead of 4 KB (parsing a 1M-op
/// file: 4,600 page faults instead of 34,700), and random accesses into a large table miss the TLB far
/// less. Advice only: the contents and the allocation do not change, and failure is ignored. Only when
/// PTIR_HUGE_PAGES=1 is set (read once): the first writes may stall in the kernel's compaction, one
/// parse in a few took 3x longer (docs/rewriter.md "Parse speed").
void advise_huge_pages(const void* p, size_t bytes);

/// Copies an AttrSet into the program and returns the id of the single-attribute set {name: ints}.
AttrSetId make_ints_attr(Program& p, std::string_view name, std::vector<int64_t> ints);

}  // namespace ptir
