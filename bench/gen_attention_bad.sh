#!/bin/bash
# Writes tests/bad/showcase_attn_*.tile: one-line mutations of the first kernel of
# examples/attention_fwd_sm90.tile (docs/showcase_attention.md, "What tilepx catches"),
# found by their content, each with the first line of tilepx check's error as its
# "# expect:" line. Run from the repository root after bench/gen_attention.py.
E=examples/attention_fwd_sm90.tile
D=$(mktemp -d)
ln() { grep -n -m1 -F "$1" $E | cut -d: -f1; }
W0=$(ln "    wgmma.wait 0"); # first S wait (line after commit in the loop)
REL=$(ln "    mbarrier.arrive empty[j % 2] per warpgroup")
FEN=$(ln "    wgmma.fence                              # after")
RMAX=$(ln "    reduce.max MB, Sc")
EMP=$(ln "  mbarrier.init empty[s], 2")
MDECL=$(ln "local  M  f32")
WFULL=$(ln "    mbarrier.wait full[j % 2]")
mut() { local n=$1; shift; "$@" > "$D"/$n.tile; }

mut release_before_wait awk -v a=$((REL-1)) -v b=$REL 'NR==a{hold=$0; next} NR==b{print; print hold; next} {print}' $E
mut no_fence_pv sed "${FEN}s/.*/    # wgmma.fence (deleted)/" $E
mut max_in_flight awk -v a=$W0 -v b=$RMAX 'NR==a{hold=$0; next} NR==b{print; print hold; next} {print}' $E
mut empty_count_1 sed "${EMP}s/empty\[s\], 2 /empty[s], 1 /" $E
mut m_no_replica sed "${MDECL}s/ + R\[4 : 1@laneid\]//" $E
mut wait_wrong_stage sed "${WFULL}s/full\[j % 2\]/full[(j + 1) % 2]/" $E
for n in release_before_wait no_fence_pv max_in_flight empty_count_1 m_no_replica wait_wrong_stage; do
	f="$D"/$n.tile
	msg=$(build/tilepx check $f 2>&1 | head -1 | sed "s#^$f:##")
	{ echo "# expect: $msg"; tail -n +2 $f; } > tests/bad/showcase_attn_$n.tile
	echo "$n: $msg"

done
rm -rf "$D"
