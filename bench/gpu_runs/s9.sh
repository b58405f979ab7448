#!/usr/bin/env bash
# session 9: the full make gpu-test (first after the wgmma descriptor mask, last after the merges) (H100)
set -u
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu-full.log
timeout 560 make -j16 gpu-test >> $O/gpu-full.log 2>&1
echo "rc=$?" >> $O/gpu-full.log
grep -v '^PASS' $O/gpu-full.log | tail -40
