#!/bin/sh
# scripts/nvcc.sh — the one rule for finding the CUDA compiler, shared by the Makefile and
# the tests: $NVCC if set, else /usr/local/cuda/bin/nvcc, else nvcc on PATH. Prints its
# path (nothing, exit 1, where there is none). With --include it prints instead the CUDA
# include directory that nvcc itself uses (from `nvcc --dryrun`'s INCLUDES line), which
# host compilers (gcc) need to read cuda_runtime_api.h: wrapper scripts such as a
# /usr/local/bin/nvcc that calls the real one make the path of nvcc a poor guide to it.
nvcc=${NVCC:-}
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null)
[ -n "$nvcc" ] && [ -x "$nvcc" ] || exit 1
if [ "${1:-}" = --include ]; then
  inc=$("$nvcc" --dryrun -x cu -c /dev/null -o /dev/null 2>&1 |
    sed -n 's/^#\$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -n 1)
  [ -n "$inc" ] && [ -e "$inc/cuda_runtime_api.h" ] || exit 1
  echo "$inc"
else
  echo "$nvcc"
fi
