#!/usr/bin/env bash
# bench/gemm_mock.sh (make bench-gemm-mock): bench/gemm_bench.c linked with
# bench/gemm_mock.c, which does the driver, cuBLAS and cuBLASLt calls on the
# host, so the bench's logic runs without a GPU: cuBLAS's transposes against
# the BLAS definition on non-square sizes (both B layouts, both dtype pairs),
# a fixed-size and a runtime-size tilepx kernel bound and checked, sizes a
# kernel cannot run skipped, and each check seen to fail on a wrong result;
# FP8 (e4m3 -> bf16) against cuBLASLt, whose FP8 rules the mock models
# (scale pointers and the amax included).
set -u
cd "$(dirname "$0")/.."
GB=${TILEPX_BUILD:-build}/gemm_bench_mock
pass=0 fail=0
# expect NAME RC PATTERN -- ARGS...: the exit status and a line matching PATTERN
expect() {
	local name=$1 rc=$2 pat=$3
	shift 4
	local out got
	out=$("$GB" "$@" 2>&1)
	got=$?
	if [ "$got" = "$rc" ] && grep -qE -- "$pat" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: exit $got (want $rc), want a line matching '$pat'; output:"
		echo "$out" | sed 's/^/  /'
	fi
}
for b in kn nk; do
	for dt in f16:f32 bf16:bf16 bf16:f32 f16:f16; do
		expect "transposes $b $dt" 0 "^check cublasLt: all 1683 elements equal the host GEMM bit for bit" -- \
			--data int --rounds 0 --b $b --dtype $dt 33 51 19
		expect "transposes $b $dt: gemmEx" 0 "^check cublasGemmEx: all 1683 elements equal the host GEMM bit for bit" -- \
			--data int --rounds 0 --b $b --dtype $dt 33 51 19
	done
done
expect "random data, host information" 0 "^check cublasLt: max \|C - gemmEx\| / max \|gemmEx\| = 0 " -- \
	--data random --seed 3 --rounds 0 --b nk 17 29 23

export GEMM_MOCK_KERNEL="256 256 256 0 16F 32F"
small=tests/gpu/gemm_small.tile
expect "fixed kernel, integers" 0 "^check tilepx: all 65536 elements equal cublasGemmEx's bit for bit" -- \
	--tile $small --data int --rounds 2 --warmup 1 256 256 256
expect "fixed kernel, timed" 0 "^BENCH 256x256x256 f16->f32 B\[K,N\] random: 2 rounds; tilepx .* tilepx / best cuBLAS = " -- \
	--tile $small --data random --rounds 2 --warmup 1 256 256 256
GEMM_MOCK_ACCUMULATE=1 expect "accumulating kernel, C zeroed" 0 "^check tilepx: all 65536 elements equal cublasGemmEx's bit for bit" -- \
	--tile $small --data int --rounds 2 --warmup 1 --zero-c 256 256 256
GEMM_MOCK_ACCUMULATE=1 expect "accumulating kernel, C not zeroed" 1 "^FAIL tilepx: " -- \
	--tile $small --data int --rounds 2 --warmup 1 256 256 256
expect "fixed kernel, other size" 0 "^SKIP tilepx gemm_small at 128x256x256: its sizes are fixed at 256x256x256" -- \
	--tile $small --rounds 0 128 256 256
expect "fixed kernel, other dtypes" 0 "^SKIP tilepx gemm_small .*the kernel computes f16 x f16 -> f32, not bf16 -> bf16" -- \
	--tile $small --rounds 0 --dtype bf16:bf16 256 256 256
# K = N: B's orientation is --b's; a kernel reading B the other way is caught
expect "fixed kernel, B ambiguous, wrong orientation caught" 1 "^FAIL tilepx: [0-9]+ of 65536 elements differ from the host GEMM" -- \
	--tile $small --data int --rounds 0 --b nk 256 256 256
GEMM_MOCK_KERNEL="256 256 256 1 16F 32F" expect "fixed kernel, B ambiguous, --b nk" 0 "^check tilepx: all 65536 elements equal the host GEMM" -- \
	--tile $small --data int --rounds 0 --b nk 256 256 256
