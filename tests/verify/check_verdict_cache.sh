#!/usr/bin/env bash
# The verdict cache of `ptir prove` (docs/verification.md "Verdict cache").
# Usage: check_verdict_cache.sh PTIR [RULE_FILE_PLUGIN]
# Two small rule files are proved (bounded and for all shapes) with a fresh --cache-dir, then:
#   1. again: every row is "(cached)" and the table (every column but the time) is the cold run's, byte
#      for byte, and so are the summary lines after the totals (details, all-shape scopes) and the exit code;
#   2. one rule file changed (a rule's text, now wrong): its rules are proved again (no "(cached)"; the
#      rule REFUTED), the other file's rules still come from the cache;
#   3. every entry corrupted (one byte flipped, or cut short): ignored, proved again, same table;
#   4. --no-cache: nothing read (no "(cached)") and nothing written (the cache folder stays as it was);
#   5. another seed misses (an option that changes the result is part of the key);
#   6. (with RULE_FILE_PLUGIN, tests/plugin/rule_file_on_disk.cpp) a plugin's rule file read from disk
#      when the plugin loads: the plugin's library does not change, its rule file does, and the changed,
#      wrong rule is proved again and REFUTED, not taken from the cache.
set -euo pipefail
ptir="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/a.rules" <<'EOF'
// -(-x) => x (exact in every dtype)
rule cache_neg_neg : neg(neg(%x)) => %x
// |(|x|)| => |x|
rule cache_abs_abs [bounded] : abs(abs(%x)) => abs(%x)
EOF
cat > "$tmp/b.rules" <<'EOF'
// x * 1 => x, integers only
rule cache_mul_one_int : mul(%x, splat(1)) where is_int(%x) => %x
EOF
prove() { "$ptir" prove --rules "$tmp/a.rules" --rules "$tmp/b.rules" --all-shapes --instances 16 --no-progress "$@"; }
# The table and the lines after it with the times taken out: the time column, the total, the all-shape
# median and max, and the times a REFUTED detail quotes ("fast pass: counterexample in 3 runs (0.1 ms)"),
# which differ between two cold runs too.
strip() {
  sed -E -e 's/ +([0-9]+\.[0-9]+s|\(cached\))  / /' -e 's/; [0-9.]+ s$//' -e 's/median [0-9]+ ms, max [0-9]+ ms//' \
    -e 's/ \([0-9.]+ m?s\)//g' "$1"
}
fail() { echo "FAIL: $*"; exit 1; }
rows() { grep -cE '^cache_[a-z_]+ +(PROVED|TESTED|REFUTED|PARTIAL|NOT|ERROR|UNKNOWN)' "$1" || true; }
cached() { grep -cE '^cache_.*\(cached\)  ' "$1" || true; }

rc=0; prove --cache-dir "$tmp/c" > "$tmp/cold" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/cold"; fail "the cold run exited $rc"; }
[ "$(rows "$tmp/cold")" -eq 3 ] || { cat "$tmp/cold"; fail "expected 3 rows in the cold run"; }
[ "$(cached "$tmp/cold")" -eq 0 ] || fail "a cold run shows cached rows"
entries=$(find "$tmp/c/verdicts" -type f | wc -l)
[ "$entries" -eq 3 ] || fail "$entries cache entries after the cold run, expected 3"

# 1. warm
rc2=0; prove --cache-dir "$tmp/c" --json "$tmp/warm.json" > "$tmp/warm" || rc2=$?
[ "$(cached "$tmp/warm")" -eq 3 ] || { cat "$tmp/warm"; fail "the warm run did not take every row from the cache"; }
diff -u <(strip "$tmp/cold") <(strip "$tmp/warm") || fail "the warm run's table differs from the cold run's"
[ "$rc" -eq "$rc2" ] || fail "exit $rc cold, $rc2 warm"
[ "$(grep -c '"cached": true' "$tmp/warm.json")" -eq 3 ] || fail "the JSON report does not say cached"
echo "ok: warm run, 3 rows cached, table identical, exit $rc both times"

