#!/usr/bin/env bash
# bench/ragged.sh: the cost of ragged-edge guards, on a GPU machine, in one
# run. Each kernel is checked byte for byte (guard bytes included), then
# timed over ITERS launches by tilepx-run --bench:
#   the cp.async stream: static (examples/stream_256mib.tile), and with a
#     runtime row count (bench/ragged/stream_ragged.tile) at M = 2^22
#     (divisible) and M = 2^22 - 1 (ragged);
#   the 2-D copy through shared memory: static 16384 x 8192
#     (bench/ragged/copy2d_static.tile), and examples/ragged_copy_2d.tile at
#     16384 x 8192 and 16383 x 8184, and the unguarded control with the
#     16368-byte pitch of K = 8184 (bench/ragged/copy2d_pitch.tile).
# Usage: bash bench/ragged.sh [ITERS]
set -u
cd "$(dirname "$0")/.."
B=${TILEPX_BUILD:-build}
IT=${1:-20}
make -j16 all "$B/tilepx-run" >/dev/null || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
run() { echo "-- $*"; "$B/tilepx-run" --bench "$IT" "$@"; }
for rep in 1 2; do
	echo "== round $rep: cp.async stream, 256 MiB in + 256 MiB out"
	run examples/stream_256mib.tile
	run --set M=4194304 bench/ragged/stream_ragged.tile
	run --set M=4194303 bench/ragged/stream_ragged.tile
	echo "== round $rep: 2-D copy through shared memory, 64x64 bf16 tiles"
	run bench/ragged/copy2d_static.tile
	run bench/ragged/copy2d_pitch.tile
	run --set M=16384 --set K=8192 examples/ragged_copy_2d.tile
	run --set M=16383 --set K=8184 examples/ragged_copy_2d.tile
done
