#!/usr/bin/env bash
# `roofline batch --slurm` against a real single-node Slurm started here on
# localhost: munged, slurmctld and slurmd with a private configuration, ports,
# socket and state in a temporary folder (no cgroups, no accounting). Submits a
# small batch of lab 01 as a job array of two tasks, waits for it, merges the
# slices and checks the gradebook: the submission that does not compile is
# named compile_error with the compiler's message, the others no_gpu (the
# batch runs with --gpus none, so the outcome is the same with or without a GPU).
#
#   slurm_batch_test.sh ROOFLINE COURSE_ROOT BUILD_DIR
#
# Skips (exit 77) where Slurm is not installed, unless CI=true: then it fails.
# The daemons are always stopped on exit.
set -uo pipefail
roofline=${1:?usage: slurm_batch_test.sh ROOFLINE COURSE_ROOT BUILD_DIR}
course=${2:?}
build=${3:?}
export PATH=$PATH:/usr/sbin:/sbin

for tool in slurmctld slurmd sbatch squeue sinfo munged; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [[ "${CI:-}" == "true" ]]; then
      echo "FAIL: $tool is not installed, and CI=true: setup.sh installs slurm-wlm and munge (apt-get)" >&2
      exit 1
    fi
    echo "skipped: $tool is not installed (apt-get install slurm-wlm munge; setup.sh does it)"
    exit 77
  fi
done
user=$(id -un)  # the daemons run as whoever runs the test: jobs are then this user's own

dir=$(mktemp -d /tmp/roofline-slurm-XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 1
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
  [[ -f "$dir/munged.pid" ]] && kill "$(cat "$dir/munged.pid")" 2>/dev/null
  if [[ "${KEEP_SLURM_TEST_DIR:-}" != 1 ]]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for log in slurmctld.log slurmd.log munged.log; do
    [[ -f "$dir/$log" ]] && { echo "--- $log (last lines)" >&2; tail -20 "$dir/$log" >&2; }
  done
  for log in "$dir"/out/slurm/task-*.out; do
    [[ -f "$log" ]] && { echo "--- $log" >&2; tail -20 "$log" >&2; }
  done
  exit 1
}
# wait_for SECONDS WHAT COMMAND...: polls until COMMAND succeeds.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  for ((i = 0; i < seconds * 2; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  fail "timed out after ${seconds} s waiting for $what"
}

# munge: a private key and socket, so no system munged is needed or disturbed.
mkdir -p "$dir/munge"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed" \
  || fail "munged did not start"
wait_for 10 "munged's socket" test -S "$dir/munge/munge.socket"

host=$(hostname -s)
node=$(slurmd -C 2>/dev/null | head -1 | sed 's/ *$//')
[[ $node == NodeName=* ]] || fail "slurmd -C did not describe this node"
node="${node/NodeName=* CPUs/NodeName=$host NodeAddr=127.0.0.1 CPUs}"
port=$((20000 + RANDOM % 20000))
mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<CONF
ClusterName=roofline-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
$node
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf

slurmctld -D -c -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$dir/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [[ $(sinfo -h -n "$host" -o %T 2>/dev/null) == idle* ]]; }
wait_for 60 "node $host to be idle (sinfo)" node_idle
echo "slurm up: node $host idle, controller on port $port"

# Three submissions: the unedited skeletons (they compile), the same without a
# prediction log, and one with a syntax error in the first file nvcc compiles.
subs=$dir/subs
for name in skeleton no_log broken; do
  mkdir -p "$subs/$name/kernels"
  cp "$course"/labs/01-memory-roof/kernels/*.cu "$subs/$name/kernels/"
done
printf -- '- kind: prediction\n  lab: [broken\n' > "$subs/skeleton/predictions.yaml"
echo 'static not_a_type syntax_error;' >> "$subs/broken/kernels/01_copy_naive.cu"
out=$dir/out
printf 'lab: 01-memory-roof\nseed: 31337\ntimeout_s: 10\nshapes:\n  verify: [{n: 5}, {n: 4099}]\n' > "$dir/hidden.yaml"

# The class is the course's own, generated: graded in the sandbox where bwrap works here, else
# without one (the batch refuses that unless told).
sandbox_flag=()
bwrap_bin=${ROOFLINE_BWRAP:-$(command -v bwrap || true)}
if [[ -z $bwrap_bin ]] || ! "$bwrap_bin" --unshare-all --die-with-parent --ro-bind / / true 2>/dev/null; then
  sandbox_flag=(--no-sandbox-i-trust-these-submissions)
fi
job=$("$roofline" --root "$course" --build-dir "$build" batch 01-memory-roof --submissions "$subs" --out "$out" \
        --hidden "$dir/hidden.yaml" --gpus none --jobs 1 --slurm --slurm-tasks 2 "${sandbox_flag[@]}" 2> "$dir/submit.err") || { cat "$dir/submit.err" >&2; fail "--slurm"; }
[[ $job =~ ^[0-9]+$ ]] || fail "--slurm printed '$job', not a job id"
echo "submitted job array $job"
grep -q -- '--slice "${SLURM_ARRAY_TASK_ID}/2"' "$out/slurm/batch.sbatch" || fail "the sbatch script has no --slice"
job_gone() { [[ -z $(squeue -h -j "$job" 2>/dev/null) ]]; }
wait_for 900 "job $job to finish (squeue)" job_gone

"$roofline" batch --merge "$out" || fail "batch --merge exited $?"
csv=$out/gradebook.csv
echo "--- $csv"
cat "$csv"
[[ $(head -1 "$csv") == "submission,outcome,score,max_score,correctness,performance,prediction,mean_fraction_of_roofline,best_fraction_of_roofline,gpu,seconds,reason,gap_notes,sandbox,logged_hours,shared_gpu" ]] \
  || fail "the gradebook header changed"
[[ $(($(wc -l < "$csv") - 1)) -eq 3 ]] || fail "expected 3 rows"
expect() {  # expect NAME OUTCOME
  local got
  got=$(awk -F, -v n="$1" 'NR > 1 && $1 == n { print $2 }' "$csv")
  [[ $got == "$2" ]] || fail "$1: expected $2, got '${got}'"
}
expect broken compile_error
expect skeleton no_gpu
expect no_log no_gpu
grep '^broken,' "$csv" | grep -q 'kernels/01_copy_naive.cu([0-9]*): error' || fail "the compile error lacks the compiler's message"
for name in skeleton no_log broken; do
  [[ -f $out/submissions/$name/results.json ]] || fail "no results.json for $name"
done
[[ $(ls "$out"/slurm/task-*.out | wc -l) -eq 2 ]] || fail "expected two array task logs"
grep -q "## Failures" "$out/summary.md" || fail "summary.md has no failures section"
grep -q "seed 31337, hidden file" "$out/summary.md" || fail "summary.md does not name the hidden file's seed"
grep -q "{n: 4099}" "$out/lab/01-memory-roof/lab.yaml" || fail "the graded lab.yaml lacks the hidden verify shapes"
echo "PASS: slurm job array $job graded 3 submissions in 2 slices; merged gradebook checked"
