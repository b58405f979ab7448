#!/bin/bash
# make bench-codegen: every NAME.tile here and its CUDA C++ twin NAME.cu are
# compiled for the .tile's target (tilepx emit + ptxas; nvcc -ptx + the same
# ptxas), and the table shows registers, spill bytes and SASS instructions
# (cuobjdump -sass when present, else build/sasscount over the cubin's .text
# sections) per pair, with totals. "ops" checks that both PTX files use the
# same set of memory/matrix instruction forms.
set -u
B=${TILEPX_BUILD:-build}
CUDA=${CUDA:-/usr/local/cuda}
PTXAS=${PTXAS:-$CUDA/bin/ptxas}
NVCC=${NVCC:-$CUDA/bin/nvcc}
DIR=$(cd "$(dirname "$0")" && pwd)
W=$B/bench-codegen
mkdir -p "$W"
CUOBJDUMP=$(command -v cuobjdump || { test -x "$CUDA/bin/cuobjdump" && echo "$CUDA/bin/cuobjdump"; } || true)

sass_count() { # cubin -> instruction count
	if [ -n "$CUOBJDUMP" ]; then
		"$CUOBJDUMP" -sass "$1" | grep -cE '^\s+/\*[0-9a-f]{4}\*/\s+[^ ]' # one line per instruction
	else
		"$B/sasscount" "$1" | awk '$1 == "total" { print $2 }'
	fi
}
ptxas_info() { # log -> "regs spill_bytes"
	awk '/Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^registers/) r += $i }
	     /spill stores/ { for (i = 1; i <= NF; i++) if ($(i+1) == "bytes" && ($(i+2) ~ /^spill/)) s += $i }
	     END { print r + 0, s + 0 }' "$1"
}
ops() { # the set of memory / matrix instruction forms of a PTX file
	grep -oE '\b(ld|st)\.(global|shared)(\.[a-z0-9]+)*|\b(ldmatrix|stmatrix|cp\.async|tcgen05)\.[a-z0-9:._]+' "$1" |
		sed -e 's/ld.shared.b32/ld.shared.b32/' | sort -u | tr '\n' ' '
}

# OCCUPANCY=1 (a GPU machine): CTAs per SM of both kernels from the driver's
# occupancy calculator, as extra columns cta_t / cta_nv
OCC=""
if [ -n "${OCCUPANCY:-}" ]; then
	OCC=$W/occupancy
	"${CC:-cc}" -O2 -I"$CUDA/include" "$DIR/occupancy.c" -L"$CUDA/lib64/stubs" -lcuda -o "$OCC" || exit 1
fi
fail=0
printf '%-22s %-8s %5s %5s %5s %6s %6s %6s  %s\n' pair target r_tpx r_nv spill sass_t sass_nv d_sass ops
tr=0 tn=0 ts=0 st=0 sn=0 worse=0
for tile in "$DIR"/${ONLY:-*}.tile; do
	n=$(basename "$tile" .tile)
	tgt=$(awk '$1 == "target" { print $2; exit }' "$tile")
	"$B/tilepx" emit "$tile" -o "$W/$n.tpx.ptx" 2>"$W/$n.emit.log" || { cat "$W/$n.emit.log"; echo "$n: tilepx emit failed"; fail=1; continue; }
	"$NVCC" -arch="$tgt" -std=c++17 -ptx "$DIR/$n.cu" -o "$W/$n.nv.ptx" || { echo "$n: nvcc failed"; fail=1; continue; }
	for s in tpx nv; do
		"$PTXAS" -v -arch="$tgt" "$W/$n.$s.ptx" -o "$W/$n.$s.cubin" >"$W/$n.$s.log" 2>&1 ||
			{ cat "$W/$n.$s.log"; echo "$n: ptxas failed ($s)"; fail=1; continue 2; }
	done
	read -r rt spt < <(ptxas_info "$W/$n.tpx.log")
	read -r rn spn < <(ptxas_info "$W/$n.nv.log")
	ct=$(sass_count "$W/$n.tpx.cubin")
	cn=$(sass_count "$W/$n.nv.cubin")
	same=same
	[ "$(ops "$W/$n.tpx.ptx" | sed 's/ld.global.u16 //')" = "$(ops "$W/$n.nv.ptx" | sed 's/ld.global.u16 //')" ] || same=DIFF
	[ "$same" = same ] || { echo "tilepx: $(ops "$W/$n.tpx.ptx")"; echo "nvcc:   $(ops "$W/$n.nv.ptx")"; }
	mark=""
	[ "$rt" -gt "$rn" ] && { mark=" regs>nvcc"; worse=$((worse + 1)); }
	if [ -n "$OCC" ]; then
		thr=$(awk '$1 == "threads" { print $2; exit }' "$tile")
		ot=$("$OCC" "$W/$n.tpx.cubin" "$n" "$thr" 2>/dev/null | awk '{ print $3 }')
		on=$("$OCC" "$W/$n.nv.cubin" "$n" "$thr" 2>/dev/null | awk '{ print $3 }')
		mark="$mark ctas/SM ${ot:-n/a}/${on:-n/a}"
		[ "${ot:-0}" -lt "${on:-0}" ] && { mark="$mark FEWER"; fail=1; }
	fi
	printf '%-22s %-8s %5d %5d %5d %6d %6d %+6d  %s%s\n' "$n" "$tgt" "$rt" "$rn" "$((spt + spn))" "$ct" "$cn" \
		"$((ct - cn))" "$same" "$mark"
	tr=$((tr + rt)) tn=$((tn + rn)) ts=$((ts + spt)) st=$((st + ct)) sn=$((sn + cn))
done
printf '%-22s %-8s %5d %5d %5d %6d %6d %+6d\n' TOTAL "" "$tr" "$tn" "$ts" "$st" "$sn" "$((st - sn))"
echo "pairs with more registers than nvcc: $worse; SASS counted with ${CUOBJDUMP:-build/sasscount}"
exit $fail
