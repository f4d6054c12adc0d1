// Pass instrumentations and reports: `--print-ir-after-all`, `--timing`, `--stats`.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "rewriter/pass.h"

namespace ptir {

/// Prints the program after every pass, MLIR style: `// -----// IR Dump After cse (2) //----- //`.
class IrPrinterInstrumentation final : public PassInstrumentation {
 public:
  explicit IrPrinterInstrumentation(std::FILE* out) : out_(out) {}
  void after_pass(const Pass& pass, const Program& p, const PassResult& r, double seconds) override;

 private:
  std::FILE* out_;
  int count_ = 0;
};

/// Wall time, µs/op and memory per op of named phases (parse, each pass, print).
class TimingReport {
 public:
  struct Phase {
    std::string name;
    double seconds = 0;
    int64_t runs = 0;
    size_t ops = 0;    ///< live instructions when the phase (last) started
    double op_runs = 0;  ///< sum over runs of the live instructions at the start of the run
    size_t bytes = 0;  ///< Program::memory_bytes() when the phase (last) ended
  };
  /// Adds one run of `name` (phases with the same name accumulate).
  void add(const std::string& name, double seconds, size_t ops, size_t bytes);
  const std::vector<Phase>& phases() const { return phases_; }
  /// The MLIR-like report: total, then one line per phase with wall time, share, µs/op and bytes/op.
  std::string format() const;

 private:
  std::vector<Phase> phases_;
};

/// Feeds a TimingReport with one entry per pass run.
class PassTimingInstrumentation final : public PassInstrumentation {
 public:
  explicit PassTimingInstrumentation(TimingReport& report) : report_(report) {}
  void before_pass(const Pass& pass, const Program& p) override;
  void after_pass(const Pass& pass, const Program& p, const PassResult& r, double seconds) override;

 private:
  TimingReport& report_;
  size_t ops_before_ = 0;
};

/// The statistics of every pass of `pm` (MLIR's -mlir-pass-statistics layout).
std::string format_statistics(const PassManager& pm);

}  // namespace ptir