expect "no such kernel" 0 "^SKIP tilepx: tests/gpu/gemm_small.tile: the program has no kernel 'nope'" -- \
	--tile $small --kernel nope --rounds 0 16 16 16
GEMM_MOCK_BUG=1 expect "one wrong element, integers" 1 "^FAIL tilepx: 1 of 65536 elements differ from the host GEMM" -- \
	--tile $small --data int --rounds 2 --warmup 1 256 256 256
GEMM_MOCK_BUG=1 expect "one wrong element, not timed" 1 "tilepx not timed" -- \
	--tile $small --data int --rounds 2 --warmup 1 256 256 256
GEMM_MOCK_BUG=1 expect "one wrong element, random" 1 "^FAIL tilepx: max \|C - gemmEx\| / max \|gemmEx\| = .* over the tolerance 1.0e-03" -- \
	--tile $small --data random --rounds 0 256 256 256
GEMM_MOCK_BUG=2 expect "an element not written, random" 1 "^FAIL tilepx: max \|C - gemmEx\| / max \|gemmEx\| = nan" -- \
	--tile $small --data random --rounds 0 256 256 256
GEMM_MOCK_BUG=2 expect "an element not written, integers" 1 "^FAIL tilepx: 1 of 65536 elements differ from cublasGemmEx's" -- \
	--tile $small --data int --host-max 0 --rounds 0 256 256 256

# runtime M, N, K: the scalars and the grid come from tilepx_launches_set
export GEMM_MOCK_KERNEL="72 136 40 1 16BF 16BF" GEMM_MOCK_SCALARS=1
rt=bench/gemm_mock_runtime.tile
expect "runtime kernel" 0 "^check tilepx: all 9792 elements equal the host GEMM bit for bit" -- \
	--tile $rt --data int --rounds 2 --warmup 1 72 136 40
expect "runtime kernel, a broken fact" 0 "^SKIP tilepx gemm_runtime_mock at 72x136x41: tilepx refuses the launch: .*K=41 breaks the fact 'K % 8 == 0'" -- \
	--tile $rt --rounds 0 72 136 41
expect "runtime kernel, B layout" 0 "^SKIP tilepx gemm_runtime_mock .*the kernel's B is \[N, K\], not \[K, N\]" -- \
	--tile $rt --rounds 0 --b kn 72 136 40
# the sm90 variants (issue 27): dtypes and B's orientation from their declarations, facts checked at
# launch (the mock's kernel takes its pointers first, so these kernels are not launched here)
expect "sm90 bf16 kernel: dtypes read" 0 "^tilepx: examples/gemm_sm90_bf16.tile, kernel gemm_sm90_bf16: bf16 x bf16 -> bf16, B \[N, K\]" -- \
	--tile examples/gemm_sm90_bf16.tile --rounds 0 --dtype f16:f32 72 136 40
expect "sm90 bf16 kernel: other dtypes skipped" 0 "^SKIP tilepx gemm_sm90_bf16 at 72x136x40: the kernel computes bf16 x bf16 -> bf16, not f16 -> f32" -- \
	--tile examples/gemm_sm90_bf16.tile --rounds 0 --dtype f16:f32 72 136 40
expect "sm90 N-major kernel: B [K, N] read" 0 "^SKIP tilepx gemm_sm90_bkn at 72x136x40: the kernel's B is \[K, N\], not \[N, K\]" -- \
	--tile examples/gemm_sm90_bkn.tile --rounds 0 --b nk 72 136 40
expect "sm90 N-major kernel: N % 8 fact" 0 "^SKIP tilepx gemm_sm90_bkn at 72x130x40: tilepx refuses the launch: .*N=130 breaks the fact 'N % 8 == 0'" -- \
	--tile examples/gemm_sm90_bkn.tile --rounds 0 --b kn 72 130 40
