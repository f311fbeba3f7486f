# slurm_lib.sh — a real local Slurm for the integration tests (bash; source it after lib.sh).
#
# slurm_start NODES starts, under $TMP/slurm (all state, logs, sockets and keys there, nothing
# in /etc or /run): munged with a fresh key of its own and its own socket, slurmctld, and
# NODES slurmd (1 or more: n1, n2, ... all on this host, each on its own port, "slurmd -N nK":
# Debian's slurmd is built with multiple-slurmd support), then waits until sinfo says every
# node is idle. It writes $SLURM_DIR/slurm.conf (SlurmctldHost=localhost, auth/munge over the
# private socket, ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
# SelectType=select/cons_tres, no accounting database, PlugStackConfig=$SLURM_DIR/plugstack.conf,
# empty until a test writes it) and exports SLURM_CONF, so srun/sbatch/sinfo/scontrol in the
# test talk to this cluster only. Ports are chosen free at start, so two tests (two helpers)
# can run side by side. SLURM_EXTRA_CONF (lines) is appended to slurm.conf.
#
# Returns 0 when the cluster is up. Otherwise it returns 1 with SLURM_SKIP_WHY set to one
# line saying why (not root, a program missing, a daemon that did not start: the tail of its
# log is in $SLURM_DIR/*.log) and everything it started stopped; the caller says
# "SKIP: $SLURM_SKIP_WHY" and exits 0. slurm_stop (also run on exit: it is chained before the
# trap lib.sh set) cancels the jobs and stops the daemons (all at once: each takes ~2 s).
#
# Variables after a start: SLURM_DIR, SLURM_CONF, SLURM_CLUSTER (the ClusterName),
# SLURM_NODES (n1,n2,...), SLURM_PLUGSTACK (the plugstack.conf path).

SLURM_DIR=$TMP/slurm
SLURM_CLUSTER=mwtest
SLURM_PLUGSTACK=$SLURM_DIR/plugstack.conf
SLURM_SKIP_WHY=
SLURM_UP=0

# slurm_free_port: prints a TCP port nobody listens on (and that no earlier call gave)
_SLURM_PORTS_TAKEN=" "
slurm_free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 30000))
    case $_SLURM_PORTS_TAKEN in *" $p "*) continue ;; esac
    # listening sockets (state 0A) in /proc/net/tcp*, port in hex (no iproute2 needed)
    if ! awk -v want="$(printf '%04X' "$p")" '$4 == "0A" { split($2, a, ":"); if (a[2] == want) f = 1 }
         END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
      _SLURM_PORTS_TAKEN+="$p "
      echo "$p"
      return 0
    fi
  done
  return 1
}

_slurm_fail() {
  SLURM_SKIP_WHY=$1
  slurm_stop
  return 1
}

# slurm_conf NODES PORTS...: writes slurm.conf
_slurm_conf() {
  local n=$1 ctld_port=$2; shift 2
  local cpus; cpus=$(nproc)
  cat >"$SLURM_DIR/slurm.conf" <<EOF
# written by tests/integration/slurm_lib.sh
ClusterName=$SLURM_CLUSTER
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge.socket
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.%n.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
PlugStackConfig=$SLURM_PLUGSTACK
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
EOF
  local k=1
  for port in "$@"; do
    echo "NodeName=n$k NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port CPUs=$cpus RealMemory=500 State=UNKNOWN" \
      >>"$SLURM_DIR/slurm.conf"
    k=$((k + 1))
  done
  echo "PartitionName=debug Nodes=$SLURM_NODES Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES" \
    >>"$SLURM_DIR/slurm.conf"
  [ -z "${SLURM_EXTRA_CONF:-}" ] || echo "$SLURM_EXTRA_CONF" >>"$SLURM_DIR/slurm.conf"
}

