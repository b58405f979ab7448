#!/bin/sh
# Attention forward (issue 36) on the GPU machine: builds libtilepx.so, then
# bench/attention.py checks every attention kernel against an f32 reference
# and times it against cuDNN and torch's flash backend in one process
# (docs/benchmarks.md, "Attention"). Arguments go to attention.py, e.g.
#   bash bench/attention.sh --rounds 100
#   bash bench/attention.sh --check-only
set -e
cd "$(dirname "$0")/.."
make -j"$(nproc)" build/libtilepx.so >/dev/null
PY=${PY:-/opt/torch/.venv/bin/python}
exec "$PY" bench/attention.py "$@"
