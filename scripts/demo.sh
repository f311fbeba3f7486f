#!/usr/bin/env bash
# make demo — the main job end to end, on one machine with no meter attached: the real
# firmware on the simulated board, a simulated cluster whose node channels follow real MPI
# processes (docs/simulated-cluster.md), real Open MPI runs, the real collector, analysis,
# models, gnuplot and the HTML report. Everything lands in demo-out/ (DEMO_OUT):
#   pattern/  three ranks running busy/idle m-sequences: Pow_idle/Pow_work recovered vs the
#             configured levels, and the lag of power behind the phases (scripts/cluster-check.sh)
#   alltoall/ an MPI all-to-all between idle baselines: the switch channel
#   profile/  dgemm on N2 and on N3 at two sizes, and on both: mw pareto's profile (Khaleghzadeh et al. 2023)
#   sweep/    mw sweep of eeg-mofs over N_Spop = 1..6 and 8, v2 and v3, DEMO_REPS (3)
#             repetitions each with 1 s idle baselines: enough for Escobar et al.'s saw-tooth
#             over N_Spop (v2 high at 2 and 6, v3 at 3 and 5) and a Student-t interval per
#             configuration; resumable: running the demo again keeps finished runs
#   analysis.txt, fit.txt, fit.json, pareto.txt, cluster-check.txt, report/index.html
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=${DEMO_OUT:-demo-out}
reps=${DEMO_REPS:-3}
nspop=${DEMO_NSPOP:-1,2,3,4,5,6,8}
mw=$build/bin/mw
t_start=$(date +%s)
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader} # one machine: shared memory, no network
# ranks waiting in MPI yield the core to the computing ones (they still demand it: busy power)
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpirun=(mpirun --oversubscribe)
step() { printf '\n== [%s] %s (%d s so far)\n' "$1" "$2" $(($(date +%s) - t_start)); }
mkdir -p "$out"

step 1/7 "a load pattern on 3 simulated nodes (3 MPI ranks, 24 s): levels and lag"
pat=(--bit-ms 1000 --seconds 24 --threads 1)
"$mw" record -q --force -o "$out/pattern" --meter sim:cluster --idle 2 -- "${mpirun[@]}" \
  -np 1 "$build/bin/mwb-pattern" "${pat[@]}" --seed 1 : \
  -np 1 "$build/bin/mwb-pattern" "${pat[@]}" --seed 9 : \
  -np 1 "$build/bin/mwb-pattern" "${pat[@]}" --seed 77 >"$out/pattern.log" 2>&1

step 2/7 "MPI all-to-all between idle baselines: the switch channel"
"$mw" record -q --force -o "$out/alltoall" --meter sim:cluster --idle 3 -- "${mpirun[@]}" \
  -np 3 "$build/bin/mwb-alltoall" --bytes 4194304 --seconds 5 >"$out/alltoall.log" 2>&1
check_rc=0
scripts/cluster-check.sh "$mw" "$out/pattern" "$out/alltoall" | tee "$out/cluster-check.txt" ||
  check_rc=$?

step 3/7 "a workload split over two nodes (Khaleghzadeh et al. 2023): dgemm on N2, on N3, on both; mw pareto"
# Each run plays one node (the rank in the environment picks it) at a fixed size (--products);
# mw pareto reads the runs: per node the size, the time and the dynamic energy (its channel's
# energy above its idle baseline), and the together run for the additivity check.
prof=$out/profile.txt
dg=("$build/bin/mwb-dgemm" --n 256 --threads 1)
prof_runs=()
mkdir -p "$out/profile"
for node in N2:1 N3:2; do
  name=${node%:*} rank=${node#*:}
  for products in 600 1200; do
    run=$out/profile/$name-$products
    "$mw" record -q --force -o "$run" --meter sim:cluster --idle 1 -- \
      env OMPI_COMM_WORLD_RANK="$rank" "${dg[@]}" --products "$products" >"$run.log" 2>&1
    prof_runs+=("$run")
  done
done
run=$out/profile/together-600
"$mw" record -q --force -o "$run" --meter sim:cluster --idle 1 -- sh -c \
  'OMPI_COMM_WORLD_RANK=1 "$@" & OMPI_COMM_WORLD_RANK=2 "$@"; wait' sh "${dg[@]}" \
  --products 600 >"$run.log" 2>&1
prof_runs+=("$run")
"$mw" pareto "${prof_runs[@]}" --units products --n 2400 --total --profile-out "$prof" |
  tee "$out/pareto.txt" | head -16

step 4/7 "mw sweep: eeg-mofs, N_Spop in {$nspop}, v2 and v3, $reps repetitions"
"$mw" sweep -o "$out/sweep" --param "nspop=$nspop" --param version=v2,v3 --reps "$reps" \
  --meter sim:cluster --idle 1 -- "${mpirun[@]}" -np 3 "$build/bin/eeg-mofs" \
  --strategy '{version}' --subpops '{nspop}' --patterns 120 --features 900 --individuals 960 \
  --generations 30 --global-every 10 --local-every 5 --threads 1 --wait sleep -q >"$out/sweep.log"
cat "$out/sweep.log"

step 5/7 "mw analyze: energy, Pow_idle/Pow_work, phases of every run"
"$mw" analyze "$out/sweep" >"$out/analysis.txt"
sed -n '/^across runs/,$p' "$out/analysis.txt" | head -20

step 6/7 "mw fit: the runtime and energy model of Escobar et al. 2019 over the sweep"
# Two NRMSEs, both in the report (docs/models.md, "What the numbers mean"): predict mode
# takes each run's parameters from its own phases and powers (the model is not tuned to the
# times: a validation); fit mode fits the time parameters to all runs of a version.
"$mw" fit --model escobar "$out/sweep" >"$out/predict.txt"
"$mw" fit --model escobar "$out/sweep" --mode fit >"$out/fit.txt" 2>&1 || true
"$mw" fit --model escobar "$out/sweep" --json >"$out/fit.json"
echo "predict mode (each run's own parameters):"
sed -n '/^NRMSE/,/^$/p' "$out/predict.txt"
echo "fit mode (time parameters fitted per version):"
sed -n '/^NRMSE/,/^$/p' "$out/fit.txt"

step 7/7 "mw report: figures and tables in one HTML page"
# DVFS: this machine's cpufreq table if it has one, else a typical server CPU's gears
freqs=()
[ -r /sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies ] ||
  freqs=(--freqs 2.4,2.2,2.0,1.8,1.6,1.4,1.2)
"$mw" report "$out/sweep" "$out/pattern" "$out/alltoall" --profile "$prof" "${freqs[@]}" \
  -o "$out/report" >"$out/report.path"
printf '\ndemo: done in %d s. The report: %s\n' $(($(date +%s) - t_start)) "$(cat "$out/report.path")"
if [ "$check_rc" != 0 ]; then
  echo "demo: the simulated cluster's end-to-end check failed (see $out/cluster-check.txt)" >&2
  exit 1
fi
