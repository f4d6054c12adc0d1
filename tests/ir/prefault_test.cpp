// The prefaulting helper (ir/prefault.h): it faults in the pages just ahead of what a writer published,
// not beyond, follows a region that moves, never changes contents, and a large parse that uses it
// gives the same program as one without it.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ir/prefault.h"
#include "ir/text.h"

namespace ptir {
namespace {

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

/// A fresh anonymous mapping of `bytes` (no page resident until touched).
struct Mapping {
  explicit Mapping(size_t bytes) : size(bytes) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data = m == MAP_FAILED ? nullptr : static_cast<char*>(m);
    // Small pages only: a huge page would make residency jump 2 MB at a time.
    if (data) (void)madvise(data, bytes, MADV_NOHUGEPAGE);
  }
  ~Mapping() {
    if (data) munmap(data, size);
  }
  /// Which of the pages in [from, to) bytes are resident.
  std::vector<bool> resident(size_t from, size_t to) const {
    std::vector<unsigned char> v((to - from) / kPage);
    EXPECT_EQ(mincore(data + from, to - from, v.data()), 0);
    std::vector<bool> out;
    for (unsigned char c : v) out.push_back(c & 1);
    return out;
  }
  size_t count_resident(size_t from, size_t to) const {
    size_t n = 0;
    for (bool b : resident(from, to)) n += b;
    return n;
  }
  char* data = nullptr;
  size_t size;
};

/// Waits (up to 10 s) until every page of [from, to) is resident.
bool wait_resident(const Mapping& m, size_t from, size_t to) {
  for (int k = 0; k < 10000; ++k) {
    if (m.count_resident(from, to) == (to - from) / kPage) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(Prefaulter, FaultsInAheadOfTheWrittenPartAndNotFurther) {
  if (!Prefaulter::wanted(size_t{64} << 20)) GTEST_SKIP() << "no MADV_POPULATE_WRITE here, or PTIR_PREFAULT=0";
  const size_t mb = size_t{1} << 20;
  Mapping m(16 * mb);
  ASSERT_NE(m.data, nullptr);
  std::memset(m.data, 0x5a, 3 * kPage);  // written by the "writer": must keep its contents
  {
    Prefaulter pf(true);
    ASSERT_TRUE(pf.active());
    pf.publish(0, m.data, 3 * kPage, 16 * mb, 2 * mb);
    EXPECT_TRUE(wait_resident(m, 0, 2 * mb)) << "the 2 MB ahead of the written part were not faulted in";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // Nothing beyond `used + ahead`: the reserved rest stays unbacked.
    EXPECT_EQ(m.count_resident(3 * kPage + 2 * mb, 16 * mb), 0u);
    // The writer moves on: the helper follows.
    pf.publish(0, m.data, 6 * mb, 16 * mb, 2 * mb);
    EXPECT_TRUE(wait_resident(m, 6 * mb, 8 * mb));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(m.count_resident(8 * mb, 16 * mb), 0u);
  }
  for (size_t k = 0; k < 3 * kPage; ++k) ASSERT_EQ(m.data[k], 0x5a) << "byte " << k;
  // Faulted-in pages read as zero, as fresh pages do.
  for (size_t k = 3 * kPage; k < 2 * mb; k += 4093) ASSERT_EQ(m.data[k], 0) << "byte " << k;
}

TEST(Prefaulter, AWholeRegionAndAMovedOrFreedRegion) {
  if (!Prefaulter::wanted(size_t{64} << 20)) GTEST_SKIP() << "no MADV_POPULATE_WRITE here, or PTIR_PREFAULT=0";
  const size_t mb = size_t{1} << 20;
  Prefaulter pf(true);
  ASSERT_TRUE(pf.active());
  // A hash table: written anywhere, so wanted whole (ahead = capacity).
  Mapping table(8 * mb);
  ASSERT_NE(table.data, nullptr);
  pf.publish(1, table.data, 0, 8 * mb, 8 * mb);
  EXPECT_TRUE(wait_resident(table, 0, 8 * mb));
  // A region that is freed while published, then replaced: the helper survives the unmapped address
  // and follows the new one.
  auto* gone = new Mapping(64 * mb);
  ASSERT_NE(gone->data, nullptr);
  Mapping moved(4 * mb);  // mapped while `gone` still is: another address
  ASSERT_NE(moved.data, nullptr);
  pf.publish(2, gone->data, 0, 64 * mb, 64 * mb);
  delete gone;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  pf.publish(2, moved.data, 0, 4 * mb, mb);
  EXPECT_TRUE(wait_resident(moved, 0, mb));
  // Out-of-range slots and null regions are ignored.
  pf.publish(Prefaulter::kSlots, moved.data, 0, 4 * mb);
  pf.publish(3, nullptr, 0, 0);
}

TEST(Prefaulter, ALargeParseGivesTheSameProgramWithOrWithoutIt) {
  // Over 2 MB of named values: parse_program runs a prefaulter (unless PTIR_PREFAULT=0); printing the
  // result must give the text back exactly, and a parse split into small files (no prefaulter) agrees.
  std::string text = "func @main(%in_x: tensor<f32, 4x16>) -> tensor<f32, 4x16> {\n";
  int n = 0;
  while (text.size() < (size_t{3} << 20)) {
    text += "  %layer" + std::to_string(n) + "_gate_value = add " +
            (n ? "%layer" + std::to_string(n - 1) + "_gate_value" : std::string("%in_x")) + ", " +
            (n > 700 ? "%layer" + std::to_string(n - 700) + "_gate_value" : std::string("%in_x")) +
            " -> tensor<f32, 4x16>\n";
    ++n;
  }
  text += "  return %layer" + std::to_string(n - 1) + "_gate_value\n}\n";
  ASSERT_GE(text.size(), size_t{2} << 20);
  ParseResult r = parse_program(text, "big.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(print_program(*r.program), text);
  // A redefinition near the end is still reported at its place.
  std::string dup = text.substr(0, text.rfind("  return")) + "  %layer5_gate_value = neg %in_x -> tensor<f32, 4x16>\n" +
                    "  return %layer5_gate_value\n}\n";
  ParseResult d = parse_program(dup, "dup.ptir");
  EXPECT_EQ(d.error, "dup.ptir:" + std::to_string(n + 2) + ":3: error: redefinition of value '%layer5_gate_value'");
  // An error on the first line: the parse stops at once, while the line starts of the 3 MB are still
  // being counted beside it; the error is located only after they are.
  ParseResult e = parse_program("func @main(%in_x: tensor<f32, 4x16>) -> tensor<f32, 4x16> {\n  %a = nope %in_x\n" +
                                    text.substr(text.find('\n') + 1),
                                "early.ptir");
  EXPECT_EQ(e.error, "early.ptir:2:8: error: unknown op 'nope'");
}

}  // namespace
}  // namespace ptir
