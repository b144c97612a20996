#!/usr/bin/env bash
# A real Slurm on this machine: a single-node cluster on localhost (munged, slurmctld, slurmd,
# each started here and stopped at the end, whatever happens), deploy/slurm/campaign.sbatch
# submitted as an array job of 4 shards running wgstress on lavapipe, waited for, merged, and
# the report checked. Needs root and Debian's slurmctld, slurmd and munge (.ci/run installs
# them).
#
#   deploy/slurm/test-local.sh [path/to/wgstress]    (default: target/debug/wgstress)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=$(realpath "${1:-target/debug/wgstress}")
[ "$(id -u)" = 0 ] || { echo "test-local.sh: needs root (it starts munged, slurmctld and slurmd)" >&2; exit 2; }
for tool in munged slurmctld slurmd sbatch sinfo; do
    command -v "$tool" >/dev/null || { echo "test-local.sh: $tool missing: apt-get install slurmctld slurmd munge" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "test-local.sh: no wgstress binary at $bin (cargo build)" >&2; exit 2; }

work=$(mktemp -d /tmp/wgstress-slurm.XXXXXX)
chmod 755 "$work"
pids=()
munge_runner=
stop() {
    local status=$?
    # Only what this script started, by process id, newest first; munged itself rather than
    # the runuser above it, which then reaps it and exits.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        local pid=${pids[i]}
        if [ "$pid" = "$munge_runner" ] && [ -s "$work/munge/munged.pid" ]; then
            pid=$(cat "$work/munge/munged.pid")
        fi
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    if [ $status -ne 0 ]; then
        echo "test-local.sh: failed; the daemons' logs:" >&2
        tail -n 20 "$work"/*.log >&2 || true
    fi
    rm -rf "$work"
    exit $status
}
trap stop EXIT

# munge: its own key and socket, so that a munged already running is left alone.
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chown munge:munge "$work/munge.key" && chmod 400 "$work/munge.key"
mkdir -p "$work/munge" && chown munge:munge "$work/munge"
socket=$work/munge/munge.socket
runuser -u munge -- munged --key-file="$work/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/seed" --foreground >"$work/munged.out.log" 2>&1 &
munge_runner=$!
pids+=($!)

node=$(hostname -s)
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=wgstress-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=26817
SlurmdPort=26818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$work/state" "$work/spool"

for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
slurmctld -D -i >"$work/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N "$node" >"$work/slurmd.out.log" 2>&1 &
pids+=($!)

# The node is up when Slurm says it is idle.
for i in $(seq 120); do
    state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    [ "$i" = 120 ] && { echo "test-local.sh: the node never came up (state: ${state:-none})" >&2; exit 1; }
    sleep 1
done
echo "test-local.sh: single-node cluster up ($node)"

out=$work/out
started=$SECONDS
# Four shards; each task exits 0 only when its items all passed. The tasks get no GPU: lavapipe.
timeout 600 sbatch --wait --parsable --array=0-3 --chdir="$work" \
    --export="ALL,WGSTRESS=$bin" \
    "$root/deploy/slurm/campaign.sbatch" "$root/deploy/slurm/test-plan.toml" "$out" >"$work/job"
echo "test-local.sh: array job $(cat "$work/job") done in $((SECONDS - started)) s"

report=$("$bin" merge "$out")
echo "$report"
grep -q "^merged 4 shard logs of plan slurm-test" <<<"$report"
! grep -qE "^(missing|cut short|interrupted):" <<<"$report"
grep -qE "^all \(1 hosts\) +1 GPUs, wall clock +46 " <<<"$report"
grep -q "^0 unexpected" <<<"$report"
echo "test-local.sh: passed"
