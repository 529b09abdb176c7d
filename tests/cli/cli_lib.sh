# cli_lib.sh — sourced by the CLI tests (tests/cli/test_*.sh): `cli_setup NAME` sets $cli (the
# gemmkit binary of $GK_BUILD) and $tmp (a directory removed at exit) and fails the test NAME_exists
# when the binary is missing; `expect NAME STATUS PATTERN -- COMMAND...` runs COMMAND and prints
# "ok NAME" when it exits with STATUS and its output matches the extended regex PATTERN, else a
# FAIL line with the output's tail.
cli_setup() {
    cli=${GK_BUILD:-build}/bin/gemmkit
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    if [ ! -x "$cli" ]; then
        echo "FAIL $1_exists: $cli not built"
        exit 1
    fi
}

expect() {
    local name=$1 want=$2 pat=$3
    shift 4
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want; output: $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
    elif ! grep -Eq -- "$pat" "$tmp/out"; then
        echo "FAIL $name: output lacks /$pat/: $(tail -n 3 "$tmp/out" | tr '\n' ' ')"
    else
        echo "ok $name"
    fi
}
