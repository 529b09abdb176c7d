# shellcheck shell=bash
# blas_env.sh — sourced by the drop-in tests (tests/blas/test_*.sh, tests/python/test_numpy_preload.sh):
# locates the library under test ($GK_BUILD/lib/libgemmkit.so, as set by `make test`) and the
# Debian netlib BLAS testers, and builds the LD_PRELOAD value that makes a program's BLAS calls
# reach gemmkit. A sanitizer build (make test SANITIZE=1) needs the ASan runtime loaded first.

gk_report() { echo "$1 $2${3:+: $3}"; } # status name [why]

GK_BUILD=${GK_BUILD:-build}
gk_lib=$(readlink -f "$GK_BUILD/lib/libgemmkit.so" 2>/dev/null)
gk_preload=$gk_lib
if [ -n "$gk_lib" ] && readelf -d "$gk_lib" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    gk_preload="$(${CC:-cc} -print-file-name=libasan.so):$gk_lib"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi

# Debian's libblas-test puts the testers and the reference BLAS (which also carries reference
# CBLAS) in /usr/lib/<multiarch>/blas.
gk_blas_dir=
for d in /usr/lib/*/blas; do
    [ -x "$d/xblat3s" ] && gk_blas_dir=$d && break
done

# gk_expect_line NAME PATTERN FILE CONTEXT_REGEX: ok if PATTERN occurs in FILE (a tester's summary),
# else FAIL quoting the first lines of FILE that match CONTEXT_REGEX. Returns 1 on failure.
gk_expect_line() {
    if grep -q "$2" "$3"; then
        gk_report ok "$1"
    else
        gk_report FAIL "$1" "'$2' not in $3: $(grep -E "$4" "$3" | head -n 3 | tr '\n' ' ')"
        return 1
    fi
}

# gk_expect_bound NAME PROG ENTRY HANDLER LD_DIR STDERR: proof that PROG's calls reached gemmkit.
# The dynamic linker's binding log (LD_DEBUG=bindings, LD_DEBUG_OUTPUT=LD_DIR/ld) must show
# PROG's ENTRY bound to libgemmkit and gemmkit's HANDLER call bound to PROG's own handler, and
# STDERR must hold GEMMKIT_VERBOSE's "gemmkit: ENTRY called" line. Returns 1 on failure.
gk_expect_bound() {
    local name=$1 prog=$2 entry=$3 handler=$4 ld=$5 err=$6 to_gk to_prog verbose
    to_gk=$(cat "$ld"/ld.* | grep -c "$prog .* to .*libgemmkit[^ ]* .*symbol \`$entry'")
    to_prog=$(cat "$ld"/ld.* | grep -c "libgemmkit[^ ]* .* to .*$prog .*symbol \`$handler'")
    verbose=$(grep -c "gemmkit: $entry called" "$err")
    if [ "$to_gk" -ge 1 ] && [ "$to_prog" -ge 1 ] && [ "$verbose" -ge 1 ]; then
        gk_report ok "$name"
    else
        gk_report FAIL "$name" "$entry->gemmkit bindings $to_gk, $handler->tester $to_prog, verbose line $verbose"
        return 1
    fi
}
