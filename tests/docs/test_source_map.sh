#!/usr/bin/env bash
# test_source_map.sh — README.md's source map ("## Layout of the source") names every folder under
# src/ that holds source files, at any depth, as `src/<folder>/`, so that a folder added without
# a row in the map fails here. Prints one ok/FAIL line. GK_SOURCE_ROOT checks another tree (a copy
# with a folder added, to see this test fail); the default is this checkout.
set -u
root=${GK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
readme=$root/README.md
if [ ! -f "$readme" ] || [ ! -d "$root/src" ]; then
    echo "FAIL source_map: no README.md or src/ under $root"
    exit 0
fi
# The map: from its heading to the next second-level heading.
map=$(awk '/^## Layout of the source/ { on = 1; next } on && /^## / { exit } on' "$readme")
if [ -z "$map" ]; then
    echo "FAIL source_map: README.md has no '## Layout of the source' section"
    exit 0
fi
# Folders holding at least one source file (C, C++, CUDA, assembly, Python), relative to $root.
folders=$(cd "$root" && find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
    -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.S' -o -name '*.s' \
    -o -name '*.py' \) -printf '%h\n' | sort -u)
missing=
count=0
for d in $folders; do
    count=$((count + 1))
    # A row names the folder itself in backticks, with or without the trailing slash; a deeper
    # path (`src/cuda/core/`) does not name its parent (`src/cuda/`).
    if ! printf '%s\n' "$map" | grep -qF -e "\`$d/\`" -e "\`$d\`"; then
        missing="$missing $d/"
    fi
done
if [ "$count" -eq 0 ]; then
    echo "FAIL source_map: no source files found under $root/src"
elif [ -n "$missing" ]; then
    echo "FAIL source_map: README.md's source map (## Layout of the source) does not name:$missing"
else
    echo "ok source_map ($count folders under src/ in README.md's map)"
fi