# FP8 (e4m3 x e4m3 -> bf16): cuBLASLt is the comparison (cublasGemmEx has none), TN only
unset GEMM_MOCK_SCALARS
expect "fp8: cuBLASLt TN against the host" 0 "^check cublasLt: all 1683 elements equal the host GEMM bit for bit" -- \
	--data int --rounds 0 --b nk --dtype e4m3:bf16 33 51 32
expect "fp8: no cublasGemmEx" 0 "^SKIP cublasGemmEx: no FP8 inputs; cuBLASLt is the comparison \(fast accumulation on\)" -- \
	--data int --rounds 0 --b nk --dtype e4m3:bf16 --fp8-fast-accum 1 33 51 32
expect "fp8: B [K, N] is not TN" 0 "^SKIP cublasLt: its FP8 GEMMs are TN only" -- \
	--data int --rounds 0 --b kn --dtype e4m3:bf16 33 51 32
expect "fp8: an ld cuBLASLt refuses" 1 "^FAIL cublasLt: the heuristic returned no usable algorithm" -- \
	--data int --rounds 0 --b nk --dtype e4m3:bf16 33 51 40
expect "fp8: integers past the FP8 accumulator" 0 "^SKIP 64x64x4096: K > 2048" -- \
	--data int --rounds 0 --b nk --dtype e4m3:bf16 64 64 4096
export GEMM_MOCK_KERNEL="64 64 512 1 8F_E4M3 16BF"
f8=tests/gpu/wgmma_fp8_gemm.tile
expect "fp8 kernel, integers" 0 "^check tilepx: all 4096 elements equal cublasLt's bit for bit" -- \
	--tile $f8 --kernel wgmma_fp8_kloop --data int --rounds 2 --warmup 1 64 64 512
expect "fp8 kernel, random, timed" 0 "^BENCH 64x64x512 e4m3->bf16 B\[N,K\] random: 2 rounds; tilepx .* cublasLt .* tilepx / best cuBLAS = " -- \
	--tile $f8 --kernel wgmma_fp8_kloop --data random --rounds 2 --warmup 1 64 64 512
GEMM_MOCK_BUG=1 expect "fp8 kernel, one wrong element" 1 "^FAIL tilepx: 1 of 4096 elements differ from cublasLt's" -- \
	--tile $f8 --kernel wgmma_fp8_kloop --data int --host-max 0 --rounds 0 64 64 512
GEMM_MOCK_BUG=1 expect "fp8 kernel, one wrong element, random" 1 "^FAIL tilepx: max \|C - Lt\| / max \|Lt\| = .* over the tolerance 1.0e-02" -- \
	--tile $f8 --kernel wgmma_fp8_kloop --data random --rounds 0 --tol 1e-2 64 64 512
expect "sm90 fp8 kernel: dtypes read" 0 "^tilepx: bench/gemm_sm90_walk_fp8.tile, kernel gemm_sm90_walk_fp8: e4m3 x e4m3 -> bf16, B \[N, K\]" -- \
	--tile bench/gemm_sm90_walk_fp8.tile --rounds 0 72 136 48
# (cuBLASLt refuses K = 40 too: its FP8 leading dimensions are multiples of 16)
expect "sm90 fp8 kernel: K % 16 fact" 1 "^SKIP tilepx gemm_sm90_walk_fp8 at 72x136x40: tilepx refuses the launch: .*K=40 breaks the fact 'K % 16 == 0'" -- \
	--tile bench/gemm_sm90_walk_fp8.tile --rounds 0 --set P=2 --set Q=1 72 136 40
# --auto (issue 37): tilepx_gemm_choose picks the kernel and window from the size and the mock's 132 SMs,
# and the bench launches it through the launch layer (P, Q bound and checked against the kernel's facts)
GEMM_MOCK_KERNEL="300 300 136 1 16F 32F" expect "auto: the pick" 0 "^auto: 300x300x136 f16->f32 on 132 SMs: bench/gemm_sm90_linear_128x64.tile P=15; .*next gemm_sm90_walk_128x128 \(128 x 128\): 9 tiles, window P=6 Q=3" -- \
	--auto --data int --rounds 0 300 300 136
