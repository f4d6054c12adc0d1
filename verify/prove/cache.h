// The verdict cache of `ptir prove` (docs/verification.md "Verdict cache"): a pattern's whole result
// (verdict, counts, coverage, scope text, detail, the all-shape verdict) stored on disk, keyed by
// everything that determines it:
//   - the prover's identity: a hash of the contents of the running executable and of every shared object
//     it has loaded (libz3, the C++ runtime, plugins), so any rebuild, upgrade or other plugin misses;
//   - every prove option that changes a result (seed, instances, ranks, dims, budgets, campaign runs,
//     class tries, sweep, --all-shapes and its budgets);
//   - the pattern: its name and origin, the text of the rule file it was read from (a hash of the whole
//     file: --rules files; the library's and plugins' rule files are part of the binaries) and a C++
//     pattern's template texts.
// Only deterministic outcomes are stored: a pattern during whose proof a wall-clock safety net fired or a
// memory cap was hit (smt::nondeterministic_events) is not. A file that does not read back exactly
// (truncated, corrupt, another key, another format) is ignored and the pattern is proved again; files
// are written to a temporary name and renamed, so concurrent runs never see half a file.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verify/prove/prove.h"

namespace ptir::prove {

/// A 128-bit hash of `data` as 32 lowercase hex digits (not cryptographic: it tells versions apart).
std::string hash_hex(std::string_view data);

/// The prover's identity: hash_hex over the contents of /proc/self/exe and of every loaded shared object
/// with a path (dl_iterate_phdr), in load order. "" when one of them cannot be read (then nothing may be
/// cached: the code that would compute the verdict is unknown).
std::string prover_identity();

/// The options that determine a pattern's result, as text (`ao` null: no --all-shapes).
std::string options_key(const ProveOptions& o, const allshape::Options* ao);

/// The pattern's part of the key: name, origin, rule (its file's text hash `rule_file_hash`; "" when
/// the rule is built in) and a C++ pattern's `template_texts`.
std::string subject_key(const Subject& s, const std::string& rule_file_hash, const std::vector<std::string>& template_texts);

/// Every field of a report, and back. deserialize is strict: nullopt unless the text is exactly one
/// serialized report.
std::string serialize(const Report& r);
std::optional<Report> deserialize(std::string_view text);

/// The cache directory: entries (one file per key) and the cost table used to schedule the slowest
/// patterns first.
class VerdictCache {
 public:
  /// `dir` is created when something is stored. `identity` from prover_identity(); `options` from
  /// options_key().
  VerdictCache(std::string dir, std::string identity, std::string options);

  /// The report stored for the pattern `subject` (subject_key), or nullopt (absent, unreadable, corrupt,
  /// stored under another key).
  std::optional<Report> load(const std::string& subject) const;
  /// Stores `r` (temporary file, then rename); false when it could not be written.
  bool store(const std::string& subject, const Report& r) const;

  /// Milliseconds the pattern took the last time it was proved with these options, by any prover build
  /// (a scheduling hint only: it never decides a verdict).
  std::optional<double> cost(const std::string& subject) const;
  void store_cost(const std::string& subject, double ms) const;

  const std::string& dir() const { return dir_; }
  /// The entry file of `subject` (for tests and messages).
  std::string entry_path(const std::string& subject) const;

 private:
  std::string key_text(const std::string& subject) const;
  std::string dir_, identity_, options_;
};

/// The default cache directory: $XDG_CACHE_HOME/ptir/prove when XDG_CACHE_HOME is an absolute path,
/// else $HOME/.cache/ptir/prove; "" when neither is set (no cache).
std::string default_cache_dir();

}  // namespace ptir::prove
