#!/bin/sh
# The file graph of src/, measured from the objects: an edge A -> B when A.o
# uses a symbol (function or table) that B.o defines. Prints the edges, then
# checks them against the layer list below (docs/design.md, "Layers"): a
# file may use files of its own layer or lower ones, never a higher one, and
# no files form a circle. Exit 1 on an upward edge or a circle.
#   tools/layers.sh [BUILD]        BUILD defaults to build
#   tools/layers.sh BUILD --edges  only print the edges
B=${1:-build}
obj=$B/obj
[ -d "$obj" ] || { echo "layers.sh: no $obj (build first)" >&2; exit 2; }

# bottom first; a file not listed is an error (so a new file gets a place)
LAYERS='
0 base/arena.c base/diag.c base/target.c base/stmt.c base/stmtmap.c gen/ptx_forms.c
1 layout/layout.c ptx/regclass.c ptx/builder.c base/kernel.c base/walk.c
2 layout/view.c layout/legal.c api/bind.c ptx/wgmma_desc.c ptx/lower.c ref/convert.c emit/abi.c layout/local_own.c ref/set.c ref/fmath.c
3 ref/ref.c
4 variants/partition.c variants/bulk.c variants/fallback.c variants/gmem_smem.c variants/ldgsts.c variants/ldstmatrix.c variants/reg.c variants/regpair.c variants/regmove.c variants/regshfl.c variants/tcgen05_ldst.c variants/tma.c
5 dispatch/dispatch.c
6 dispatch/select.c
7 front/lex.c front/parse_expr.c front/parse_decl.c front/parse_stmt.c front/parse_asm.c front/parse_set.c front/set_check.c front/set_plan.c front/parse.c front/check.c front/alloc.c front/region.c front/asm.c proof/hazard.c front/mbar_check.c proof/mbarrier.c front/wgmma.c proof/roles.c front/reduce.c
8 emit/mbar_emit.c emit/emit.c emit/set_emit.c emit/nvvm_select.c
9 api/explain.c
10 api/driver.c
11 api/api.c
12 api/launch.c api/gemm_choose.c
'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# every object's defined and undefined symbols, one nm run (main.c, the CLI, is above all)
objs=$(find "$obj" -name '*.o' ! -name 'tilepx_all.o' ! -name 'main.o' | sort)
nm -A $objs | awk -v pre="$obj/" -v D="$tmp/defs.all" -v U="$tmp/uses.all" '{
	f = $1; sub(/:.*/, "", f); sub(pre, "", f); sub(/\.o$/, ".c", f)
	if ($(NF - 1) == "U") print $NF, f > U
	else if ($(NF - 1) ~ /^[TDRBC]$/) print $NF, f > D
}'
: >>"$tmp/defs.all"; : >>"$tmp/uses.all"
edges=$(awk 'NR == FNR {def[$1] = $2; next} ($1 in def) && def[$1] != $2 {print $2, def[$1]}' \
	"$tmp/defs.all" "$tmp/uses.all" | sort -u)
if [ "$2" = "--edges" ]; then
	echo "$edges"
	exit 0
fi
echo "$LAYERS" | awk 'NF {for (i = 2; i <= NF; i++) print $i, $1}' >"$tmp/layer"
echo "$edges" | awk -v L="$tmp/layer" '
	BEGIN { while ((getline line < L) > 0) { split(line, a, " "); layer[a[1]] = a[2] } }
	NF == 2 {
		for (i = 1; i <= 2; i++)
			if (!($i in layer) && !seen[$i]++) { print "layers: " $i " has no layer (add it to tools/layers.sh)"; bad = 1 }
		if (($1 in layer) && ($2 in layer) && layer[$2] > layer[$1]) {
			print "layers: upward edge " $1 " (layer " layer[$1] ") -> " $2 " (layer " layer[$2] ")"; bad = 1
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
