#!/usr/bin/env bash
# session 12, first GPU call: the ncu source view by .tile line (issue 39), then the
# session-11 benchmarks that did not fit (epilogues vs cuBLASLt, split-K, FP8 scaled, rows).
set -u
mkdir -p "${OUT:-/tmp}"
exec > >(tee -a "${OUT:-/tmp}/ncu.log") 2>&1
make -j16 build/tilepx build/tilepx-run build/gemm_bench build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
echo "ncu: $NCU"; $NCU --version | tail -1
for f in examples/gemm_sm90.tile examples/attention_fwd_sm90.tile; do
  b=$(basename $f .tile)
  echo "== $f"
  timeout 150 $NCU --set full --import-source yes -k regex:. -c 1 -f -o "$OUT/$b" build/tilepx-run --lineinfo $f 2>&1 | tail -4
  timeout 60 $NCU -i "$OUT/$b.ncu-rep" --page source --csv --print-source cuda 2>&1 | head -60 > "$OUT/$b.source.csv"
  echo "source view lines: $(wc -l < $OUT/$b.source.csv)"; head -25 "$OUT/$b.source.csv" | cut -c1-220
done
bash bench/gpu_runs/s11_bench.sh
