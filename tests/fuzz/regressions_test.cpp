/// Replays every fuzz finding kept in corpus/regressions/<target>/ and every seed of corpus/fuzz/<target>/
/// through the same check the libFuzzer target runs: each must now pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/harness/harness.h"
#include "fuzz/harness/parse_case.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/checks.h"
#include "verify/encode/encode.h"
#include "verify/smt/expr.h"

namespace ptir::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().filename().string()[0] != '.' && e.path().extension() != ".md")
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

using Case = std::string (*)(const uint8_t*, size_t);

void replay(const std::string& target, Case check, bool seeds) {
  const fs::path root = fs::path(PTIR_SOURCE_DIR) / "corpus" / (seeds ? "fuzz" : "regressions") / target;
  for (const fs::path& f : files_in(root)) {
    const std::string bytes = read(f);
    EXPECT_EQ(check(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "") << f;
  }
}

TEST(FuzzRegressions, Parse) { replay("fuzz_parse", fuzz_parse_case, false); }
TEST(FuzzRegressions, Pipeline) { replay("fuzz_pipeline", fuzz_pipeline_case, false); }
TEST(FuzzRegressions, Equiv) { replay("fuzz_equiv", fuzz_equiv_case, false); }
TEST(FuzzSeeds, Parse) { replay("fuzz_parse", fuzz_parse_case, true); }
TEST(FuzzSeeds, Pipeline) { replay("fuzz_pipeline", fuzz_pipeline_case, true); }
TEST(FuzzSeeds, Equiv) { replay("fuzz_equiv", fuzz_equiv_case, true); }

/// The encoding evaluated on concrete inputs gives the interpreter's UB verdict and results.
void encoding_agrees(const Program& p, const std::vector<Tensor>& in, const std::string& what) {
  smt::Context ctx;
  const RunResult run = run_body(p, p.entry(), in, {.max_while_iterations = 1000});
  std::vector<verify::SymTensor> sym;
  for (const Tensor& t : in) sym.push_back(verify::constant_tensor(t));
  verify::BodyEncoding enc;
  try {
    enc = verify::encode_body(p, p.entry(), sym, {.while_unroll = 300, .fold_concrete = false});
  } catch (const verify::EncodeError& e) {
    ADD_FAILURE() << what << ": does not encode: " << e.what();
    return;
  }
  ASSERT_TRUE(run.status == RunStatus::Ok || run.status == RunStatus::UB) << what << ": " << run.message;
  const auto ub = enc.ub.simplify();
  EXPECT_EQ(ub.isTrue(), run.status == RunStatus::UB) << what;
  if (run.status != RunStatus::Ok) return;
  ASSERT_EQ(enc.results.size(), run.results.size()) << what;
  for (size_t k = 0; k < run.results.size(); ++k) {
    auto got = verify::read_numerals(enc.results[k]);
    ASSERT_TRUE(got.has_value()) << what;
    EXPECT_TRUE(results_equal(*got, run.results[k]))
        << what << " result " << k << ": " << print_literal(*got) << " vs " << print_literal(run.results[k]);
  }
}

TEST(FuzzRegressions, EncodingAgreesWithTheInterpreter) {
  const fs::path root = fs::path(PTIR_SOURCE_DIR) / "corpus" / "regressions" / "encode";
  for (const fs::path& f : files_in(root)) {
    ParseResult r = parse_program(read(f), f.string());
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_TRUE(verify_program(*r.program, 1).empty()) << f;
    const Program& p = *r.program;
    for (uint64_t k = 0; k < 16; ++k) {
      std::vector<Tensor> in;
      if (k < 8)
        for (ValueId v : p.body(p.entry()).params) in.push_back(edge_tensor(p.type_of(v), k));
      else
        in = random_inputs_avoiding_ub(p, p.entry(), k, 0.5);
      encoding_agrees(p, in, f.string() + " input set " + std::to_string(k));
    }
  }
}

}  // namespace
}  // namespace ptir::fuzz
