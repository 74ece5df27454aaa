#!/bin/bash
# Measures the network and the trainer on the CPU and on a GPU (wgpu), at the
# training configs' network (192 x 3), at configs/gpu.toml's (256 x 6) and at a
# larger one (512 x 8), then runs `shax train` end to end for a short while on
# each backend. Needs a build with the GPU backend:
#
#   cargo build --release --features wgpu
#   scripts/bench-backends.sh [SHAX_BINARY] [OUT_DIR]
#
# Every figure lands in OUT_DIR (default bench-backends/) and on the terminal.
# About seven minutes. If wgpu finds no adapter, point Vulkan at the driver's
# ICD file (VK_DRIVER_FILES=/path/to/nvidia_icd.json) and run it again.
set -u
B=${1:-target/release/shax}
OUT=${2:-bench-backends}
SECS=${E2E_SECONDS:-75}
mkdir -p "$OUT"
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
printf 'hidden = 192\nblocks = 3\nvalue_hidden = 64\n' > "$models/m192x3.toml"
printf 'hidden = 256\nblocks = 6\nvalue_hidden = 128\n' > "$models/m256x6.toml"
printf 'hidden = 512\nblocks = 8\nvalue_hidden = 128\n' > "$models/m512x8.toml"

if ! timeout 120 "$B" bench nn --backend wgpu --batches 1 --seconds 0.2; then
  echo "wgpu did not run: is $B built with --features wgpu, and is there a Vulkan driver?" >&2
  exit 1
fi
for m in m192x3 m256x6 m512x8; do
  for be in wgpu cpu; do
    echo "== bench nn $m $be"
    timeout 120 "$B" bench nn --backend $be --model "$models/$m.toml" \
      --batches 1,64,256,1024,4096 --seconds 1.5 | tee "$OUT/nn-$m-$be.txt"
  done
done
for m in m192x3 m256x6 m512x8; do
  for be in wgpu cpu; do
    echo "== bench train $m $be"
    timeout 120 "$B" bench train --backend $be --model "$models/$m.toml" \
      --batches 256,1024,4096 --seconds 2 | tee "$OUT/train-$m-$be.txt"
  done
done
e2e() { # name, then the arguments of `shax train`
  local name=$1
  shift
  echo "== shax train $name, $SECS seconds"
  rm -rf "$OUT/run-$name"
  timeout $((SECS + 60)) "$B" train --run-dir "$OUT/run-$name" \
    --set run.hours="$(awk "BEGIN{print $SECS/3600}")" --set eval.every_checkpoints=0 \
    --set train.steps_per_checkpoint=100 "$@" > "$OUT/train-$name.log" 2>&1
  tail -1 "$OUT/train-$name.log"
}
e2e cpu-default --config configs/shax.toml
e2e wgpu-default --config configs/shax.toml --set 'backend="wgpu"'
e2e wgpu-256x6 --config configs/gpu.toml --set 'backend="wgpu"'
