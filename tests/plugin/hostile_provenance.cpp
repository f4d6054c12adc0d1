// Plugin patterns that try to pass a wrong rewrite off as proved, or edit the IR behind the listeners'
// backs (a red team's plugins, 2026-12-07; tests/golden/plugin/hostile_provenance.ptir). Each rewrites
// neg(neg(x)) to neg(x) (wrong) on its own root op, in its own way:
// - spoof (neg): renames itself to the library's proved rule `neg_neg`, with that rule's origin, while
//   it runs: `ptir opt --certify` certified the run;
// - forge (abs): closes the driver's bracket around it and opens one of its own for a dummy `neg_neg`;
// - raw (exp): calls set_operand without start_update and returns false (no listener heard it);
// - oob (log): sets operand 3 of a one-operand instruction (corrupted the use lists, a crash in prove);
// - open (sqrt): start_update, set_operand, then returns false without finalize_update (no listener
//   heard the edit); listener (tanh): attaches a listener of its own (which could open brackets under any
//   name); param (rsqrt): adds a parameter to the function (no listener hears it). Found by a reviewer.
#include "patterns/plugin.h"
#include "rewriter/views.h"

namespace {

using namespace ptir;

/// neg(neg(x)) under root op `op` (abs/exp/log stand for the outer neg): the x, or kNone.
ValueId inner_of(const ProgramRewriter& rw, InstId root) {
  const InstId d = rw.program().def_inst(rw.operand(root, 0));
  if (d == kNone || rw.op(d) != OpCode::Neg) return kNone;
  return rw.operand(d, 0);
}

class Spoof final : public Pattern {
 public:
  Spoof() : Pattern("hostile_spoof", kOnly<OpCode::Neg>, 10), self_(this) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId x = inner_of(rw, root);
    if (x == kNone) return false;
    self_->set_debug_name("neg_neg");
    self_->set_origin("patterns/rules/algebraic.rules:20");
    rw.update_in_place(root, [&] { rw.set_operand(root, 0, x); });
    return true;
  }

 private:
  Spoof* self_;
};

class Dummy final : public Pattern {
 public:
  Dummy() : Pattern("neg_neg", kOnly<OpCode::Neg>, 1) { set_origin("patterns/rules/algebraic.rules:20"); }
  bool match_and_rewrite(InstId, ProgramRewriter&) const override { return false; }
};

class Forge final : public Pattern {
 public:
  Forge() : Pattern("hostile_forge", kOnly<OpCode::Abs>, 10) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId x = inner_of(rw, root);
    if (x == kNone) return false;
    rw.notify_pattern_end(RewriteSource::of(*this), root, false, 1);  // the driver's token is not known
    const uint64_t t = rw.notify_pattern_begin(RewriteSource::of(dummy_), root);
    rw.update_in_place(root, [&] { rw.set_operand(root, 0, x); });
    rw.notify_pattern_end(RewriteSource::of(dummy_), root, true, t);
    return false;
  }

 private:
  Dummy dummy_;
};

class Raw final : public Pattern {
 public:
  Raw() : Pattern("hostile_raw", kOnly<OpCode::Exp>, 10) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId x = inner_of(rw, root);
    if (x == kNone) return false;
    rw.set_operand(root, 0, x);
    return false;
  }
};

class OutOfRange final : public Pattern {
 public:
  OutOfRange() : Pattern("hostile_oob", kOnly<OpCode::Log>, 10) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId x = inner_of(rw, root);
    if (x == kNone) return false;
    rw.update_in_place(root, [&] { rw.set_operand(root, 3, x); });
    return true;
  }
};

class OpenUpdate final : public Pattern {
 public:
  OpenUpdate() : Pattern("hostile_open_update", kOnly<OpCode::Sqrt>, 10) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId x = inner_of(rw, root);
    if (x == kNone) return false;
    rw.start_update(root);
    rw.set_operand(root, 0, x);
    return false;
  }
};

class Forger final : public RewriteListener {
 public:
  ProgramRewriter* rw = nullptr;
  void notify_operation_begin(InstId i) override {
    if (rw) (void)rw->notify_pattern_begin(RewriteSource::fold(), i);
  }
};

class AddsListener final : public Pattern {
 public:
  AddsListener() : Pattern("hostile_listener", kOnly<OpCode::Tanh>, 10) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    if (inner_of(rw, root) == kNone) return false;
    forger_.rw = &rw;
    rw.add_listener(&forger_);
    return false;
  }

 private:
  mutable Forger forger_;
};

class AddsParam final : public Pattern {
 public:
  AddsParam() : Pattern("hostile_add_param", kOnly<OpCode::Rsqrt>, 10) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    if (inner_of(rw, root) == kNone) return false;
    rw.add_param(rw.program().inst(root).body, rw.type_id(rw.result(root)), "extra");
    return false;
  }
};

}  // namespace

PTIR_PLUGIN("hostile_provenance", registry) {
  registry.add_pattern<OpenUpdate>();
  registry.add_template("hostile_open_update", "sqrt(neg(%x))");
  registry.add_pattern<AddsListener>();
  registry.add_template("hostile_listener", "tanh(neg(%x))");
  registry.add_pattern<AddsParam>();
  registry.add_template("hostile_add_param", "rsqrt(neg(%x))");
  registry.add_pattern<Spoof>();
  registry.add_template("hostile_spoof", "neg(neg(%x))");
  registry.add_pattern<Forge>();
  registry.add_template("hostile_forge", "abs(neg(%x))");
  registry.add_pattern<Raw>();
  registry.add_template("hostile_raw", "exp(neg(%x))");
  registry.add_pattern<OutOfRange>();
  registry.add_template("hostile_oob", "log(neg(%x))");
}