GEMM_MOCK_KERNEL="300 300 136 1 16F 32F" expect "auto: launched and checked" 0 "^check tilepx: all 90000 elements equal the host GEMM bit for bit" -- \
	--auto --data int --rounds 0 300 300 136
GEMM_MOCK_KERNEL="300 300 136 1 16F 32F" expect "auto: a window given" 0 "^check tilepx: all 90000 elements equal the host GEMM bit for bit" -- \
	--auto --set P=2 --set Q=1 --data int --rounds 0 300 300 136
GEMM_MOCK_KERNEL="520 520 136 1 16BF 16BF" expect "auto: bf16" 0 "^auto: 520x520x136 bf16->bf16 on 132 SMs: bench/gemm_sm90_linear_bf16_128x64.tile P=45; " -- \
	--auto --dtype bf16:bf16 --data int --rounds 0 520 520 136
# a linear tile walk (gemm_sm90_linear_256x256, the 512 x 128 walk's tile counts with TMA stores, first in the
# table; at K = 8 the 128 x 64 CTA tiles would win on their shorter epilogue): P only, no Q
GEMM_MOCK_KERNEL="2048 2048 64 1 16F 32F" expect "auto: linear walk" 0 "^auto: 2048x2048x64 f16->f32 on 132 SMs: bench/gemm_sm90_linear_256x256.tile P=128; .*linear walk on P=128" -- \
	--auto --data int --rounds 0 2048 2048 64
GEMM_MOCK_KERNEL="2048 2048 64 1 16F 32F" expect "auto: linear walk launched and checked" 0 "^check tilepx: all 4194304 elements equal cublasGemmEx.s bit for bit" -- \
	--auto --data int --rounds 0 2048 2048 64
# the 128 x 256 linear walk: one CTA per tile, no cluster, P only (at K = 8 the 128 x 64 CTA tiles win)
GEMM_MOCK_KERNEL="384 10240 136 1 16F 32F" expect "auto: linear walk without a cluster" 0 "^auto: 384x10240x136 f16->f32 on 132 SMs: bench/gemm_sm90_linear_128x256.tile P=120; " -- \
	--auto --data int --rounds 0 384 10240 136
GEMM_MOCK_KERNEL="384 10240 136 1 16F 32F" expect "auto: linear walk without a cluster, checked" 0 "^check tilepx: all 3932160 elements equal" -- \
	--auto --data int --rounds 0 384 10240 136
expect "auto: no kernel for K" 2 "^gemm_bench: --auto: K is not a multiple" -- --auto --rounds 0 300 300 130
expect "auto: not with --tile" 2 "^usage: gemm_bench" -- --auto --tile x.tile 300 300 136
expect "usage" 2 "^usage: gemm_bench" -- 72 136
expect "usage: an e4m3 output" 2 "bad argument 'e4m3:e4m3'" -- --dtype e4m3:e4m3 72 136 40
# fused epilogues (--epilogue): cuBLASLt's bias/ReLU/GELU epilogues and alpha/beta against the host
for e in bias relu_bias; do
	expect "epilogue $e, integers" 0 "^check cublasLt: all 1683 elements equal the host GEMM bit for bit" -- \
		--epilogue $e --dtype bf16:bf16 --b nk --data int --rounds 0 33 51 19
done
expect "epilogue gelu_bias: within the tolerance of the host" 0 "^check cublasLt: max \|C - host\| = .* 0 of 1683 over it" -- \
	--epilogue gelu_bias --dtype bf16:bf16 --b kn --data int --rounds 0 33 51 19
expect "epilogue silu_bias: against the host" 0 "^check cublasLt: not compared" -- \
	--epilogue silu_bias --dtype bf16:bf16 --b nk --data int --rounds 0 33 51 19
expect "epilogue gelu_bias: no gemmEx" 0 "^SKIP cublasGemmEx: no bias epilogue" -- \
	--epilogue gelu_bias --dtype bf16:bf16 --rounds 1 --warmup 0 33 51 19
