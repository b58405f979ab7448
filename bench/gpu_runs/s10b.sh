#!/usr/bin/env bash
# session 10, second call: this session's new GPU programs and every example through
# tilepx-run (log streamed to $OUT/new.log), then the Python binding on torch
set -u
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/new.log
make -j16 all build/tilepx-run >> $O/build.log 2>&1 || make -j16 >> $O/build.log 2>&1
ls build/tilepx-run >/dev/null || { tail -30 $O/build.log; exit 1; }
new=$(git diff --name-only --diff-filter=AM 8806c8c HEAD -- tests/gpu examples | grep '\.tile$')
files=(); for f in examples/*.tile $new; do grep -q '^# harness:' "$f" || files+=("$f"); done
timeout 300 build/tilepx-run $(printf '%s\n' "${files[@]}" | sort -u) >> $O/new.log 2>&1; echo "rc=$?" >> $O/new.log
for f in tests/gpu_fail/*.tile; do echo "$f: $(timeout 30 build/tilepx-run "$f" 2>&1 | grep -m1 '^FAIL') / want $(sed -n 's/^# gpu: //p' "$f")"; done >> $O/new.log
TILEPX_BUILD=build timeout 120 /opt/torch/.venv/bin/python tests/gpu/python_torch.py >> $O/new.log 2>&1; echo "py rc=$?" >> $O/new.log
grep -c '^PASS' $O/new.log; grep -v '^PASS' $O/new.log | tail -50
