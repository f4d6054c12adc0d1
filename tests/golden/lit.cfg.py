# lit configuration: `lit tests/golden` runs the golden tests as LLVM's lit does (RUN lines, %s %S %t,
# REQUIRES, `\` continuations), with the build's `ptir` and LLVM 14's FileCheck and `not` on PATH.
# ctest runs the same files through tests/lit.sh; both must pass.
#   python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv tests/golden            (build/release)
#   PTIR_BUILD_DIR=build/debug python3 /usr/lib/llvm-14/build/utils/lit/lit.py tests/golden
import os
import lit.formats

config.name = "ptir-golden"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ptir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
build = os.path.abspath(os.environ.get("PTIR_BUILD_DIR", os.path.join(root, "build", "release")))
config.test_exec_root = os.path.join(build, "lit-golden")
tools = os.path.join(build, "tools")
llvm = os.environ.get("PTIR_LLVM_BIN", "/usr/lib/llvm-14/bin")
if not os.path.exists(os.path.join(tools, "ptir")):
    lit_config.fatal("no ptir in %s: build first (scripts/build) or set PTIR_BUILD_DIR" % tools)
config.environment["PATH"] = os.pathsep.join([tools, llvm, os.environ.get("PATH", "")])
config.environment["PTIR_TEST_PLUGINS"] = os.path.join(build, "tests", "plugins")
for var in ("HOME", "TMPDIR", "LANG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# `ptir prove` caches verdicts in $XDG_CACHE_HOME/ptir by default: an empty cache for this lit run, so
# the goldens see cold runs and the user's cache is left alone (removed when lit exits).
import atexit, shutil, tempfile
_cache = tempfile.mkdtemp(prefix="ptir-lit-cache-")
atexit.register(shutil.rmtree, _cache, True)
config.environment["XDG_CACHE_HOME"] = _cache
# Features for REQUIRES: / UNSUPPORTED: lines. `llvm-lit`: this runner (tests/lit.sh ignores UNSUPPORTED).
config.available_features.add("llvm-lit")
if os.path.exists(os.path.join(build, "tests", "plugins")):
    config.available_features.add("plugins")