_slurm_start_munge() {
  dd if=/dev/urandom of="$SLURM_DIR/munge.key" bs=1024 count=1 status=none || return 1
  chmod 400 "$SLURM_DIR/munge.key"
  munged --force --key-file="$SLURM_DIR/munge.key" --socket="$SLURM_DIR/munge.socket" \
    --pid-file="$SLURM_DIR/munged.pid" --log-file="$SLURM_DIR/munged.log" \
    --seed-file="$SLURM_DIR/munged.seed" 2>>"$SLURM_DIR/munged.log" || return 1
  for _ in $(seq 300); do [ -S "$SLURM_DIR/munge.socket" ] && return 0; sleep 0.1; done # (30 s)
  return 1
}

# slurm_start NODES
slurm_start() {
  local n=${1:-1}
  if [ "$(id -u)" != 0 ]; then SLURM_SKIP_WHY="needs root to start slurmctld/slurmd (running as $(id -un))"; return 1; fi
  local p
  for p in munged slurmctld slurmd slurmstepd srun sinfo scontrol scancel; do
    if ! command -v "$p" >/dev/null; then
      SLURM_SKIP_WHY="$p not found (Debian packages slurm-wlm, slurmd, slurmctld, munge: scripts/packages.txt)"
      return 1
    fi
  done
  mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool"
  chmod 700 "$SLURM_DIR"
  : >"$SLURM_PLUGSTACK"
  SLURM_NODES=$(seq -s, -f 'n%g' 1 "$n")
  local ctld_port ports=()
  ctld_port=$(slurm_free_port) || { SLURM_SKIP_WHY="no free TCP port"; return 1; }
  for _ in $(seq "$n"); do ports+=("$(slurm_free_port)"); done
  _slurm_conf "$n" "$ctld_port" "${ports[@]}"
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  # chain our stop before the trap already set (lib.sh's cleanup removes $TMP)
  if [ "$SLURM_UP" = 0 ]; then
    local prev; prev=$(trap -p EXIT)
    eval "set -- $prev"
    trap "slurm_stop; ${3:-}" EXIT
  fi
  SLURM_UP=1
  _slurm_start_munge || { _slurm_fail "munged did not start (see $SLURM_DIR/munged.log)"; return 1; }
  slurmctld -i -f "$SLURM_CONF" 2>>"$SLURM_DIR/slurmctld.log" ||
    { _slurm_fail "slurmctld did not start: $(tail -1 "$SLURM_DIR/slurmctld.log")"; return 1; }
  local k
  for k in $(seq "$n"); do
    mkdir -p "$SLURM_DIR/spool/n$k"
    slurmd -N "n$k" -f "$SLURM_CONF" 2>>"$SLURM_DIR/slurmd.n$k.log" ||
      { _slurm_fail "slurmd n$k did not start: $(tail -1 "$SLURM_DIR/slurmd.n$k.log")"; return 1; }
  done
  # every node idle (30 s at most: registration takes a second or two)
  local states
  for _ in $(seq 150); do
    states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
    if [ "$(echo "$states" | grep -c ' idle$')" = "$n" ]; then return 0; fi
    sleep 0.2
  done
  _slurm_fail "the nodes did not become idle within 30 s (sinfo: $(echo "$states" | tr '\n' ' '); logs in $SLURM_DIR)"
}

# _slurm_kill_pidfiles FILE...: SIGTERM to every daemon named, together (each takes about 2 s
# to end), then SIGKILL to any still there after 5 s
_slurm_kill_pidfiles() {
  local f pids=() pid
  for f in "$@"; do
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null && pids+=("$pid")
  done
  for _ in $(seq 50); do
    local alive=0
    for pid in "${pids[@]+"${pids[@]}"}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]+"${pids[@]}"}"; do kill -9 "$pid" 2>/dev/null; done
  return 0
}

slurm_stop() {
  [ "$SLURM_UP" = 1 ] || return 0
  SLURM_UP=0
  scancel --quiet --full --user=root 2>/dev/null
  _slurm_kill_pidfiles "$SLURM_DIR"/slurmd.*.pid "$SLURM_DIR/slurmctld.pid" "$SLURM_DIR/munged.pid"
}
