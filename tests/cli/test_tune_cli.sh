#!/usr/bin/env bash
# test_tune_cli.sh — `gemmkit tune` without a GPU: --where follows GEMMKIT_TUNE_CACHE, --cache,
# XDG_CACHE_HOME and HOME and says whether the file exists; --reset deletes it (and succeeds when
# there is none); the cache can be turned off; bad options are usage errors (exit 2). Measuring
# needs a GPU: here it must fail cleanly (exit 1 or 2 with a message), never crash. Prints
# ok/FAIL/skip lines.
set -u
. "$(dirname "$0")/cli_lib.sh"
cli_setup tune_cli

expect tune_where_env 0 "^$tmp/c.txt \(not written yet\)" -- \
    env GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune --where
printf 'gemmkit-tune 1\n' >"$tmp/c.txt"
expect tune_where_exists 0 "\(exists\)" -- env GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune --where
expect tune_where_option 0 "^$tmp/d.txt " -- env GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune \
    --where --cache "$tmp/d.txt"
expect tune_where_xdg 0 "^$tmp/xdg/gemmkit/tune.txt " -- \
    env -u GEMMKIT_TUNE_CACHE XDG_CACHE_HOME="$tmp/xdg" "$cli" tune --where
expect tune_where_home 0 "^$tmp/home/.cache/gemmkit/tune.txt " -- \
    env -u GEMMKIT_TUNE_CACHE -u XDG_CACHE_HOME HOME="$tmp/home" "$cli" tune --where
expect tune_off 0 "is off" -- env GEMMKIT_TUNE_CACHE=off "$cli" tune --where
expect tune_reset 0 "deleted" -- env GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune --reset
if [ -e "$tmp/c.txt" ]; then echo "FAIL tune_reset_removed: the file is still there"; else
    echo "ok tune_reset_removed"; fi
expect tune_reset_missing 0 "deleted" -- env GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune --reset
expect tune_bad_option 2 "unknown or incomplete option" -- "$cli" tune --bogus
expect tune_bad_sizes 2 "." -- env GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune --sizes 0x1x1
expect tune_help 0 "usage: gemmkit tune" -- "$cli" tune --help
# measuring: on a machine without a GPU it fails with a message; with one it is the device run's job
if ! "$cli" info 2>/dev/null | grep -Eq "none usable|not built"; then
    echo "skip tune_no_gpu: a GPU is present (gemmkit tune is measured in the device run)"
else
    GEMMKIT_TUNE_CACHE="$tmp/c.txt" "$cli" tune --dry-run --sizes 64 >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
        echo "FAIL tune_no_gpu: exit $rc, expected 1 or 2"
    elif ! grep -Eq "no CUDA device|no CUDA backend" "$tmp/out"; then
        echo "FAIL tune_no_gpu: no message: $(tail -n 2 "$tmp/out" | tr '\n' ' ')"
    else
        echo "ok tune_no_gpu"
    fi
fi
