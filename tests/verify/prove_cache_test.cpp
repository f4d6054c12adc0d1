// The verdict cache of `ptir prove` (verify/prove/cache.h): every field of a report survives the round
// trip, anything but an exact entry is refused, keys tell options and patterns apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "verify/prove/cache.h"

namespace ptir::prove {
namespace {

/// A report with every field set to something other than its default.
Report full_report() {
  Report r;
  r.name = "some_rule";
  r.origin = "dir/file.rules:12";
  r.status = Status::Tested;
  r.instances = 48, r.fired = 40, r.near_misses = 9, r.near_fired = 3, r.proved = 37, r.tested = 3, r.unknown = 1;
  r.solver_calls = 1234;
  r.dtypes = {"f32", "si8"};
  r.shapes = {"2x3", "", "0"};
  r.ms = 1234.5678901234567;
  r.detail = std::string("line 1\nline \"2\" with : colons 12:34\n\0binary\xff", 45);
  allshape::Result a;
  a.verdict = allshape::Verdict::Unknown;
  a.rank_bound = 2, a.configs = 77, a.queries = 99, a.canaries = 4;
  a.ms = 0.1;
  a.why = "Z3 said unknown (timeout) at rank 1";
  a.notes = {"not rank_is(%x, 0) not used", "second"};
  a.dtypes = {"bf16"};
  r.all_shapes = a;
  r.disagreement = true;
  r.coverage = {{"rank 0", true, "", 5, ""}, {"dtype %x = i1", false, "the verifier rejects i1", 0, "a hint"}};
  return r;
}

void expect_same(const Report& a, const Report& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.origin, b.origin);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.instances, b.instances);
  EXPECT_EQ(a.fired, b.fired);
  EXPECT_EQ(a.near_misses, b.near_misses);
  EXPECT_EQ(a.near_fired, b.near_fired);
  EXPECT_EQ(a.proved, b.proved);
  EXPECT_EQ(a.tested, b.tested);
  EXPECT_EQ(a.unknown, b.unknown);
  EXPECT_EQ(a.solver_calls, b.solver_calls);
  EXPECT_EQ(a.dtypes, b.dtypes);
  EXPECT_EQ(a.shapes, b.shapes);
  EXPECT_EQ(a.ms, b.ms);  // exact (hex float)
  EXPECT_EQ(a.detail, b.detail);
  ASSERT_EQ(a.all_shapes.has_value(), b.all_shapes.has_value());
  if (a.all_shapes) {
    EXPECT_EQ(a.all_shapes->verdict, b.all_shapes->verdict);
    EXPECT_EQ(a.all_shapes->rank_bound, b.all_shapes->rank_bound);
    EXPECT_EQ(a.all_shapes->configs, b.all_shapes->configs);
    EXPECT_EQ(a.all_shapes->queries, b.all_shapes->queries);
    EXPECT_EQ(a.all_shapes->canaries, b.all_shapes->canaries);
    EXPECT_EQ(a.all_shapes->ms, b.all_shapes->ms);
    EXPECT_EQ(a.all_shapes->why, b.all_shapes->why);
    EXPECT_EQ(a.all_shapes->notes, b.all_shapes->notes);
    EXPECT_EQ(a.all_shapes->dtypes, b.all_shapes->dtypes);
    EXPECT_EQ(a.all_shapes->scope(), b.all_shapes->scope());
  }
  EXPECT_EQ(a.disagreement, b.disagreement);
  ASSERT_EQ(a.coverage.size(), b.coverage.size());
  for (size_t k = 0; k < a.coverage.size(); ++k) {
    EXPECT_EQ(a.coverage[k].name, b.coverage[k].name);
    EXPECT_EQ(a.coverage[k].reachable, b.coverage[k].reachable);
    EXPECT_EQ(a.coverage[k].why, b.coverage[k].why);
    EXPECT_EQ(a.coverage[k].fired, b.coverage[k].fired);
    EXPECT_EQ(a.coverage[k].hint, b.coverage[k].hint);
  }
  EXPECT_EQ(a.scope(), b.scope());
  EXPECT_EQ(serialize(a), serialize(b));
}

TEST(VerdictCache, EveryFieldRoundTrips) {
  const Report r = full_report();
  const std::optional<Report> back = deserialize(serialize(r));
  ASSERT_TRUE(back);
  expect_same(r, *back);
  Report bounded = r;  // without --all-shapes
  bounded.all_shapes.reset();
  const std::optional<Report> back2 = deserialize(serialize(bounded));
  ASSERT_TRUE(back2);
  expect_same(bounded, *back2);
}

TEST(VerdictCache, EveryTruncationAndExtensionIsRefused) {
  const std::string s = serialize(full_report());
  for (size_t n = 0; n < s.size(); ++n) EXPECT_FALSE(deserialize(s.substr(0, n))) << "prefix of " << n << " bytes accepted";
  EXPECT_FALSE(deserialize(s + "1:x"));
  EXPECT_FALSE(deserialize(s + " "));
}

