// `ptir import`, `ptir export` and `ptir tv` in the executable: each loads the module ptir-mlir.so
// (tools/cmd_mlir.cpp and the MLIR front end, linked against libMLIR and libLLVM) and runs the command
// there, so the other commands never load MLIR (tools/CMakeLists.txt says why).
#if PTIR_HAVE_MLIR
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/common.h"

namespace ptir::tool {
namespace {

namespace fs = std::filesystem;

/// Where the module may be: $PTIR_MLIR_MODULE alone when it is set; else next to the executable (the
/// build tree), then LIBDIR/ptir relative to it (an installed ptir).
std::vector<fs::path> module_candidates() {
  if (const char* e = std::getenv("PTIR_MLIR_MODULE"); e && *e) return {fs::path(e)};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  return {dir / "ptir-mlir.so", (dir / PTIR_MLIR_MODULE_FROM_BIN).lexically_normal()};
}

/// The loaded module, or nullptr with `err` saying why.
void* load_module(std::string& err) {
  static void* handle = nullptr;
  if (handle) return handle;
  std::string looked;
  for (const fs::path& p : module_candidates()) {
    std::error_code ec;
    if (!fs::exists(p, ec)) {
      looked += (looked.empty() ? "" : ", ") + p.string();
      continue;
    }
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      err = why ? why : (p.string() + ": dlopen failed");
      return nullptr;
    }
    using Version = const char* (*)();
    auto version = reinterpret_cast<Version>(dlsym(h, "ptir_mlir_module_version"));
    if (!version || std::strcmp(version(), PTIR_VERSION) != 0) {
      err = p.string() + " is not the module of ptir " PTIR_VERSION " (it reports " +
            (version ? std::string(version()) : std::string("no version")) + ")";
      return nullptr;
    }
    return handle = h;
  }
  err = "ptir-mlir.so not found (looked for " + (looked.empty() ? std::string("it next to the executable") : looked) +
        "; PTIR_MLIR_MODULE=PATH names it)";
  return nullptr;
}

int run(const char* command, const char* entry, int failure_code, const Args& a) {
  std::string err;
  void* h = load_module(err);
  using Entry = int (*)(const Args&);
  auto fn = h ? reinterpret_cast<Entry>(dlsym(h, entry)) : nullptr;
  if (h && !fn) err = std::string("the module has no entry point ") + entry;
  if (!fn) {
    std::fprintf(stderr, "ptir %s: error: cannot load the MLIR front end: %s\n", command, err.c_str());
    return failure_code;
  }
  return fn(a);
}

}  // namespace

int cmd_import(const Args& a) { return run("import", "ptir_mlir_import", kExitBadInput, a); }
int cmd_export(const Args& a) { return run("export", "ptir_mlir_export", kExitBadInput, a); }
int cmd_tv(const Args& a) { return run("tv", "ptir_mlir_tv", 3, a); }  // 3: tv's ERROR

}  // namespace ptir::tool
#endif  // PTIR_HAVE_MLIR