# 2. a changed rule text misses (its file's rules), the other file's rules still hit
sed -i 's/=> abs(%x)$/=> abs(neg(%x))/' "$tmp/a.rules"
grep -q 'abs(neg(%x))' "$tmp/a.rules" || fail "the rule file was not changed"
# (abs(neg(x)) is not abs(x) on unsigned integers: the changed rule is wrong, and a stale cached PROVED
# would hide it.)
rc=0; prove --cache-dir "$tmp/c" > "$tmp/changed" || rc=$?
[ "$rc" -eq 1 ] || { cat "$tmp/changed"; fail "the changed, wrong rule: exit $rc, expected 1"; }
grep -qE '^cache_abs_abs +REFUTED +REFUTED ' "$tmp/changed" || { cat "$tmp/changed"; fail "the changed, wrong rule is not REFUTED"; }
grep -qE '^cache_abs_abs .*\(cached\)' "$tmp/changed" && fail "a changed rule was taken from the cache"
grep -qE '^cache_neg_neg .*\(cached\)' "$tmp/changed" && fail "a rule of a changed file was taken from the cache"
grep -qE '^cache_mul_one_int .*\(cached\)' "$tmp/changed" || fail "the unchanged file's rule missed the cache"
echo "ok: a changed rule file is proved again, the other one is not"

# 3. corrupt entries are ignored (proved again, the same table)
prove --cache-dir "$tmp/c" > "$tmp/before" || true  # every entry written for the current files
n=0
for f in $(find "$tmp/c/verdicts" -type f | sort); do
  n=$((n + 1))
  size=$(stat -c %s "$f")
  if [ $((n % 2)) -eq 0 ]; then
    head -c $((size / 2)) "$f" > "$f.cut" && mv "$f.cut" "$f"         # cut short
  else
    printf 'X' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none  # one byte changed
  fi
done
prove --cache-dir "$tmp/c" > "$tmp/corrupt" || true
[ "$(cached "$tmp/corrupt")" -eq 0 ] || { cat "$tmp/corrupt"; fail "a corrupt cache entry was used"; }
diff -u <(strip "$tmp/before") <(strip "$tmp/corrupt") || fail "the table changed after corrupting the cache"
prove --cache-dir "$tmp/c" > "$tmp/rewritten" || true
[ "$(cached "$tmp/rewritten")" -eq 3 ] || fail "the corrupt entries were not written again"
echo "ok: $n corrupt entries ignored and replaced"

# 4. --no-cache neither reads nor writes
before=$(find "$tmp/c" -type f -printf '%P %s %T@\n' | sort | md5sum)
prove --no-cache > "$tmp/nocache" || true
[ "$(cached "$tmp/nocache")" -eq 0 ] || fail "--no-cache read the cache"
diff -u <(strip "$tmp/before") <(strip "$tmp/nocache") || fail "--no-cache gives another table"
[ "$(find "$tmp/c" -type f -printf '%P %s %T@\n' | sort | md5sum)" = "$before" ] || fail "--no-cache wrote to the cache"
echo "ok: --no-cache"

# 5. another seed is another key
prove --cache-dir "$tmp/c" --seed 2 > "$tmp/seed2" || true
[ "$(cached "$tmp/seed2")" -eq 0 ] || fail "--seed 2 hit entries of --seed 1"

# 6. a plugin's rule file on disk is keyed by its text, like a --rules file
if [ -n "${2:-}" ]; then
  printf '%s\n' 'rule cache_plugin_neg_neg [bounded] : neg(neg(%x)) => %x' > "$tmp/p.rules"
  pprove() {
    PTIR_TEST_PLUGIN_RULE_FILE="$tmp/p.rules" "$ptir" prove --load-plugin "$2" --enable-patterns=cache_plugin_neg_neg \
      --instances 16 --no-progress --cache-dir "$tmp/pc"
  }
  rc=0; pprove "$@" > "$tmp/p1" || rc=$?
  grep -qE '^cache_plugin_neg_neg +PROVED ' "$tmp/p1" || { cat "$tmp/p1"; fail "the plugin's rule is not PROVED"; }
  pprove "$@" > "$tmp/p2" || true
  grep -qE '^cache_plugin_neg_neg .*\(cached\)' "$tmp/p2" || { cat "$tmp/p2"; fail "the plugin's rule was not cached"; }
  # neg(neg(x)) is x, not abs(x): a stale cached PROVED would hide the wrong rule.
  printf '%s\n' 'rule cache_plugin_neg_neg [bounded] : neg(neg(%x)) => abs(%x)' > "$tmp/p.rules"
  rc=0; pprove "$@" > "$tmp/p3" || rc=$?
  grep -qE '^cache_plugin_neg_neg .*\(cached\)' "$tmp/p3" && { cat "$tmp/p3"; fail "a changed plugin rule file was taken from the cache"; }
  grep -qE '^cache_plugin_neg_neg +REFUTED ' "$tmp/p3" || { cat "$tmp/p3"; fail "the changed, wrong plugin rule is not REFUTED"; }
  [ "$rc" -eq 1 ] || fail "the changed, wrong plugin rule: exit $rc, expected 1"
  echo "ok: a plugin's rule file on disk is keyed by its text"
fi
echo "PASS: verdict cache"
