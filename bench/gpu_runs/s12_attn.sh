#!/usr/bin/env bash
# session 12, branch attn (issue 36): the attention candidates on the GPU.
# 1. every tests/gpu/attention_*_small.tile and the example through tilepx-run --attention
#    (O and LSE against attention in double, and the CPU reference);
# 2. the SASS of four hd128 kernels (plain, _pp, _ov, _pp_ov_st) into $OUT, with an opcode
#    count, to see what ptxas made of the loops (no disassembler on the CPU machine);
# 3. bench/attention.py: the default kernels against _pp, _ov (K and V on rings of their own),
#    _pp_ov, _causal_tm, _causal_pp_tm and the _st (TMA store) ones, at the default shapes and at
#    FA3's (hd128 BLOCK_N 176, hd256 80, hd64 192) and with 3 stages (_s3), timed (--no-check: every one of them ran in
#    ptxemu against the CPU reference and attention in double), then
# 4. the kernels this branch changed or added (_ov, _tm, _st) checked by bench/attention.py
#    against torch's f32 reference.
# 5. (the second call) after the mask fix (set's integer masks: one setp per register against a
#    part computed once per statement, where each register summed its own): the defaults and the
#    candidates the first call found best, and the causal overlap kernels with the diagonal block
#    first (_ov_tm), over the issue's whole grid of sequence lengths:
#    bash bench/gpu_runs/s12_attn.sh 5 512,1024,2048,4096,8192,16384
# Usage: bash bench/gpu_runs/s12_attn.sh [PARTS [SEQS]]   PARTS: some of 1,2,3,4 (default 2,3: the
# bench, then the SASS; 4 and 1 each take a call of their own), SEQS default 1024,4096,16384.
set -u
mkdir -p "${OUT:-/tmp}"
exec > >(tee -a "${OUT:-/tmp}/attn.log") 2>&1
PARTS=${1:-2,3}
ONLY='attention_fwd_hd(64|128|256)(_causal)?(_m(128|192)_n(176|80|192|128)(_s3)?)?(_pp)?(_ov)?(_tm)?(_st)?$'
CHANGED='attention_fwd_hd(64|128|256)(_causal)?(_m(128|192)_n(176|80|192|128)(_s3)?)?(_pp)?(_ov|_tm|_st|_ov_st|_tm_st|_ov_tm)$|_s3_pp$'
SEQS=${2:-1024,4096,16384}
make -j16 build/tilepx build/tilepx-run build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
part() { case ",$PARTS," in *",$1,"*) return 0 ;; esac; return 1; }
ROUND2='attention_fwd_hd(64|128|256)(_causal)?(_tm|_ov_tm|_pp_ov_tm|_m192_n128(_ov)?|_m128_n192(_pp)?_ov|_m128_n176(_pp)?_ov|_m128_n80(_pp)?_ov|_ov|_pp_ov)?$'
if part 5; then
echo "== 5. bench/attention.py, the second call: the default kernels (new mask code) and the _ov_tm ones checked, then all timed"
timeout 150 bash bench/attention.sh --only 'attention_fwd_hd(64|128|256)(_causal)?(_ov_tm|_pp_ov_tm)?$' --check-only | grep -v "UserWarning\|scaled_dot_product"
timeout 420 bash bench/attention.sh --only "$ROUND2" --seq "$SEQS" --rounds 30 --no-check
fi
if part 3; then
echo "== 3. bench/attention.py"
timeout 480 bash bench/attention.sh --only "$ONLY" --seq "$SEQS" --rounds 30 --no-check
fi
if part 4; then
echo "== 4. bench/attention.py --check-only"
timeout 540 bash bench/attention.sh --only "$CHANGED" --check-only | grep -v "UserWarning\|scaled_dot_product"
fi
if part 1; then
echo "== 1. tilepx-run --attention"
fails=0
for f in examples/attention_fwd_sm90.tile tests/gpu/attention_*_small.tile; do
  timeout 120 build/tilepx-run --attention "$f" > "$OUT/run.txt" 2>&1 || { fails=$((fails + 1)); echo "FAIL $f"; tail -5 "$OUT/run.txt"; }
done
echo "tilepx-run --attention: $fails failed"
fi
if part 2; then
echo "== 2. SASS"
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null)
for f in examples/attention_fwd_sm90.tile tests/gpu/attention_hd128_pp_small.tile \
         tests/gpu/attention_hd128_ov_small.tile tests/gpu/attention_hd128_pp_ov_st_small.tile; do
  b=$(basename "$f" .tile)
  build/tilepx emit "$f" -o "$OUT/$b.ptx" && "$PTXAS" -arch=sm_90a -v "$OUT/$b.ptx" -o "$OUT/$b.cubin" 2>&1 | grep -i "regist\|spill"
  [ -n "$CUOBJ" ] || { echo "no cuobjdump"; continue; }
  "$CUOBJ" -sass "$OUT/$b.cubin" > "$OUT/$b.sass"
  echo "-- $b: $(grep -c '^ */\*[0-9a-f]*\*/' "$OUT/$b.sass") instructions; the commonest opcodes:"
  sed -n 's/^ *\/\*[0-9a-f]*\*\/ *\(@!*U*P[0-9T]* *\)*\([A-Z0-9_]*\)[. ].*/\2/p' "$OUT/$b.sass" | sort | uniq -c | sort -rn | head -25 | tr '\n' ' '
  echo
  gzip -f "$OUT/$b.sass"; rm -f "$OUT/$b.cubin" "$OUT/$b.ptx"
done
fi
