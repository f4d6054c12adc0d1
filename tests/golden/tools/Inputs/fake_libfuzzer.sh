#!/usr/bin/env bash
# A stand-in for a libFuzzer binary (scripts/fuzz FUZZ_BIN=...): prints what libFuzzer prints, in one
# process or in -fork=N mode (status lines only, no final stats), and for FAKE_FUZZ_CRASH=1 writes a
# crash artifact and exits 1. Runs for FAKE_FUZZ_SECONDS (default 0) seconds. Given a file (an artifact)
# instead of corpus folders, it replays it: reports the crash again, naming the ASAN_OPTIONS it ran with.
# FAKE_FUZZ_REPEATS=R: the exit line of a target that skips repeated programs, R of 2048 cases.
# FAKE_FUZZ_INTERRUPT=1: a run stopped by SIGINT from outside (exit 72 after "run interrupted").
fork=0; prefix=""
for a in "$@"; do
  case "$a" in
    -fork=*) fork="${a#-fork=}" ;;
    -artifact_prefix=*) prefix="${a#-artifact_prefix=}" ;;
    -*) ;;
    *) if [ -f "$a" ]; then
         echo "==12345==ERROR: AddressSanitizer: heap-buffer-overflow (fake, replayed with ASAN_OPTIONS=$ASAN_OPTIONS)"
         exit 1
       fi ;;
  esac
done
echo "INFO: ASAN_OPTIONS=$ASAN_OPTIONS"
echo "INFO: flags: $*"
echo "INFO: Running with entropic power schedule (0xFF, 100)."
for ((t = 1; t <= ${FAKE_FUZZ_SECONDS:-0}; t++)); do
  sleep 1
  if [ "$fork" -gt 0 ]; then
    echo "#$((t * 1000)): cov: $((300 + t)) ft: $((900 + t)) corp: 12 exec/s 1000 oom/timeout/crash: 0/0/0 time: ${t}s job: $t dft_time: 0"
  else
    printf '#%d\tpulse  cov: %d ft: %d corp: 12/1Kb exec/s: 1000 rss: 60Mb\n' $((t * 1000)) $((300 + t)) $((900 + t))
  fi
done
if [ "$fork" -gt 0 ]; then
  echo "INFO: -fork=$fork: fuzzing in separate process(s)"
  echo "#2048: cov: 310 ft: 950 corp: 13 exec/s 1024 oom/timeout/crash: 0/0/0 time: 3s job: 2 dft_time: 0"
  echo "INFO: fuzzed for 3 seconds, wrapping up soon"
else
  printf '#2048\tDONE   cov: 310 ft: 950 corp: 13/2Kb lim: 64 exec/s: 1024 rss: 61Mb\n'
  echo "stat::number_of_executed_units: 2048"
  echo "stat::average_exec_per_sec:     1024"
  # The generator-driven targets print how many of their cases repeated a program (fuzz/harness/repeats.h).
  [ -n "${FAKE_FUZZ_REPEATS:-}" ] &&
    echo "fuzz_parse repeats: $((2048 - FAKE_FUZZ_REPEATS)) programs checked, $FAKE_FUZZ_REPEATS repeats skipped (50% of 2048 cases), 0 table restarts"
fi
if [ "${FAKE_FUZZ_INTERRUPT:-0}" = 1 ]; then  # stopped by a signal from outside, as libFuzzer says it
  echo "==12345== libFuzzer: run interrupted; exiting"
  exit 72
fi
if [ "${FAKE_FUZZ_CRASH:-0}" = 1 ]; then
  echo "==12345==ERROR: AddressSanitizer: heap-buffer-overflow (fake, campaign with ASAN_OPTIONS=$ASAN_OPTIONS)"
  printf 'x' > "${prefix}crash-0000"
  exit 1
fi
exit 0
