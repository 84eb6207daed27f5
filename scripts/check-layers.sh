#!/usr/bin/env bash
# The layering of the modules (docs/architecture.md): a module includes only
# its own headers and those of the modules before it on the command line
# (`make layers` passes the Makefile's MODULES).  Prints each include that
# reaches up and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 MODULE... (lowest first)" >&2; exit 2; }
MODULES=("$@")
declare -A rank home
for i in "${!MODULES[@]}"; do
    m=${MODULES[$i]}
    rank[$m]=$i
    for h in "$m"/*.h; do home[$(basename "$h")]=$m; done
done
bad=0
for m in "${MODULES[@]}"; do
    for f in "$m"/*.[ch]; do
        while IFS= read -r h; do
            up=${home[$h]:-}
            if [ -n "$up" ] && [ "${rank[$up]}" -gt "${rank[$m]}" ]; then
                echo "$f: includes $up/$h (a later module)"
                bad=1
            fi
        done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    done
done
exit $bad
