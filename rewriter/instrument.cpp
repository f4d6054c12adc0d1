// IR dumps, the timing table and the statistics table.
#include "rewriter/instrument.h"

#include <cinttypes>

#include "ir/text.h"

namespace ptir {
namespace {
constexpr const char* kBar = "===-------------------------------------------------------------------------===\n";

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}
}  // namespace

void IrPrinterInstrumentation::after_pass(const Pass& pass, const Program& p, const PassResult& r, double) {
  ++count_;
  std::fprintf(out_, "// -----// IR Dump After %.*s (%d)%s //----- //\n", int(pass.name().size()),
               pass.name().data(), count_, r.changed ? "" : " (no change)");
  std::string text = print_program(p);
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fputc('\n', out_);
}

void TimingReport::add(const std::string& name, double seconds, size_t ops, size_t bytes) {
  for (Phase& ph : phases_)
    if (ph.name == name) {
      ph.seconds += seconds;
      ++ph.runs;
      ph.ops = ops;
      ph.op_runs += double(ops);
      ph.bytes = bytes;
      return;
    }
  phases_.push_back(Phase{name, seconds, 1, ops, double(ops), bytes});
}

std::string TimingReport::format() const {
  double total = 0;
  for (const Phase& ph : phases_) total += ph.seconds;
  std::string s = kBar;
  s += "                      ... Execution time report ...\n";
  s += kBar;
  s += fmt("  Total Execution Time: %.4f seconds\n\n", total);
  s += "  ----Wall Time----  -runs-  ---ops---  --µs/op--  -bytes/op-  ----Name----\n";
  for (const Phase& ph : phases_) {
    double us = ph.op_runs > 0 ? ph.seconds * 1e6 / ph.op_runs : 0;
    double bpo = ph.ops ? double(ph.bytes) / double(ph.ops) : 0;
    s += fmt("  %8.4f (%5.1f%%)", ph.seconds, total > 0 ? 100 * ph.seconds / total : 0);
    s += fmt("  %6.0f  %9.0f", double(ph.runs), double(ph.ops));
    s += fmt("  %9.3f  %10.1f", us, bpo);
    s += "  " + ph.name + "\n";
  }
  s += fmt("  %8.4f (100.0%%)  Total\n", total);
  s += "  (µs/op: per live instruction at the start of each run; bytes/op: Program::memory_bytes() / ops)\n";
  return s;
}

void PassTimingInstrumentation::before_pass(const Pass&, const Program& p) { ops_before_ = p.num_live_insts(); }

void PassTimingInstrumentation::after_pass(const Pass& pass, const Program& p, const PassResult&, double seconds) {
  report_.add(std::string(pass.name()), seconds, ops_before_, p.memory_bytes());
}

std::string format_statistics(const PassManager& pm) {
  std::string s = kBar;
  s += "                         ... Pass statistics report ...\n";
  s += kBar;
  std::vector<const Pass*> seen;
  pm.for_each_pass([&](const Pass& pass) {
    for (const Pass* q : seen)
      if (q == &pass) return;
    seen.push_back(&pass);
    s += std::string(pass.name()) + "\n";
    for (const Statistic& st : pass.statistics()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "  (S) %8" PRId64 " ", st.value);
      s += buf + st.name + " - " + st.description + "\n";
    }
  });
  return s;
}

}  // namespace ptir