TEST(VerdictCache, StoreLoadAndCorruption) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ptir-cache-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                                    "-" + std::to_string(reinterpret_cast<uintptr_t>(&dir)));
  fs::remove_all(dir);
  const Report r = full_report();
  VerdictCache c(dir.string(), "identity-1", "options-1");
  EXPECT_FALSE(c.load("subject"));
  ASSERT_TRUE(c.store("subject", r));
  const std::optional<Report> back = c.load("subject");
  ASSERT_TRUE(back);
  expect_same(r, *back);
  // Another identity, other options, another subject: misses.
  EXPECT_FALSE(VerdictCache(dir.string(), "identity-2", "options-1").load("subject"));
  EXPECT_FALSE(VerdictCache(dir.string(), "identity-1", "options-2").load("subject"));
  EXPECT_FALSE(c.load("subject2"));
  // No identity (a binary that could not be read): nothing is stored or loaded.
  VerdictCache none(dir.string(), "", "options-1");
  EXPECT_FALSE(none.store("subject", r));
  EXPECT_FALSE(none.load("subject"));
  // Every single changed byte and every truncation of the entry file is refused.
  const std::string path = c.entry_path("subject");
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_FALSE(bytes.empty());
  auto put = [&](const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
  };
  for (size_t k = 0; k < bytes.size(); k += 7) {
    std::string bad = bytes;
    bad[k] = static_cast<char>(bad[k] ^ 0x20);
    put(bad);
    EXPECT_FALSE(c.load("subject")) << "byte " << k << " changed and accepted";
    put(bytes.substr(0, k));
    EXPECT_FALSE(c.load("subject")) << "cut at " << k << " and accepted";
  }
  put(bytes);
  EXPECT_TRUE(c.load("subject"));
  // The cost table: a hint, any identity.
  EXPECT_FALSE(c.cost("subject"));
  c.store_cost("subject", 1500.25);
  ASSERT_TRUE(VerdictCache(dir.string(), "identity-2", "options-1").cost("subject"));
  EXPECT_EQ(*VerdictCache(dir.string(), "identity-2", "options-1").cost("subject"), 1500.25);
  EXPECT_FALSE(VerdictCache(dir.string(), "identity-1", "options-2").cost("subject"));
  fs::remove_all(dir);
}

TEST(VerdictCache, KeysSeparateEverythingThatChangesAResult) {
  ProveOptions o;
  allshape::Options ao;
  const std::string base = options_key(o, nullptr);
  EXPECT_NE(base, options_key(o, &ao));
  auto differs = [&](auto change) {
    ProveOptions x = o;
    change(x);
    return options_key(x, nullptr) != base;
  };
  EXPECT_TRUE(differs([](ProveOptions& x) { x.seed = 2; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.instances = 49; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.max_rank = 2; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.max_dim = 2; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.timeout_ms = 1; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.campaign_runs = 2000; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.class_tries = 1; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.sweep_factor = 1; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.sweep_runs = 1; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.shrink = false; }));
  EXPECT_TRUE(differs([](ProveOptions& x) { x.solver_threads = 2; }));
  allshape::Options b = ao;
  b.timeout_ms = 1;
  EXPECT_NE(options_key(o, &ao), options_key(o, &b));
  b = ao;
  b.total_ms = 1;
  EXPECT_NE(options_key(o, &ao), options_key(o, &b));
  b = ao;
  b.seed = 9;
  EXPECT_NE(options_key(o, &ao), options_key(o, &b));
  // The pattern: name, origin, rule file text, templates.
  Subject s;
  s.name = "p";
  s.origin = "f.rules:1";
  const std::string k = subject_key(s, "hash1", {});
  EXPECT_NE(k, subject_key(s, "hash2", {}));
  EXPECT_NE(k, subject_key(s, "hash1", {"neg(%x)"}));
  Subject t = s;
  t.origin = "f.rules:2";
  EXPECT_NE(k, subject_key(t, "hash1", {}));
  t = s;
  t.name = "q";
  EXPECT_NE(k, subject_key(t, "hash1", {}));
}

TEST(VerdictCache, ProverIdentityIsStable) {
  const std::string a = prover_identity();
  EXPECT_EQ(a.size(), 32u);  // this test binary and its libraries can be read
  EXPECT_EQ(a, prover_identity());
  EXPECT_NE(hash_hex("a"), hash_hex("b"));
  EXPECT_NE(hash_hex(std::string("\0", 1)), hash_hex(""));
  EXPECT_NE(hash_hex("12345678x"), hash_hex("12345678y"));
}

}  // namespace
}  // namespace ptir::prove