expect "epilogue alpha_beta, integers, gemmEx" 0 "^check cublasGemmEx: all 1683 elements equal the host GEMM bit for bit" -- \
	--epilogue alpha_beta --alpha 0.5 --beta 2 --dtype f16:f32 --b nk --data int --rounds 0 33 51 19
expect "epilogue alpha_beta, random" 0 "^check cublasLt: max \|C - gemmEx\| = 0 .* 0 of 1683 over it" -- \
	--epilogue alpha_beta --dtype f16:f32 --b nk --data random --rounds 0 33 51 19
expect "epilogue alpha_beta needs an f32 C" 1 "^FAIL --epilogue alpha_beta needs 16-bit inputs and an f32 C" -- \
	--epilogue alpha_beta --dtype bf16:bf16 --rounds 0 33 51 19
expect "epilogue: a bad name" 2 "bad argument 'gelu'" -- --epilogue gelu 33 51 19
# the epilogue kernels bind (bias pointer, alpha and beta as float --set values); the mock then
# refuses the launch (no GEMM_MOCK_KERNEL: its stand-in kernel reads only A, B, C)
for k in bf16_bias_gelu:gelu_bias:bf16:bf16 bf16_bias_silu:silu_bias:bf16:bf16 alpha_beta:alpha_beta:f16:f32; do
	IFS=: read -r f e _ <<<"$k"
	GEMM_MOCK_KERNEL= expect "epilogue kernel $f binds" 3 "^FAIL tilepx gemm_sm90_walk_$f: launch: mock error" -- \
		--tile bench/gemm_sm90_walk_$f.tile --epilogue $e --rounds 0 --set P=2 --set Q=1 300 304 136
done
# FP8 with per-tensor scales and the output's amax (--epilogue scale_amax): cuBLASLt's scale and
# amax pointers against the host, and the FP8 training kernel binds (scale_a, scale_b, AMAX)
expect "epilogue scale_amax: no amax with a bf16 D" 0 "^SKIP cublasLt with A/B_SCALE_POINTER and AMAX_D_POINTER: no algorithm for a bf16 D \(status 7\); next: A/B_SCALE_POINTER" -- \
	--epilogue scale_amax --dtype e4m3:bf16 --b nk --data int --rounds 0 33 48 32
expect "epilogue scale_amax, integers" 0 "^check max \|cublasLt's C\|: amax 80, the host's 80: bit for bit" -- \
	--epilogue scale_amax --dtype e4m3:bf16 --b nk --data int --rounds 0 33 48 32
expect "epilogue scale_amax, random: Lt's amax from its rounded C" 0 "^check max \|cublasLt's C\|: amax .* within 2\^-7 relative" -- \
	--epilogue scale_amax --dtype e4m3:bf16 --b nk --data random --rounds 0 33 48 32
GEMM_MOCK_NO_SCALES=1 expect "epilogue scale_amax: no scale pointers either" 0 "^check cublasLt: all 1584 elements equal the host GEMM bit for bit" -- \
	--epilogue scale_amax --dtype e4m3:bf16 --b nk --data int --rounds 0 33 48 32
GEMM_MOCK_NO_SCALES=1 expect "epilogue scale_amax: alpha instead" 0 "next: alpha = scale_a scale_b" -- \
	--epilogue scale_amax --dtype e4m3:bf16 --b nk --data int --rounds 0 33 48 32
expect "epilogue scale_amax needs e4m3 inputs" 1 "^FAIL --epilogue scale_amax needs e4m3 inputs and a bf16 C" -- \
	--epilogue scale_amax --dtype bf16:bf16 --rounds 0 33 48 32
GEMM_MOCK_KERNEL= expect "epilogue kernel fp8_scaled binds" 3 "^FAIL tilepx gemm_sm90_walk_fp8_scaled: launch: mock error" -- \
	--tile bench/gemm_sm90_walk_fp8_scaled.tile --epilogue scale_amax --rounds 0 --set P=2 --set Q=1 300 304 272
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
