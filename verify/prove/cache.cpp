// The verdict cache of `ptir prove` (verify/prove/cache.h).
#include "verify/prove/cache.h"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <link.h>
#include <unistd.h>

#include "ir/hash128.h"

namespace ptir::prove {
namespace {

constexpr const char* kMagic = "ptir-prove-cache 1\n";  // the format; bump it when a field is added
constexpr size_t kMaxFile = size_t{64} << 20;           // a larger file is not ours: ignored

/// The verdict cache's hash: ir/hash128.h, printed as 32 hex digits.
class Hasher {
 public:
  void add(std::string_view d) { h_.add(d); }
  std::string hex() const {
    const Hash128 d = h_.digest();
    char out[33];
    std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(d.a), static_cast<unsigned long long>(d.b));
    return out;
  }

 private:
  Hash128Builder h_;
};

bool hash_file(const std::string& path, Hasher& h) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.add(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return in.eof() && !in.bad();
}

// ---- serialization: every value is "<length>:<bytes>", in a fixed order ----

class Writer {
 public:
  Writer& s(std::string_view v) {
    out_ += std::to_string(v.size());
    out_ += ':';
    out_ += v;
    return *this;
  }
  Writer& i(int64_t v) { return s(std::to_string(v)); }
  Writer& d(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%a", v);  // exact
    return s(b);
  }
  Writer& strings(const auto& c) {
    i(static_cast<int64_t>(c.size()));
    for (const std::string& x : c) s(x);
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view t) : t_(t) {}
  bool ok() const { return ok_; }
  bool at_end() const { return ok_ && t_.empty(); }
  std::string s() {
    if (!ok_) return {};
    const size_t colon = t_.find(':');
    size_t n = 0;
    if (colon == std::string_view::npos || colon == 0 || colon > 12) return fail();
    auto r = std::from_chars(t_.data(), t_.data() + colon, n);
    if (r.ec != std::errc() || r.ptr != t_.data() + colon || n > t_.size() - colon - 1) return fail();
    std::string v(t_.substr(colon + 1, n));
    t_.remove_prefix(colon + 1 + n);
    return v;
  }
  int64_t i() {
    const std::string v = s();
    int64_t x = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), x);
    if (!ok_ || v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) return fail(), 0;
    return x;
  }
  int bounded(int64_t lo, int64_t hi) {
    const int64_t x = i();
    if (x < lo || x > hi) return fail(), 0;
    return static_cast<int>(x);
  }
  double d() {
    const std::string v = s();
    if (!ok_ || v.empty()) return fail(), 0.0;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (end != v.c_str() + v.size()) return fail(), 0.0;
    return x;
  }
  bool b() { return bounded(0, 1) == 1; }
  template <class C>
  void strings(C& c) {
    const int n = bounded(0, 1 << 24);
    for (int k = 0; k < n && ok_; ++k) c.insert(c.end(), s());
  }

 private:
  std::string fail() {
    ok_ = false;
    return {};
  }
  std::string_view t_;
  bool ok_ = true;
};

bool read_all(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  const std::streamoff n = in.tellg();
  if (n < 0 || static_cast<uint64_t>(n) > kMaxFile) return false;
  in.seekg(0);
  out->resize(static_cast<size_t>(n));
  in.read(out->data(), n);
  return in.gcount() == n;
}

/// Writes `text` to `path` through a temporary file in the same folder and a rename (atomic on POSIX):
/// a concurrent reader sees the old file or the new one, never half of one.
bool write_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "." +
                          std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

/// "<magic><len>\n<key>\n<len>\n<payload>\n<hash of both>\n"
std::string frame(const std::string& key, const std::string& payload) {
  Hasher h;
  h.add(key);
  h.add(std::string_view("\0", 1));
  h.add(payload);
  return std::string(kMagic) + std::to_string(key.size()) + "\n" + key + "\n" + std::to_string(payload.size()) + "\n" +
         payload + "\n" + h.hex() + "\n";
}

