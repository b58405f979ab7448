#!/bin/bash
# Writes tests/bad/showcase_attn_*.tile: one-line mutations of the first kernel of
# examples/attention_fwd_sm90.tile (attention_fwd_hd128: two K/V rings, the ping-pong, the
# intra-warpgroup overlap, O staged in Q's buffer; docs/showcase_attention.md, "What tilepx catches"), found by their
# content in the consumers' main loop, each with the first line of tilepx check's error as its
# "# expect:" line. Run from the repository root after bench/gen_attention.py.
E=examples/attention_fwd_sm90.tile
D=$(mktemp -d)
LOOP=$(grep -n -m1 -F "  repeat cdiv(S, 192) - 1 as k running g {           # blocks 1" $E | cut -d: -f1)
ln() { awk -v from="$LOOP" -v pat="$1" 'NR > from && index($0, pat) { print NR; exit }' $E; }
first() { grep -n -m1 -F "$1" $E | cut -d: -f1; }
W1=$(ln "    wgmma.wait 1")
PEEL=$(first "  repeat 1 as p running g {                # block 0")
P0=$(awk -v from="$PEEL" 'NR > from && index($0, "    wgmma.wait 0") { print NR; exit }' $E)  # the peeled block's S
W0=$(ln "    wgmma.wait 0")
RELK=$(ln "    mbarrier.arrive emptyk[g % 2] per warpgroup")
RELV=$(ln "    mbarrier.arrive emptyv[(g + 1) % 2] per warpgroup")
FENPV=$(ln "    wgmma.fence")
FENPV=$(awk -v from="$FENPV" 'NR > from && index($0, "    wgmma.fence") { print NR; exit }' $E) # P V's, the second
MASK=$(ln "    set Sc[i, c] = select(")
TURN=$(ln "    bar.arrive 3 - wgid, 256")
WFULL=$(ln "    mbarrier.wait fullk[g % 2]")
EMP=$(first "  mbarrier.init emptyk[s], 2")
MDECL=$(first "local  M  f32")
OSTAGE=$(first "    warpgroup copy Qs[0:64, :], Oc")   # warpgroup 1's O staged in its rows of Qs
mut() { local n=$1; shift; "$@" > "$D"/$n.tile; }
below() { awk -v a=$1 -v b=$2 'NR==a{hold=$0; next} NR==b{print; print hold; next} {print}' $E; } # line a after line b
above() { awk -v a=$1 -v b=$2 '{ l[NR] = $0 } END { for (i = 1; i <= NR; i++) { if (i == a) print l[b]; if (i != b) print l[i] } }' $E; } # line b before line a

mut release_k_before_wait above $P0 $((P0 + 1))
mut release_v_before_wait above $W0 $RELV
mut no_fence_pv sed "${FENPV}s/.*/    # wgmma.fence (deleted)/" $E
mut softmax_in_flight below $W1 $MASK
mut turn_same_barrier sed "${TURN}s/3 - wgid/wgid/" $E
mut emptyk_count_1 sed "${EMP}s/emptyk\[s\], 2 /emptyk[s], 1 /" $E
mut m_no_replica sed "${MDECL}s/ + R\[4 : 1@laneid\]//" $E
mut wait_wrong_stage sed "${WFULL}s/fullk\[g % 2\]/fullk[(g + 1) % 2]/" $E
mut o_in_other_rows sed "${OSTAGE}s/Qs\[0:64, :\]/Qs[64:128, :]/" $E
mut no_proxy_fence sed "$((OSTAGE + 1))s/.*/    # fence.proxy_async (deleted)/" $E
mut no_store_barrier sed "$((OSTAGE + 2))s/.*/    # bar.sync (deleted)/" $E
for n in release_k_before_wait release_v_before_wait no_fence_pv softmax_in_flight turn_same_barrier emptyk_count_1 \
	m_no_replica wait_wrong_stage o_in_other_rows no_proxy_fence no_store_barrier; do
	f="$D"/$n.tile
	msg=$(build/tilepx check $f 2>&1 | head -1 | sed "s#^$f:##")
	{ echo "# expect: $msg"; tail -n +2 $f; } > tests/bad/showcase_attn_$n.tile
	echo "$n: $msg"
done
rm -rf "$D"
