// Certified optimization (`ptir opt --certify`): record every rewrite the pipeline applied and certify
// the run when each came from a pattern PROVED FOR ALL SHAPES (verify/allshape) and bounded-PROVED
// (verify/prove). What is trusted rather than proved (constant folding through the interpreter, CSE,
// DCE, changes made outside any named rewrite) is listed by name in the certificate, never hidden.
// Unlike translation validation (one query per output element), the cost does not grow with tensor
// sizes: it is one proof per distinct pattern, whatever the model's dims.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/fastmath.h"
#include "rewriter/listener.h"
#include "rewriter/pattern.h"
#include "verify/prove/prove.h"

namespace ptir::prove {

/// What made a rewrite, by provenance: the built-in hook, or the pattern's name and origin (file:line
/// of a rule, "C++", a plugin). Names alone prove nothing: a user rule may be called "fold".
struct RewriteKey {
  RewriteKind kind = RewriteKind::Pattern;
  std::string name, origin;
  auto operator<=>(const RewriteKey&) const = default;
};

/// A listener counting successful rewrites by provenance (RewriteSource::kind and the pattern's
/// origin) and changes made outside any bracketed rewrite. Attach it to the ProgramRewriter the
/// pipeline runs on.
class RewriteRecorder final : public RewriteListener {
 public:
  /// `p`: the program the rewriter edits (to read the fast-math flags of the function a rewrite is in).
  explicit RewriteRecorder(const Program* p = nullptr) : p_(p) {}
  void notify_pattern_begin(const RewriteSource& who, InstId root) override {
    changed_.push_back(false);
    dce_ = who.kind == RewriteKind::Dce;
    // Any function running the body counts: a rewrite in a region shared by a reassoc function and a
    // plain one changes the reassoc function too.
    const FastMath fm = p_ && root != kNone ? p_->fastmath_of_any(p_->inst(root).body) : FastMath{};
    reassoc_ = fm.has(FastMathFlag::Reassoc);
    contract_ = fm.has(FastMathFlag::Contract);
  }
  void notify_pattern_end(const RewriteSource& who, InstId root, bool success) override {
    const bool changed = !changed_.empty() && changed_.back();
    if (!changed_.empty()) changed_.pop_back();
    if (!changed_.empty() && changed) changed_.back() = true;  // a nested bracket's change is its parent's too
    const RewriteKey k = key(who);
    // A rewrite that reported failure but changed the IR (the driver's contract; checked only under
    // --expensive-checks): nothing proves what it did, so the run is not certified.
    if (!success && changed) ++failed_but_changed[k];
    // Provenance is fixed when the pattern set is frozen; a pattern that tried to change its name or
    // origin afterwards (to pass for another) is never certified.
    if (who.pattern && who.pattern->renamed_after_freeze() > 0) renamed.insert(k);
    if (who.kind == RewriteKind::Pattern && (!who.pattern || !who.pattern->provenance_frozen())) renamed.insert(k);
    if (!success) return;
    ++applied[k];
    if (reassoc_) ++under_reassoc[k];
    if (contract_) ++under_contract[k];
  }
  void notify_unseen_edit() override {
    change();
    ++unseen_edits;
  }
  void notify_inserted(InstId) override { change(); }
  void notify_modified(InstId) override { change(); }
  void notify_replaced(InstId, std::span<const ValueId>) override { change(); }
  void notify_erased(InstId i) override {
    change();
    // Dead code elimination of a `while` (or of an op whose regions run one) may remove a loop that
    // never finishes: the source does not finish, the target does, and the checker cannot prove that
    // (query 5, "loops finish within the bound", is UNKNOWN there). Found by an attack.
    if (dce_ && p_ && may_not_finish(i)) ++dce_loops;
  }

  static RewriteKey key(const RewriteSource& who) {
    // A pattern's name is read from the pattern itself (its frozen provenance), never from the free
    // `who.name`.
    RewriteKey k{who.kind, who.pattern ? std::string(who.pattern->debug_name()) : std::string(who.name), ""};
    if (who.kind == RewriteKind::Pattern && who.pattern) k.origin = std::string(who.pattern->origin());
    return k;
  }

  std::map<RewriteKey, int64_t> applied;  ///< provenance -> successful applications
  /// provenance -> applications in functions carrying reassoc (outside an all-shape proof unless assumed)
  std::map<RewriteKey, int64_t> under_reassoc;
  /// provenance -> applications in functions carrying contract (the same)
  std::map<RewriteKey, int64_t> under_contract;
  int64_t unattributed = 0;               ///< changes made outside any bracketed rewrite
  std::set<RewriteKey> renamed;           ///< patterns that tried to rename themselves after freezing
  /// `while` loops (or ops whose regions run one) erased by DCE: they may not finish (never certified)
  int64_t dce_loops = 0;
  /// provenance -> applications that reported failure but changed the IR (never certified)
  std::map<RewriteKey, int64_t> failed_but_changed;
  /// edits made around the rewriter, through the Program itself (never certified)
  int64_t unseen_edits = 0;

 private:
  void change() {
    if (changed_.empty()) ++unattributed;
    if (!changed_.empty()) changed_.back() = true;
  }
  /// Whether instruction `i` is a `while`, or holds a region that (through nested regions) runs one.
  bool may_not_finish(InstId i) const {
    std::vector<BodyId> todo, seen;
    const auto push_regions = [&](InstId x) {
      for (const Attr& a : p_->attrs_of(x).attrs)
        if (a.value.kind == AttrKind::Region && !a.value.ints.empty()) {
          const BodyId b = static_cast<BodyId>(a.value.ints[0]);
          if (b < p_->num_bodies() && std::find(seen.begin(), seen.end(), b) == seen.end()) {
            seen.push_back(b);
            todo.push_back(b);
          }
        }
    };
    if (p_->op(i) == OpCode::While) return true;
    push_regions(i);
    while (!todo.empty()) {
      const BodyId b = todo.back();
      todo.pop_back();
      bool loop = false;
      p_->for_each_inst(b, [&](InstId x) {
        if (p_->op(x) == OpCode::While) loop = true;
        else push_regions(x);
      });
      if (loop) return true;
    }
    return false;
  }
  std::vector<bool> changed_;  ///< per open bracket (innermost last): whether it changed the IR
  bool dce_ = false;           ///< the innermost open bracket is DCE's
  const Program* p_ = nullptr;
  bool reassoc_ = false;
  bool contract_ = false;
};

struct CertifiedPattern {
  std::string name, origin;
  int64_t rewrites = 0;
  bool certified = false;
  std::string why;    ///< certified: the all-shape scope; otherwise why not
  std::string assumes;  ///< fast-math flags the rule needs (the functions it fired in carry them)
};

struct Certificate {
  bool certified = false;
  std::vector<CertifiedPattern> patterns;
  std::map<std::string, int64_t> trusted;  ///< the built-in fold / cse / dce hooks, unattributed changes
  double ms = 0;
  std::string format() const;  ///< the report ptir opt prints on stderr
};

/// Proves every pattern of `rec` (bounded and for all shapes) and builds the certificate.
Certificate certify(const RewriteRecorder& rec, const Populate& populate,
                    const std::vector<std::pair<std::string, std::string>>& cpp_templates, const ProveOptions& po,
                    const allshape::Options& ao);

}  // namespace ptir::prove