/// The payload of a framed file whose key is `key`, or nullopt.
std::optional<std::string> unframe(std::string_view t, const std::string& key) {
  const size_t m = std::strlen(kMagic);
  if (t.substr(0, m) != kMagic) return std::nullopt;
  t.remove_prefix(m);
  auto chunk = [&](std::string* out) {
    const size_t nl = t.find('\n');
    size_t n = 0;
    if (nl == std::string_view::npos || nl == 0) return false;
    auto r = std::from_chars(t.data(), t.data() + nl, n);
    if (r.ec != std::errc() || r.ptr != t.data() + nl || n > t.size() - nl - 1) return false;
    *out = std::string(t.substr(nl + 1, n));
    t.remove_prefix(nl + 1 + n);
    if (t.empty() || t[0] != '\n') return false;
    t.remove_prefix(1);
    return true;
  };
  std::string k, payload;
  if (!chunk(&k) || k != key || !chunk(&payload)) return std::nullopt;
  Hasher h;
  h.add(k);
  h.add(std::string_view("\0", 1));
  h.add(payload);
  if (t != h.hex() + "\n") return std::nullopt;
  return payload;
}

}  // namespace

std::string hash_hex(std::string_view data) {
  Hasher h;
  h.add(data);
  return h.hex();
}

std::string prover_identity() {
  struct Acc {
    std::vector<std::string> paths;
  } acc;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* p) {
        auto* a = static_cast<Acc*>(p);
        // The main program has an empty name (read as /proc/self/exe below); the vDSO has no file.
        if (info->dlpi_name && info->dlpi_name[0] == '/') a->paths.emplace_back(info->dlpi_name);
        return 0;
      },
      &acc);
  Hasher h;
  h.add("exe\n");
  if (!hash_file("/proc/self/exe", h)) return "";
  for (const std::string& p : acc.paths) {
    h.add("\nlib " + p + "\n");
    if (!hash_file(p, h)) return "";
  }
  return h.hex();
}

std::string options_key(const ProveOptions& o, const allshape::Options* ao) {
  std::string k = "max_rank " + std::to_string(o.max_rank) + "\nmax_dim " + std::to_string(o.max_dim) + "\ninstances " +
                  std::to_string(o.instances) + "\nseed " + std::to_string(o.seed) + "\ntimeout_ms " +
                  std::to_string(o.timeout_ms) + "\ncampaign_runs " + std::to_string(o.campaign_runs) +
                  "\nsolver_threads " + std::to_string(o.solver_threads) + "\nclass_tries " +
                  std::to_string(o.class_tries) + "\nshrink " + std::to_string(o.shrink) + " " + std::to_string(o.shrink_checks) + " " + std::to_string(o.shrink_timeout_ms) + "\nsweep_factor " +
                  std::to_string(o.sweep_factor) + "\nsweep_runs " + std::to_string(o.sweep_runs) + "\n";
  if (!ao) return k + "all_shapes no\n";
  return k + "all_shapes yes\nall_shapes.timeout_ms " + std::to_string(ao->timeout_ms) + "\nall_shapes.total_ms " +
         std::to_string(ao->total_ms) + "\nall_shapes.max_rank_bound " + std::to_string(ao->max_rank_bound) +
         "\nall_shapes.canary_instances " + std::to_string(ao->canary_instances) + "\nall_shapes.canary_runs " +
         std::to_string(ao->canary_runs) + "\nall_shapes.seed " + std::to_string(ao->seed) + "\n";
}

std::string subject_key(const Subject& s, const std::string& rule_file_hash, const std::vector<std::string>& template_texts) {
  Writer w;
  w.s("name").s(s.name).s("origin").s(s.origin).s("rule_file").s(s.rule ? s.rule->file : "").s(rule_file_hash);
  w.s("templates").strings(template_texts);
  w.s("template_count").i(static_cast<int64_t>(s.templates.size())).s("error").s(s.error);
  return w.take();
}

std::string serialize(const Report& r) {
  Writer w;
  w.s(r.name).s(r.origin).i(static_cast<int>(r.status)).i(r.instances).i(r.fired).i(r.near_misses).i(r.near_fired);
  w.i(r.proved).i(r.tested).i(r.unknown).i(r.solver_calls).strings(r.dtypes).strings(r.shapes).d(r.ms).s(r.detail);
  w.i(r.all_shapes.has_value());
  if (r.all_shapes) {
    const allshape::Result& a = *r.all_shapes;
    w.i(static_cast<int>(a.verdict)).i(a.rank_bound).i(a.configs).i(a.queries).i(a.canaries).d(a.ms).s(a.why);
    w.strings(a.notes).strings(a.dtypes);
  }
  w.i(r.disagreement).i(static_cast<int64_t>(r.coverage.size()));
  for (const ClassCoverage& c : r.coverage) w.s(c.name).i(c.reachable).s(c.why).i(c.fired).s(c.hint);
  return w.take();
}

