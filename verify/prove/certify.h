// Certified optimization (`ptir opt --certify`): record every rewrite the pipeline applied and certify
// the run when each came from a pattern PROVED FOR ALL SHAPES (verify/allshape) and bounded-PROVED
// (verify/prove). What is trusted rather than proved (constant folding through the interpreter, CSE,
// DCE, changes made outside any named rewrite) is listed by name in the certificate, never hidden.
// Unlike translation validation (one query per output element), the cost does not grow with tensor
// sizes: it is one proof per distinct pattern, whatever the model's dims.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/fastmath.h"
#include "rewriter/listener.h"
#include "verify/prove/prove.h"

namespace ptir::prove {

/// A listener counting successful named rewrites (pattern names, "fold", "cse", "dce") and changes
/// made outside any named rewrite. Attach it to the ProgramRewriter the pipeline runs on.
class RewriteRecorder final : public RewriteListener {
 public:
  /// `p`: the program the rewriter edits (to read the fast-math flags of the function a rewrite is in).
  explicit RewriteRecorder(const Program* p = nullptr) : p_(p) {}
  void notify_pattern_begin(std::string_view name, InstId root) override {
    ++depth_;
    reassoc_ = p_ && root != kNone && p_->fastmath_of(p_->inst(root).body).has(FastMathFlag::Reassoc);
  }
  void notify_pattern_end(std::string_view name, InstId root, bool success) override {
    if (depth_ > 0) --depth_;
    if (!success) return;
    ++applied[std::string(name)];
    if (reassoc_) ++under_reassoc[std::string(name)];
  }
  void notify_inserted(InstId) override { outside(); }
  void notify_modified(InstId) override { outside(); }
  void notify_erased(InstId) override { outside(); }

  std::map<std::string, int64_t> applied;  ///< name -> successful applications
  /// name -> applications in functions carrying reassoc (outside an all-shape proof unless assumed)
  std::map<std::string, int64_t> under_reassoc;
  int64_t unattributed = 0;                ///< changes made outside any named rewrite

 private:
  void outside() {
    if (depth_ == 0) ++unattributed;
  }
  int depth_ = 0;
  const Program* p_ = nullptr;
  bool reassoc_ = false;
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
  std::map<std::string, int64_t> trusted;  ///< fold / cse / dce / unattributed changes
  double ms = 0;
  std::string format() const;  ///< the report ptir opt prints on stderr
};

/// Proves every pattern of `rec` (bounded and for all shapes) and builds the certificate.
Certificate certify(const RewriteRecorder& rec, const Populate& populate,
                    const std::vector<std::pair<std::string, std::string>>& cpp_templates, const ProveOptions& po,
                    const allshape::Options& ao);

}  // namespace ptir::prove
