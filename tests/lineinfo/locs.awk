# -lineinfo's .loc lines (tests/lib.sh, check_lineinfo): after a '// line N:
# STATEMENT' comment the next instruction runs under '.loc 1 N ...' (a
# repeat's '// line N: trip' comments are followed by its body's statements)
/^[ \t]*\.loc[ \t]/ { cur = $3; next }
/^[ \t]*\/\/ line [0-9]+: trip / { next }
/^[ \t]*\/\/ line [0-9]+:/ { s = $0; sub(/^[ \t]*\/\/ line /, "", s); sub(/:.*/, "", s); want = s; at = NR; next }
/^[ \t]*(\/\/|\.|\{|\}|$)/ { next }
/^[^ \t].*:$/ { next }
want != "" { if (cur != want) { printf "line %d: after '// line %s' (line %d), .loc %s\n", NR, want, at, cur; bad = 1 } want = "" }
END { exit bad }