std::optional<Report> deserialize(std::string_view text) {
  Reader in(text);
  Report r;
  r.name = in.s();
  r.origin = in.s();
  r.status = static_cast<Status>(in.bounded(0, static_cast<int>(Status::LicensedReassoc)));
  r.instances = in.bounded(0, INT32_MAX), r.fired = in.bounded(0, INT32_MAX), r.near_misses = in.bounded(0, INT32_MAX);
  r.near_fired = in.bounded(0, INT32_MAX), r.proved = in.bounded(0, INT32_MAX), r.tested = in.bounded(0, INT32_MAX);
  r.unknown = in.bounded(0, INT32_MAX), r.solver_calls = in.bounded(0, INT32_MAX);
  in.strings(r.dtypes);
  in.strings(r.shapes);
  r.ms = in.d();
  r.detail = in.s();
  if (in.b()) {
    allshape::Result a;
    a.verdict = static_cast<allshape::Verdict>(in.bounded(0, static_cast<int>(allshape::Verdict::Unknown)));
    a.rank_bound = in.bounded(-1, INT32_MAX), a.configs = in.bounded(0, INT32_MAX), a.queries = in.bounded(0, INT32_MAX);
    a.canaries = in.bounded(0, INT32_MAX);
    a.ms = in.d();
    a.why = in.s();
    in.strings(a.notes);
    in.strings(a.dtypes);
    r.all_shapes = std::move(a);
  }
  r.disagreement = in.b();
  const int n = in.bounded(0, 1 << 24);
  for (int k = 0; k < n && in.ok(); ++k) {
    ClassCoverage c;
    c.name = in.s();
    c.reachable = in.b();
    c.why = in.s();
    c.fired = in.bounded(0, INT32_MAX);
    c.hint = in.s();
    r.coverage.push_back(std::move(c));
  }
  if (!in.at_end()) return std::nullopt;
  return r;
}

VerdictCache::VerdictCache(std::string dir, std::string identity, std::string options)
    : dir_(std::move(dir)), identity_(std::move(identity)), options_(std::move(options)) {}

std::string VerdictCache::key_text(const std::string& subject) const {
  return Writer().s("identity").s(identity_).s("options").s(options_).s("subject").s(subject).take();
}

std::string VerdictCache::entry_path(const std::string& subject) const {
  const std::string h = hash_hex(key_text(subject));
  return dir_ + "/verdicts/" + h.substr(0, 2) + "/" + h;
}

std::optional<Report> VerdictCache::load(const std::string& subject) const {
  if (identity_.empty()) return std::nullopt;
  std::string text;
  if (!read_all(entry_path(subject), &text)) return std::nullopt;
  const std::optional<std::string> payload = unframe(text, key_text(subject));
  if (!payload) return std::nullopt;
  return deserialize(*payload);
}

bool VerdictCache::store(const std::string& subject, const Report& r) const {
  if (identity_.empty()) return false;
  return write_atomically(entry_path(subject), frame(key_text(subject), serialize(r)));
}

std::optional<double> VerdictCache::cost(const std::string& subject) const {
  const std::string key = Writer().s("options").s(options_).s("subject").s(subject).take();
  std::string text;
  if (!read_all(dir_ + "/costs/" + hash_hex(key), &text)) return std::nullopt;
  const std::optional<std::string> payload = unframe(text, key);
  if (!payload) return std::nullopt;
  Reader in(*payload);
  const double ms = in.d();
  if (!in.at_end() || !(ms >= 0)) return std::nullopt;
  return ms;
}

void VerdictCache::store_cost(const std::string& subject, double ms) const {
  const std::string key = Writer().s("options").s(options_).s("subject").s(subject).take();
  (void)write_atomically(dir_ + "/costs/" + hash_hex(key), frame(key, Writer().d(ms).take()));
}

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/ptir/prove";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/ptir/prove";
  return "";
}

}  // namespace ptir::prove
