// The table of every `ptir` subcommand and every option (tools/options.h): the one place an option's
// name, value, range, default, help, commands, repeatability and exclusions are stated. Parsing, the
// errors and every `--help` (hence the man page, cmake/ptirManPage.cmake) come from here.
#include <string>

#include "rewriter/greedy.h"  // kExpensiveChecksByDefault
#include "tools/options.h"

namespace ptir::tool {
namespace {

// One bit per command.
constexpr Scope kParse = 1u << 0, kPrint = 1u << 1, kVerify = 1u << 2, kRun = 1u << 3, kOpt = 1u << 4,
                kCheckEquiv = 1u << 5, kDot = 1u << 6, kCorpus = 1u << 7, kProve = 1u << 8, kSynth = 1u << 9,
                kConvert = 1u << 10, kImport = 1u << 11, kExport = 1u << 12, kTv = 1u << 13;
#if PTIR_HAVE_MLIR
constexpr Scope kAll = (1u << 14) - 1;
#else
constexpr Scope kAll = (1u << 11) - 1;  ///< import, export and tv exist only with MLIR
#endif
constexpr Scope kInputCommands = kParse | kPrint | kVerify | kOpt;  ///< --split-input-file, --verify-diagnostics

constexpr uint64_t kDayMs = 86400000;       ///< the largest whole-command time budget: a day
constexpr uint64_t kMaxMemoryMb = 1u << 30;  ///< the largest memory budget: 1 PB

/// Rows with build-dependent text: the expensive checks' default.
std::string checks_default() {
  return kExpensiveChecksByDefault ? "on in this build, PTIR_EXPENSIVE_CHECKS=ON (the default of Debug builds)"
                                   : "off in this build, PTIR_EXPENSIVE_CHECKS=OFF (Debug builds have them on)";
}

std::vector<OptionSpec> make_options() {
  using K = ValueKind;
  const std::string kDtypes[] = {"i1", "si8", "ui8", "si16", "ui16", "si32", "ui32", "si64", "ui64", "bf16", "f16", "f32", "f64"};
  std::vector<std::string> dtypes(std::begin(kDtypes), std::end(kDtypes));
  return {
      // ---- input: parse, print, verify, opt ----
      {.name = "split-input-file", .scope = kInputCommands,
       .help = "split FILE at lines '// -----' and process each piece on its own; outputs are joined by "
               "'// -----' lines, errors keep the line numbers of FILE"},
      {.name = "verify-diagnostics", .scope = kInputCommands,
       .help = "check the errors against the file's 'expected-error {{TEXT}}' comments (on the line of the "
               "error, or '@+N' / '@-N' lines away); exit 0 when every error was expected and every "
               "expectation met, else print each mismatch, exit 1. Quiet: no '// -----' separators; only the "
               "output of the pieces that loaded (a file whose every piece fails as expected prints nothing)"},

      // ---- run ----
      {.name = "inputs", .kind = K::Path, .meta = "FILE", .scope = kRun,
       .help = "run on the inputs of FILE: one literal per parameter, in order, e.g. 'dense<[1.0, 2.0]> : "
               "tensor<f32, 2>', separated by newlines or ';'",
       .exclusive = "inputs"},
      {.name = "random", .kind = K::UInt, .meta = "SEED", .scope = kRun,
       .help = "run on random inputs drawn from SEED (edge values included, indices in range), printed first "
               "as '// input N: TENSOR' lines",
       .exclusive = "inputs"},
      {.name = "timeout-ms", .kind = K::UInt, .meta = "N", .scope = kRun,
       .help = "budget of the whole run: past N ms it stops with a clean error naming it",
       .dflt_help = "no limit", .min = 1, .max = kDayMs},
      {.name = "memory-mb", .kind = K::UInt, .meta = "N", .scope = kRun,
       .help = "bound on the tensors the run holds at once (0 = none): an instruction that would go past it "
               "is not run, and the run ends with a clean error naming it",
       .dflt = "4096", .min = 0, .max = kMaxMemoryMb},
      {.name = "full", .scope = kRun,
       .help = "print every input and result in full. Without it a tensor of more than 1024 elements (not a "
               "splat) is summarised on one line: 'TYPE: N elements, fnv1a HASH; first 4: a, b, c, d; last "
               "4: w, x, y, z (--full prints all)', HASH being the 64-bit FNV-1a hash of its elements' bits "
               "(little-endian, in row-major order)"},

      // ---- opt ----
      {.name = "pipeline", .kind = K::String, .meta = "STR", .scope = kOpt,
       .help = "the passes to run. Passes:\n"
               "  canonicalize  greedy patterns + fold hooks + removal of dead pure ops\n"
               "  cse           merge identical pure instructions (rng never merged)\n"
               "  dce           erase dead pure instructions (rng never erased)\n"
               "  hoist-params  move pure computations of the parameters --hoist-params selects into a "
               "prologue function @F_prologue whose results become new trailing parameters of @F (rng never "
               "moves)\n"
               "Named pipelines (expand in place):\n"
               "  default  fixpoint(4){canonicalize,cse,dce}\n"
               "  gptrs    fixpoint(2){canonicalize},hoist-params,fixpoint(4){canonicalize,cse,dce} (gpt.rs's "
               "optimizer: pre loop, param-only hoisting, post loop)\n"
               "'fixpoint(N){...}' repeats its passes until one round changes nothing, at most N times; ',' "
               "sequences; groups nest.",
       .dflt = "fixpoint(4){canonicalize,cse,dce}"},
      {.name = "hoist-params", .kind = K::List, .meta = "A,B", .scope = kOpt,
       .help = "the parameters hoist-params treats as weights (PTIR has no parameter roles): names with or "
               "without '%', or prefixes ending in '*' ('w*'; '*' = all); they apply to every function. "
               "Without it hoist-params hoists nothing"},
      {.name = "list-passes", .scope = kOpt, .help = "print the passes and named pipelines, exit"},
      {.name = "expensive-checks", .scope = kOpt,
       .help = "check every rewrite of the pipeline: success => IR changed, failure => IR unchanged, each "
               "mutation verifies, and the values the rewrite replaced are compared with their replacements "
               "on the reference interpreter, over the rewrite's boundary values, with random and edge inputs "
               "(+-0, +-inf, NaN, subnormals); the first violation is printed with the pattern's name, the "
               "root op and the input, and ptir exits with 1 (--stats: replay counts)",
       .dflt_help = checks_default(), .exclusive = "checks"},
      {.name = "no-expensive-checks", .scope = kOpt, .help = "run the pipeline without them",
       .exclusive = "checks"},
      {.name = "debug-rewrites", .scope = kOpt,
       .help = "print the rewrite tree (ops processed, patterns tried, why they failed, "
               "inserts/modifications/replacements/erasures)"},
      {.name = "print-ir-after-all", .scope = kOpt, .help = "print the program after every pass"},
      {.name = "print-ir-before-all", .scope = kOpt, .help = "print the program before every pass"},
      {.name = "print-ir-after-change", .scope = kOpt,
       .help = "print the program after the passes that changed it (only those)"},
      {.name = "stats", .scope = kOpt, .help = "print per-pass statistics"},
      {.name = "timing", .scope = kOpt,
       .help = "print wall time, us/op and bytes/op of parse, verify, each pass and print"},
      {.name = "seed", .kind = K::UInt, .meta = "N", .scope = kOpt,
       .help = "pop the canonicalize worklist in a random order seeded by N (0 = in order; the result is "
               "equivalent in any order, and where two patterns compete for one op it may differ in form) and "
               "seed the expensive checks' inputs with it",
       .dflt = "0"},
      {.name = "list-patterns", .scope = kOpt,
       .help = "print the canonicalization patterns (name, benefit, roots, labels, and where each comes from: "
               "C++, FILE:LINE of a rule, 'C++ plugin LIB' or 'LIB(FILE):LINE' for a plugin's pattern), exit"},
      {.name = "bottom-up", .scope = kOpt,
       .help = "seed the canonicalize worklist bottom-up (users before producers) instead of top-down "
               "(producers first, the default, as mlir-opt's canonicalizer); where two patterns compete for "
               "one op the orders can reach different fixpoints (docs/rewriter.md, \"Top-down canonicalize\")"},
      {.name = "no-fold", .scope = kOpt,
       .help = "canonicalize without fold hooks (identity folds and constant folding), so only patterns "
               "rewrite: the golden tests of the library isolate each pattern"},
      {.name = "rules", .kind = K::Path, .meta = "FILE", .scope = kOpt,
       .help = "also load the rules of FILE (docs/rules.md) into canonicalize, no rebuild needed; a malformed "
               "file is reported as FILE:LINE:COL: error (exit 1)",
       .repeatable = true},
      {.name = "load-plugin", .kind = K::Path, .meta = "LIB", .scope = kOpt,
       .help = "load the pattern plugin LIB (a shared library, docs/embedding.md): its C++ patterns and rule "
               "files join canonicalize; a plugin built against another ptir version is refused (exit 1)",
       .repeatable = true},
      {.name = "validate", .scope = kOpt,
       .help = "after the pipeline, check with Z3 that the output refines the input, every function against "
               "its namesake (the program verdict is the weakest); a function that got a prologue is checked "
               "as 'prologue then function' (the prologue inlined, the original signature) against the "
               "input's function (bit-exact IEEE; counterexamples replayed in the interpreter) and print "
               "'validate: PROVED|REFUTED|UNKNOWN ...' on stderr (the full report when REFUTED)"},
      {.name = "validate-timeout-ms", .kind = K::UInt, .meta = "N", .scope = kOpt,
       .help = "budget of the validation; running out gives UNKNOWN", .dflt = "10000", .min = 1, .max = kDayMs,
       .needs = "validate"},
      {.name = "require-proof", .scope = kOpt, .help = "an UNKNOWN validation fails the command too (exit 1)",
       .needs = "validate"},
      {.name = "certify", .scope = kOpt,
       .help = "record every rewrite the pipeline applied (pattern and count) and print a certificate on "
               "stderr: CERTIFIED when each came from a pattern PROVED FOR ALL SHAPES and bounded-PROVED (one "
               "proof per distinct pattern, whatever the tensor sizes: it scales where --validate gives "
               "UNKNOWN); otherwise the uncertified patterns with their counts and why. What is trusted, not "
               "proved (fold, CSE, DCE, and any change outside a named rewrite, which makes the run "
               "uncertified) is listed. No change in a function with reassoc or contract is certified: "
               "under those flags a rewrite can merge add trees or create fusions with the code around it"},
      {.name = "require-certificate", .scope = kOpt, .help = "NOT CERTIFIED fails the command (exit 1)",
       .needs = "certify"},

#if PTIR_HAVE_MLIR
      // ---- import, export, tv (the MLIR front end, docs/mlir.md) ----
      {.name = "to", .kind = K::Enum, .meta = "D", .scope = kExport,
       .help = "the dialects to write: tosa (tosa ops where 'ptir import' gives them the PTIR op's meaning, "
               "arith/math/tensor for the rest) or arith (func, arith, math, tensor only)",
       .dflt = "arith", .choices = {"tosa", "arith"}},
      {.name = "timeout-ms", .kind = K::UInt, .meta = "N", .scope = kTv,
       .help = "budget of each function's check (and of each check while shrinking); running out gives UNKNOWN",
       .dflt = "10000", .min = 1, .max = kDayMs},
      {.name = "memory-mb", .kind = K::UInt, .meta = "N", .scope = kTv,
       .help = "memory budget of each check (0 = none), as check-equiv's", .dflt = "4096", .min = 0,
       .max = kMaxMemoryMb},
      {.name = "tool-timeout-ms", .kind = K::UInt, .meta = "N", .scope = kTv,
       .help = "a run of CMD that takes longer is killed: an error on the first run, a failed variant while "
               "shrinking",
       .dflt = "60000", .min = 1, .max = kDayMs},
      {.name = "json", .scope = kTv, .help = "print the report as one JSON object"},
      {.name = "no-shrink", .scope = kTv, .help = "report a REFUTED function without reducing it"},
      {.name = "shrink-runs", .kind = K::UInt, .meta = "N", .scope = kTv,
       .help = "at most N runs of CMD (and checks) while shrinking one REFUTED function", .dflt = "200", .min = 1,
       .max = 100000},
#endif

      // ---- check-equiv, dot ----
      {.name = "func", .kind = K::String, .meta = "NAME", .scope = kCheckEquiv,
       .help = "check only function @NAME ('@' optional; the report says the others were not checked)"},
      {.name = "timeout-ms", .kind = K::UInt, .meta = "N", .scope = kCheckEquiv,
       .help = "budget of the whole check, encoding included, shared by the functions; running out gives "
               "UNKNOWN",
       .dflt = "10000", .min = 1, .max = kDayMs},
      {.name = "memory-mb", .kind = K::UInt, .meta = "N", .scope = kCheckEquiv,
       .help = "memory budget (0 = none): a check estimated larger is UNKNOWN at once, Z3 and the interpreter "
               "runs are capped at it",
       .dflt = "4096", .min = 0, .max = kMaxMemoryMb},
      {.name = "full", .scope = kCheckEquiv,
       .help = "print REFUTED tensors in full, however large (without it a tensor of more than 64 elements is "
               "a summary: type, count of differing elements, the first few)"},
      {.name = "emit-smt2", .kind = K::Path, .meta = "FILE", .scope = kCheckEquiv,
       .help = "write every solver query in SMT-LIB 2 (replaced for a verdict, left as it was on an error)"},
      {.name = "json", .scope = kCheckEquiv, .help = "print the verdict as one JSON object"},
      {.name = "unroll", .kind = K::UInt, .meta = "N", .scope = kCheckEquiv,
       .help = "while iterations to encode; a loop that may run longer is UNKNOWN", .dflt = "16", .min = 0,
       .max = 100000},
      {.name = "threads", .kind = K::UInt, .meta = "N", .scope = kCheckEquiv, .help = "solver threads",
       .dflt = "2", .min = 1, .max = 64},
      {.name = "no-fast-pass", .scope = kCheckEquiv,
       .help = "skip the interpreter search for counterexamples on edge/random inputs"},
      {.name = "counterexample", .scope = kDot,
       .help = "with SRC TGT: run 'ptir check-equiv SRC TGT' and draw both sides (see above)"},
      {.name = "timeout-ms", .kind = K::UInt, .meta = "N", .scope = kDot,
       .help = "budget of the whole check, as check-equiv's", .dflt = "10000", .min = 1, .max = kDayMs,
       .needs = "counterexample"},

      // ---- corpus ----
      {.name = "seed", .kind = K::UInt, .meta = "N", .scope = kCorpus,
       .help = "seed of every program's random inputs (indices in range)", .dflt = "1"},
      {.name = "optimize", .scope = kCorpus,
       .help = "also run the default pipeline (fixpoint(4){canonicalize,cse,dce}) and check with Z3 that the "
               "optimized program refines the original; the table then shows the op count after optimization "
               "and the verdict"},
      {.name = "timeout-ms", .kind = K::UInt, .meta = "N", .scope = kCorpus,
       .help = "budget of each program's check", .dflt = "10000", .min = 1, .max = kDayMs, .needs = "optimize"},
      {.name = "expensive-checks", .scope = kCorpus,
       .help = "with --optimize: every rewrite of the pipeline is replayed in the interpreter and every "
               "mutation verified (as 'ptir opt --expensive-checks'); a violation fails the program's row "
               "('opt failed: expensive checks: ...')",
       .dflt_help = checks_default(), .exclusive = "checks"},
      {.name = "no-expensive-checks", .scope = kCorpus, .help = "without them", .exclusive = "checks"},

      // ---- prove ----
      {.name = "rules", .kind = K::Path, .meta = "FILE", .scope = kProve,
       .help = "prove the rules of FILE instead of the library; no rebuild needed; a malformed file exits 1",
       .repeatable = true},
      {.name = "load-plugin", .kind = K::Path, .meta = "LIB", .scope = kProve,
       .help = "prove the patterns of the plugin LIB (C++ patterns on the instances of their declared "
               "templates, and its rule files) instead of the library; with --rules both are proved; a "
               "plugin that cannot be loaded exits 1",
       .repeatable = true},
      {.name = "target", .kind = K::String, .meta = "NAME", .scope = kProve,
       .help = "prove the conversion patterns of a conversion target (f32-compute, no-f64, gpt-rs-cpu, or a "
               "path as in 'ptir convert --target') instead of the library: each on an instance per root op (and "
               "compare direction) in each dtype the target converts, checked to refine the instance "
               "(exhaustively for narrow elementwise instances, else Z3 at the instance's shapes with "
               "--instance-timeout-ms each); anything but PROVED exits 1",
       .exclusive = "target"},
      {.name = "target-file", .kind = K::Path, .meta = "FILE", .scope = kProve,
       .help = "as --target, for a target file of your own (docs/rewriter.md, \"Target files\")",
       .exclusive = "target"},
      // Pattern selection: the same rows for opt and prove.
      {.name = "enable-patterns", .kind = K::List, .meta = "A,B", .scope = kOpt | kProve,
       .help = "keep only the patterns with these names (plus those --enable-labels keeps); an unknown name "
               "is a usage error with the closest names",
       .repeatable = true},
      {.name = "disable-patterns", .kind = K::List, .meta = "A,B", .scope = kOpt | kProve,
       .help = "drop the patterns with these names; an unknown name is a usage error", .repeatable = true},
      {.name = "enable-labels", .kind = K::List, .meta = "A,B", .scope = kOpt | kProve,
       .help = "keep only the patterns carrying one of these labels (plus those --enable-patterns keeps)",
       .repeatable = true},
      {.name = "disable-labels", .kind = K::List, .meta = "A,B", .scope = kOpt | kProve,
       .help = "drop the patterns carrying any of these labels", .repeatable = true},
      {.name = "max-rank", .kind = K::UInt, .meta = "R", .scope = kProve, .help = "largest root rank of an instance",
       .dflt = "3", .min = 0, .max = 6},
      {.name = "max-dim", .kind = K::UInt, .meta = "D", .scope = kProve, .help = "largest dimension size of an instance's root (operands may be larger where a shape rule needs: "
               "the room beside a slice, dynamic_slice or gather window and an axis the result does not show "
               "up to max(6, D + 3), windows and pads by their attributes; the summary's scope line says so)",
       .dflt = "3", .min = 0, .max = 8},
      {.name = "instances", .kind = K::UInt, .meta = "N", .scope = kProve,
       .help = "instances per pattern (about a quarter are near misses), each other one aimed at a coverage "
               "class not yet fired; then up to 12 directed instances for each class still not fired",
       .dflt = "48", .min = 1, .max = 100000},
      {.name = "seed", .kind = K::UInt, .meta = "S", .scope = kProve,
       .help = "the same seed gives the same instances on every machine", .dflt = "1"},
      {.name = "jobs", .kind = K::UInt, .meta = "N", .scope = kProve, .help = "patterns proved in parallel",
       .dflt = "1", .min = 1, .max = 64},
      {.name = "shard", .kind = K::String, .meta = "K/N", .scope = kProve,
       .help = "prove only the K-th of N deterministic slices of the patterns (1 <= K <= N; CI matrices)"},
      {.name = "instance-timeout-ms", .kind = K::UInt, .meta = "T", .scope = kProve,
       .help = "Z3 budget of each instance's refinement check (its queries share it); running out gives the "
               "campaign, not PROVED",
       .dflt = "4000", .min = 1, .max = 3600000},
      {.name = "campaign-runs", .kind = K::UInt, .meta = "N", .scope = kProve,
       .help = "interpreter runs for an instance Z3 could not decide", .dflt = "1000", .min = 1000,
       .max = 100000000},
      {.name = "require-proof", .scope = kProve, .help = "TESTED, PARTIAL, LICENSED (afn) and LICENSED (reassoc) fail too"},
      {.name = "coverage", .scope = kProve,
       .help = "print each pattern's coverage classes: fired (how often), never fired, unreachable (and why)"},
      {.name = "all-shapes", .scope = kProve,
       .help = "also prove each rule for EVERY rank and size (docs/verification.md \"All-shape proofs\"): "
               "symbolic sizes, inputs as uninterpreted functions, the same IEEE semantics; a second column: "
               "PROVED FOR ALL SHAPES (with the rank bound B: ranks 0..B checked, the argument covers the "
               "rest), BOUNDED ONLY (outside the fragment: why is printed), REFUTED (a concretized "
               "counterexample replayed with the real pattern), UNKNOWN. An all-shape PROVED must also be "
               "PROVED by the bounded run, and a canary at rank B+1 (with a transpose, every rank B+1..5) runs "
               "in the interpreter; a disagreement "
               "fails the run. C++ patterns are BOUNDED ONLY. Scope: the rule's assumptions plus any of "
               "nnan/ninf/nsz; not functions with reassoc the rule does not assume; each rule's proof has a "
               "budget of 120 s of Z3 work (resource units, docs/verification.md; then UNKNOWN), with a wall-clock "
               "net at 10 times that"},
      {.name = "all-shapes-query-timeout-ms", .kind = K::UInt, .meta = "T", .scope = kProve,
       .help = "Z3 budget of each all-shape query", .dflt = "10000", .min = 1, .max = 3600000,
       .needs = "all-shapes"},
      {.name = "all-shapes-emit-smt2", .kind = K::Path, .meta = "FILE", .scope = kProve,
       .help = "write every exact all-shape query (the last stage; the cheaper cached stages are not written) "
               "in SMT-LIB 2 to FILE, each after a line '; RULE rank R', when the run completes",
       .needs = "all-shapes"},
      {.name = "cache-dir", .kind = K::Path, .meta = "DIR", .scope = kProve,
       .help = "the verdict cache (docs/verification.md \"Verdict cache\"): a pattern whose whole result is "
               "stored there for the same prover build (a hash of the ptir executable and every library it "
               "loaded, plugins included), the same result-changing options and the same pattern (name, "
               "origin, rule file text, templates) is not proved again: its row is the stored one, with "
               "'(cached)' in the time column. Only deterministic results are stored (none decided by a "
               "wall-clock safety net or a memory cap); a corrupt entry is ignored. Also orders the "
               "patterns slowest first by their last time. Not used with --all-shapes-emit-smt2, nor for the "
               "conversion patterns of --target / --target-file (always proved afresh)",
       .dflt_help = "$XDG_CACHE_HOME/ptir/prove, else $HOME/.cache/ptir/prove", .exclusive = "cache"},
      {.name = "no-cache", .scope = kProve, .help = "prove every pattern; read and write no verdict cache",
       .exclusive = "cache"},
      {.name = "json", .kind = K::Path, .meta = "FILE", .scope = kProve, .help = "write the results as JSON"},
      {.name = "junit", .kind = K::Path, .meta = "FILE", .scope = kProve,
       .help = "write them as JUnit XML (a failure element for REFUTED, all-shape REFUTED and DISAGREEMENT; an "
               "error element for ERROR, UNKNOWN, NOT EXERCISED and TESTED under --require-proof)"},
      // ---- corpus, prove (in both helps after the command's own) ----
      {.name = "progress", .scope = kCorpus | kProve | kCheckEquiv,
       .help = "progress on stderr, one line per finished item: '[k/n] NAME VERDICT in T (elapsed E, eta R)'; "
               "on a terminal a status line '[k/n] NAME (T) (elapsed E, eta R)' redrawn every second, shown "
               "there without this flag too",
       .exclusive = "progress"},
      {.name = "no-progress", .scope = kCorpus | kProve | kCheckEquiv, .help = "no progress, not even on a terminal",
       .exclusive = "progress"},

      {.name = "list", .scope = kProve,
       .help = "list the patterns that would be proved, with where they come from (rule FILE:LINE, C++, 'C++ "
               "plugin LIB', 'LIB(FILE):LINE'), and exit"},
      {.name = "list-natives", .scope = kProve, .help = "list the rule language's predicates and helpers, and exit"},
      // Old spellings of prove: a usage error that names the new option.
      {.name = "timeout-ms", .scope = kProve,
       .retired = "--timeout-ms is now --instance-timeout-ms on prove (the Z3 budget of each instance's "
                  "check; --timeout-ms is a whole-command budget in run, check-equiv, dot and corpus)"},
      {.name = "all-shapes-timeout-ms", .scope = kProve,
       .retired = "--all-shapes-timeout-ms is now --all-shapes-query-timeout-ms (the Z3 budget of each "
                  "all-shape query)"},
      {.name = "pattern", .scope = kProve,
       .retired = "--pattern was replaced by --enable-patterns=A,B (as in 'ptir opt')"},
      {.name = "label", .scope = kProve, .retired = "--label was replaced by --enable-labels=A,B (as in 'ptir opt')"},

      // ---- synth ----
      {.name = "ops", .kind = K::UInt, .meta = "N", .scope = kSynth,
       .help = "statements in @main (regions of cond/while/scan come on top)", .dflt = "12", .min = 0,
       .max = 100000},
      {.name = "seed", .kind = K::UInt, .meta = "S", .scope = kSynth, .help = "seed of the generator's choices",
       .dflt = "1"},
      {.name = "dtypes", .kind = K::List, .meta = "A,B", .scope = kSynth,
       .help = "data dtypes to draw from; i1 predicates and si32/si64 indices may appear anyway",
       .dflt_help = "all", .choices = dtypes},
      {.name = "profile", .kind = K::Enum, .meta = "P", .scope = kSynth,
       .help = "random: every op; mlp, attention, conv; control: cond/while/scan", .dflt = "random",
       .choices = {"random", "mlp", "attention", "conv", "control"}},
      {.name = "seeded-patterns", .scope = kSynth,
       .help = "also plant the source DAGs of known rewrites and their near misses (x*1, x+(-0.0), transpose "
               "pairs, cast round trips, slice of concat, ...)"},
      {.name = "opaque", .scope = kSynth,
       .help = "also generate custom_call/quantize/dequantize/requantize; 'ptir run' has no kernels for them "
               "(the fuzz harness registers its own), so off by default"},
      {.name = "max-elements", .kind = K::UInt, .meta = "N", .scope = kSynth,
       .help = "largest element count of any tensor", .dflt = "48", .min = 1, .max = 1000000},
#if PTIR_HAVE_MLIR
      {.name = "exportable", .kind = K::Enum, .meta = "D", .scope = kSynth,
       .help = "only programs 'ptir export --to=D' writes exactly (docs/mlir.md \"Export\": its ops, dtypes and "
               "forms, read from export's table; no regions, effects or opaque ops; --dtypes narrows further)",
       .choices = {"tosa", "arith"}},
#endif
      // ---- convert ----
      {.name = "target", .kind = K::String, .meta = "NAME", .scope = kConvert,
       .help = "the conversion target: a shipped one (f32-compute, no-f64, gpt-rs-cpu: patterns/targets/NAME.target) "
               "or the path of a target file (a name with '/' or ending in .target)"},
      {.name = "target-file", .kind = K::Path, .meta = "FILE", .scope = kConvert,
       .help = "a target file of your own (docs/rewriter.md, \"Target files\"); no rebuild needed"},
      {.name = "mode", .kind = K::Enum, .meta = "M", .scope = kConvert,
       .help = "partial: convert what can be, list what stays illegal; full: fail (exit 1, the program unchanged, "
               "nothing printed) naming each op that stays illegal and why; analysis: print which ops would become "
               "legal and which would not, change nothing",
       .dflt = "partial", .choices = {"partial", "full", "analysis"}},
      {.name = "validate", .scope = kConvert,
       .help = "check that the converted program refines the input (every function; exhaustive for narrow "
               "elementwise functions, else Z3) and print 'validate: PROVED|REFUTED|UNKNOWN ...' on stderr; "
               "anything but PROVED exits 1"},
      {.name = "validate-timeout-ms", .kind = K::UInt, .meta = "N", .scope = kConvert,
       .help = "budget of the validation (with --prove-patterns: of each instance); running out gives UNKNOWN",
       .dflt = "60000", .min = 1, .max = kDayMs},
      {.name = "certify", .scope = kConvert,
       .help = "after converting, prove each kind of conversion that fired (pattern, op, compare direction, "
               "dtype, written accumulation) on an instance of exactly that kind, as --prove-patterns does, and "
               "print 'certify: CERTIFIED' (every kind has one and every one is PROVED) or 'NOT CERTIFIED' with the "
               "verdicts on stderr (a kind the target generates no instance of is NOT PROVED); NOT CERTIFIED "
               "exits 1. A proof per kind, whatever the program's size"},
      {.name = "prove-patterns", .scope = kConvert,
       .help = "instead of converting FILE (none is read), prove every conversion pattern of the target: each "
               "is applied to an instance per root op (and compare direction) in each dtype the target "
               "converts, and the converted instance is checked to refine it (exhaustively for narrow "
               "elementwise instances: every shape; Z3 otherwise, at the instance's shapes). One row per "
               "pattern, PROVED only when every instance it fired on is PROVED; exit 1 otherwise"},
      // ---- every command (last in every help) ----
      {.name = "o", .kind = K::Path, .meta = "FILE", .scope = kAll,
       .help = "write the output to FILE ('-' = stdout) through a temporary file next to it, renamed over FILE "
               "when the command succeeds or its verdict or report is complete, so FILE may be an input",
       .dflt = "-", .dflt_help = "stdout"},
      {.name = "help", .scope = kAll, .help = "print this help and exit 0", .alias = "h"},
      {.name = "version", .scope = kAll,
       .help = "print 'ptir VERSION', then the build type and the expensive-checks default, and exit 0"},
  };
}

const std::string kOutputReplaced0 = "-o FILE is replaced only on exit 0, so it may name FILE (see 'ptir --help').";

std::vector<CommandSpec> make_commands() {
  const std::string print_like_description =
      "Parses and verifies FILE (omitted or '-' = stdin) and prints it in canonical text form. Errors are "
      "printed as FILE:LINE:COL: error: ... followed by the source line (a line over 200 bytes: 80 bytes on each "
      "side of the column, the cut ends marked '...') and a caret.";
  const std::string print_like_epilogue =
      "Exit codes: 0 success, 1 a parse or verify error (or, with --verify-diagnostics, a mismatch) or an "
      "output that cannot be written, 2 usage error. " + kOutputReplaced0;
  return {
      {.name = "parse", .bit = kParse, .summary = "parse and verify a file, print it back in canonical form",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = print_like_description, .epilogue = print_like_epilogue},
      {.name = "print", .bit = kPrint, .summary = "same as parse: print a file in canonical form",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = print_like_description, .epilogue = print_like_epilogue},
      {.name = "verify", .bit = kVerify, .summary = "check types, shapes and SSA; print 'ok' or the first error",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = "Checks syntax, types, shapes, attributes, region signatures and SSA of FILE (omitted or "
                      "'-' = stdin). Prints 'ok' or the first error as FILE:LINE:COL: error: ... followed by "
                      "the source line (a line over 200 bytes: 80 bytes on each side of the column, the cut ends "
                      "marked '...') and a caret.",
       .epilogue = "Exit codes: 0 ok, 1 an error (or, with --verify-diagnostics, a mismatch) or an output that "
                   "cannot be written, 2 usage error."},
      {.name = "run", .bit = kRun, .summary = "run the entry function on given or random inputs, print the results",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = "Runs the entry function (@main, else the first func) of FILE (omitted or '-' = stdin) in "
                      "the reference interpreter and prints each result as a PTIR literal, one per line (a "
                      "large one summarised unless --full). Inputs come from --inputs or --random; a function "
                      "without parameters needs neither.",
       .epilogue = "Exit codes: 0 ran, 1 bad input, undefined behaviour, a budget exceeded, no kernel or an "
                   "output that cannot be written, 2 usage error (a function with parameters and neither "
                   "--inputs nor --random included). " + kOutputReplaced0},
      {.name = "opt", .bit = kOpt, .summary = "run a rewrite pipeline and print the optimized program",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = "Runs a rewrite pipeline over FILE (omitted or '-' = stdin) and prints the optimized "
                      "program in the text format on stdout. Diagnostics, logs and reports go to stderr.",
       .epilogue = "Exit codes: 0 success (a non-converging canonicalize is a warning; with --validate, "
                   "PROVED, or UNKNOWN without --require-proof), 1 bad input, failed check, REFUTED "
                   "validation, (with --require-certificate) NOT CERTIFIED or an output that cannot be "
                   "written, 2 usage error. " + kOutputReplaced0},
      {.name = "check-equiv", .bit = kCheckEquiv, .summary = "prove or refute that TGT refines SRC (Z3, bit-exact IEEE)",
       .synopsis = {"SRC TGT"}, .min_operands = 2, .max_operands = 2, .operands = {"SRC", "TGT"},
       .description =
           "Checks that program TGT refines program SRC: both define the same functions (by name) with the "
           "same signatures, and for every function and every input on which SRC's function has no undefined "
           "behaviour, TGT's has none and returns equal results (all NaNs are equal, +0.0 and -0.0 differ). "
           "The program verdict is the weakest function verdict; a function missing from either side is an "
           "ERROR. Floats are encoded bit-exactly in Z3; transcendentals and opaque ops are uninterpreted; "
           "while loops are unrolled --unroll times. The last line says which functions were checked.\n\n"
           "The first output line starts with the verdict:\n"
           "  PROVED   Z3 showed refinement for all inputs of the given shapes\n"
           "  REFUTED  a concrete input, replayed in the interpreter, breaks it; the input tensors, both "
           "results and the differing output element are printed as PTIR literals (tensors of more than 64 "
           "elements as a summary: type, count of differing elements, the first few; --full prints all)\n"
           "  UNKNOWN  timeout, memory budget, loop bound, or a counterexample that did not replay (never a "
           "pass)",
       .epilogue = "-o FILE (the report) and --emit-smt2 FILE are replaced for a verdict (exit 0, 1 or 2), "
                   "left as they were on an error.\n\n"
                   "Exit codes: 0 PROVED, 1 REFUTED, 2 UNKNOWN, 3 error (bad file, signature mismatch, usage, "
                   "an output that cannot be written).",
       .usage_code = 3},
      {.name = "dot", .bit = kDot, .summary = "write a program (or a refuted pair) as GraphViz DOT",
       .synopsis = {"[FILE]", "SRC TGT --counterexample [--timeout-ms N]"}, .max_operands = 2,
       .description = "Writes GraphViz DOT on stdout (render with 'dot -Tsvg'). With one file (omitted or '-' = "
                      "stdin): its entry function, parameters, instructions and results as nodes, operands as "
                      "edges. With two files and --counterexample: runs 'ptir check-equiv SRC TGT' and draws "
                      "both sides over shared input nodes; for a REFUTED pair the inputs carry the "
                      "counterexample values, every result its value, and the differing result is red. The "
                      "verdict line is the graph's caption.",
       .epilogue = "Exit codes: 0 written, 1 bad input (or a check that ended in an error) or an output that "
                   "cannot be written, 2 usage error (two files without --counterexample, or one with it, "
                   "included)."},
      {.name = "corpus", .bit = kCorpus, .summary = "parse, verify and run every program of a folder; print a table",
       .synopsis = {"DIR|FILE..."}, .min_operands = 1, .max_operands = SIZE_MAX, .operands = {"DIR|FILE..."},
       .description = "Parses, verifies and runs (on random inputs from --seed, with in-range indices) every "
                      ".ptir file given or found in the folders (in name order), and prints one table row per "
                      "program as soon as it is done.",
       .epilogue = "Exit code 0 when every program passes (an UNKNOWN verdict is reported, not a failure), 1 "
                   "when a step fails or a verdict is REFUTED (the table is complete: -o FILE is replaced), "
                   "when a path does not exist or holds no .ptir file, or when the output cannot be written; "
                   "2 on usage errors."},
      {.name = "prove", .bit = kProve,
       .summary = "prove every pattern of the library (or a rule file) on generated instances",
       .synopsis = {""}, .max_operands = 0,
       .description =
           "Proves the patterns of the built-in library (or, with --rules or --load-plugin, only those): for "
           "every pattern, instances of the DAG it must handle are generated (ranks 0..--max-rank, dims "
           "0..--max-dim with size 0 and 1 included, every dtype the constraints admit, random attributes) "
           "plus near misses (a splat nudged to a neighbouring value, a repeated capture split, an extra "
           "use; and from outside the source: one constraint failing, one op swapped for a sibling op such "
           "as neg for abs, one attribute changed, two operands swapped, a shared subterm copied; a "
           "capture is sometimes a constant or another op's result); the REAL pattern runs on each through the production greedy driver (folding off) and Z3 "
           "checks that the rewritten program refines the instance, bit-exactly. Instances are steered to "
           "each coverage class of the pattern (root rank, dtype of each capture, "
           "accum/keepdims/perm/pad/slice/tile/broadcast/dir classes of its ops, input sizes, shared "
           "subterms, extra fast-math flags; docs/verification.md \"Coverage\"). The pattern selection "
           "options are those of 'ptir opt'. One row per pattern:\n"
           "  PROVED         every instance it fired on was proved, and every reachable coverage class "
           "fired (count, shapes and dtypes shown; 'classes' is fired/reachable), and a sweep of twice as "
           "many more instances, each rewritten and run in the interpreter (8 inputs), found no difference, "
           "and every near miss it fired on (each checked like an instance) kept its meaning; a pattern that "
           "fired only on near misses is NOT EXERCISED\n"
           "  TESTED         Z3 said UNKNOWN on some instance, which then passed an interpreter campaign of "
           "--campaign-runs edge-biased inputs: listed, never called PROVED\n"
           "  REFUTED        an instance where the rewrite changes the meaning: the instance, the rewritten "
           "program and the counterexample are printed\n"
           "  PARTIAL        every instance it fired on was proved (or TESTED), but some reachable coverage "
           "class never fired (they are listed): not a proof of the pattern\n"
           "  NOT EXERCISED  the pattern never fired on its instances (an error; the reason is printed)\n"
           "  ERROR          no instance could be generated, or the pattern has no instance template\n"
           "  UNKNOWN        some instance was neither proved nor decided by the campaign (fails too)\n"
           "  LICENSED (afn), LICENSED (reassoc)  the exact verdict was not PROVED, but the rule holds over the "
           "reals under the flags it assumes (docs/verification.md \"Licences\"): never called PROVED",
       .epilogue =
           "Exit codes: 0 nothing REFUTED, NOT EXERCISED, ERROR or UNKNOWN (and, with --require-proof, nothing "
           "TESTED, PARTIAL or LICENSED; with --all-shapes, nothing all-shape REFUTED and no disagreement); 1 otherwise, "
           "a bad rule file (FILE:LINE:COL: error: ...) or a plugin that cannot be loaded (LIB: error: ...) or "
           "an output that cannot be written; 2 usage error (an unknown pattern name included). -o FILE, "
           "--json FILE and --junit FILE are replaced once the report is complete (exit 0 or 1 with the "
           "failures listed); an error before it leaves them as they were. Rows are printed as the patterns "
           "finish (in name order; with --target or --target-file, all at the end in the target's order).\n"
           "SIGINT or SIGTERM during the proofs: --json and --junit FILE are replaced by the report of the "
           "patterns finished so far (JSON: \"complete\": false and the unfinished ones; JUnit: a pattern "
           "being proved is an error INTERRUPTED, one not started is skipped), then ptir dies by the signal; "
           "-o FILE keeps its old content. SIGKILL leaves every file as it was."},
      {.name = "convert", .bit = kConvert,
       .summary = "convert a program for a backend (conversion target): dtypes and ops it lacks",
       .synopsis = {"FILE", "--prove-patterns"}, .max_operands = 1,
       .description = "Rewrites every instruction the target calls illegal (an op it lacks, or arithmetic in a dtype "
                      "it lacks) with the target's conversion patterns, each of which is exact (docs/rewriter.md, "
                      "\"Conversion\"); e.g. f32-compute computes bf16/f16 arithmetic in f32 between casts. The "
                      "converted program goes to stdout, a summary (and what stays illegal, with why) to stderr.",
       .epilogue = "Exit codes: 0 success; 1 a full conversion that leaves an illegal op (the ops are named, the "
                   "program is unchanged and -o FILE keeps its old content), a bad program or target file, or "
                   "--validate not PROVED; 2 usage error."},
#if PTIR_HAVE_MLIR
      {.name = "import", .bit = kImport, .summary = "read MLIR (func/arith/math/tensor/tosa, StableHLO generic) as PTIR",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = "Parses FILE (omitted or '-' = stdin) with MLIR 19's parser (dialects func, arith, math, "
                      "tensor, tosa registered; others, such as StableHLO in generic form, read unregistered) and "
                      "prints every func.func as a PTIR function with the same meaning, op by op (docs/mlir.md). "
                      "An op PTIR cannot state exactly is an error 'FILE:LINE:COL: error: cannot import 'OP': "
                      "WHY' at the op, never an approximation; every such function is reported.",
       .epilogue = "Exit codes: 0 every function imported, 1 a parse error, a function that cannot be imported "
                   "(nothing is printed) or an output that cannot be written, 2 usage error. " + kOutputReplaced0},
      {.name = "export", .bit = kExport, .summary = "write a PTIR program as MLIR (tosa or arith)",
       .synopsis = {"[FILE]"}, .max_operands = 1,
       .description = "Writes the PTIR program FILE (omitted or '-' = stdin) as MLIR in generic op form, which "
                      "mlir-opt-19 parses and 'ptir import' reads back to the same program (docs/mlir.md "
                      "\"Export\"). Reductions, dot_general and pad are written as exact compositions of slices, "
                      "elementwise ops and concats. An instruction without an exact spelling in the chosen dialects "
                      "is an error naming it.",
       .epilogue = "Exit codes: 0 written, 1 a bad file, an instruction that cannot be exported or an output "
                   "that cannot be written, 2 usage error. " + kOutputReplaced0},
      {.name = "tv", .bit = kTv, .summary = "translation validation: check what an MLIR tool did to FILE",
       .synopsis = {"FILE -- CMD [ARGS...]"}, .min_operands = 2, .max_operands = SIZE_MAX,
       .operands = {"FILE", "CMD"},
       .description =
           "Runs CMD ARGS on the MLIR file FILE (FILE replaces every '%s' in ARGS, else is appended), reads "
           "its stdout as MLIR, imports both modules ('ptir import') and checks every function of the output "
           "against its namesake in FILE with the refinement checker of 'ptir check-equiv' (Z3, bit-exact "
           "IEEE). '--' before CMD is needed when an argument of CMD starts with '-'. One row per function of "
           "the output:\n"
           "  PROVED          the output function refines the input function for every input\n"
           "  REFUTED         an input, replayed in the interpreter, on which they differ (or the output has "
           "UB); printed as MLIR values ('%x = dense<-0.0> : tensor<4xf32>') with both results, then the "
           "input function shrunk: ops dropped one at a time (uses replaced by an operand or parameter of the "
           "same type, else a zero constant), CMD run again and the check redone, keeping the smallest that "
           "is still REFUTED\n"
           "  UNKNOWN         timeout, memory budget, or a counterexample that did not replay (never a pass)\n"
           "  NOT IMPORTABLE  the function (input or output) has an op PTIR cannot state exactly; the op and "
           "its location are named\n"
           "  ERROR           the output has a function the input lacks, or a changed signature",
       .epilogue = "Exit codes: 0 every function PROVED, 1 some function REFUTED, 2 else some UNKNOWN or NOT "
                   "IMPORTABLE, 3 an error (FILE unreadable, CMD failed or its output is not MLIR, an ERROR "
                   "row, usage, an output that cannot be written). -o FILE (the report) is replaced for exit 0, "
                   "1 or 2.",
       .usage_code = 3},
#endif
      {.name = "synth", .bit = kSynth,
       .summary = "print a random valid program (fuzz generator), deterministic for a seed",
       .synopsis = {""}, .max_operands = 0,
       .description = "Prints a random, well-typed PTIR program (it parses and verifies) on stdout, from the "
                      "generator the fuzzers use (docs/fuzzing.md). The same options and seed always give the "
                      "same program.",
       .epilogue = "Literals are biased to edge values (+-0, +-inf, NaN payloads, subnormals, largest finite, "
                   "INT_MIN, -1, 0); shapes include rank 0, empty and size-1 dims. Exit codes: 0 success, 2 "
                   "usage error (the bad option is named), 1 if the generator wrote an invalid program (a "
                   "bug: please report it with the seed) or the output cannot be written."},
  };
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = make_options();
  return table;
}

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = make_commands();
  return table;
}

}  // namespace ptir::tool
