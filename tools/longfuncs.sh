#!/bin/sh
# Functions of src/, emu/ and tools/ longer than N lines (default 100), longest first: FILE:LINE
# NAME LINES. A function is a line at column 0 that names it and a body from
# the next '{' at column 0 to the next '}' at column 0 (the project's style).
# Exit 0 always; make test fails when it prints anything (issue 24).
N=${1:-100}
find src emu tools -name '*.c' | sort | while read -r f; do
	awk -v f="$f" -v N="$N" '
		/^[A-Za-z_].*\(/ && !/;$/ { sig = FNR; name = $0; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
		/^\{/ && sig { start = sig }
		/^\}/ && start { len = FNR - start + 1; if (len > N) printf "%d %s:%d %s\n", len, f, start, name; start = 0; sig = 0 }
	' "$f"
done | sort -rn | awk '{printf "%s %s %d lines\n", $2, $3, $1}'
