#!/bin/sh
# The file graph of src/ and emu/, measured from the objects: an edge A -> B
# when A.o uses a symbol (function or table) that B.o defines. Each folder
# is a layer (docs/design.md, "Layers"): a file may use files of its own
# folder or of a lower one, never of a higher one, and no files form a
# circle (inside a folder either). Exit 1 on an upward edge, a circle or a
# file outside the folders below.
#   tools/layers.sh [BUILD]            BUILD defaults to build
#   tools/layers.sh BUILD --edges      only print the file edges
#   tools/layers.sh BUILD --folders    only print the folder edges, with counts
B=${1:-build}
[ -d "$B/obj" ] || { echo "layers.sh: no $B/obj (build first)" >&2; exit 2; }

# bottom first, one folder a layer; gen/ is the generated instruction forms
# (build/gen/ptx_forms.c), emu/ the emulator and the runners' core above the library
FOLDERS='gen base ref layout ptx variants dispatch proof front emit api emu'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# every object's defined and undefined symbols, one nm run (main.c, the CLI, is above all)
objs=$(find "$B/obj" "$B/emu" -name '*.o' ! -name 'tilepx_all.o' ! -path "$B/obj/main.o" 2>/dev/null | sort)
nm -A $objs | awk -v B="$B/" -v D="$tmp/defs.all" -v U="$tmp/uses.all" '{
	f = $1; sub(/:.*/, "", f); sub("^" B "(obj/)?", "", f); sub(/\.o$/, ".c", f)
	if ($(NF - 1) == "U") print $NF, f > U
	else if ($(NF - 1) ~ /^[TDRBC]$/) print $NF, f > D
}'
: >>"$tmp/defs.all"; : >>"$tmp/uses.all"
edges=$(awk 'NR == FNR {def[$1] = $2; next} ($1 in def) && def[$1] != $2 {print $2, def[$1]}' \
	"$tmp/defs.all" "$tmp/uses.all" | sort -u)
folder_of() { awk '{a = $1; b = $2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b); print a, b}'; }
case "$2" in
--edges) echo "$edges"; exit 0 ;;
--folders) echo "$edges" | folder_of | awk '$1 != $2' | sort | uniq -c; exit 0 ;;
esac
echo "$edges" | awk -v F="$FOLDERS" '
	BEGIN { n = split(F, f, " "); for (i = 1; i <= n; i++) layer[f[i]] = i }
	function folder(p) { if (p !~ /\//) return ""; sub(/\/[^\/]*$/, "", p); return p }
	NF == 2 {
		for (i = 1; i <= 2; i++)
			if (!(folder($i) in layer) && !seen[$i]++) {
				print "layers: " $i " is in no layer folder (move it into one of: " F ")"; bad = 1
			}
		a = folder($1); b = folder($2)
		if ((a in layer) && (b in layer) && layer[b] > layer[a]) {
			print "layers: upward edge " $1 " (" a "/) -> " $2 " (" b "/)"; bad = 1
		}
		n++; from[n] = $1; to[n] = $2; node[$1]; node[$2]
	}
	END {
		# circles: drop files with no edge left to another kept file, until none
		# goes; the files left are on a circle or lead to one
		do {
			changed = 0
			for (v in node) {
				out = 0
				for (e = 1; e <= n; e++) if (from[e] == v && (to[e] in node)) { out = 1; break }
				if (!out) { delete node[v]; changed = 1 }
			}
		} while (changed)
		left = ""
		for (v in node) left = left " " v
		if (left != "") { print "layers: a circle among:" left; bad = 1 }
		exit bad
	}'
