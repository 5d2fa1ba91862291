#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, for testing the workflow's cluster profile.
# Debian packages (slurm-wlm, munge); no systemd, no cgroups, no accounting database.
# Must run as root.
#
#   .ci/slurm_local.sh start    install if needed, write slurm.conf, start munged/slurmctld/slurmd
#   .ci/slurm_local.sh stop     stop exactly the daemons recorded in the state dir (by PID)
#   .ci/slurm_local.sh status
#
# Without slurmdbd, `sacct` cannot see jobs: run Snakemake with --slurm-status-command squeue
# (MinJobAge keeps finished jobs visible to squeue for an hour).
set -euo pipefail

STATE=${KREPRO_SLURM_STATE:-/tmp/krepro_slurm}
HOST=$(hostname -s)
CPUS=$(nproc)
MEMORY_MB=$(( $(awk '/^MemTotal/ {print int($2 / 1024)}' /proc/meminfo) - 1024 ))

install() {
    if command -v slurmctld >/dev/null && command -v munged >/dev/null; then return; fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge
}

configure() {
    mkdir -p "$STATE"/{spool,ctld,log,pid} /etc/slurm
    cat > /etc/slurm/slurm.conf <<CONF
ClusterName=krepro
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=3600
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/pid/slurmctld.pid
SlurmdPidFile=$STATE/pid/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEMORY_MB State=UNKNOWN
# Without a default memory per CPU a job without --mem would take the whole node.
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP DefMemPerCPU=1000
CONF
}

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start_munge() {
    running "$STATE/pid/munged.pid" && return
    # A munged started by someone else serves us as well; it is not ours to stop.
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge
    if [ ! -s /etc/munge/munge.key ]; then
        mungekey --create --force 2>/dev/null || create-munge-key -f
        chown munge:munge /etc/munge/munge.key
        chmod 600 /etc/munge/munge.key
    fi
    runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
    for _ in $(seq 20); do [ -s /run/munge/munged.pid ] && break; sleep 0.25; done
    cp /run/munge/munged.pid "$STATE/pid/munged.pid"
    munge -n | unmunge >/dev/null
}

start_slurm() {
    running "$STATE/pid/slurmctld.pid" || /usr/sbin/slurmctld
    for _ in $(seq 40); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.25; done
    running "$STATE/pid/slurmd.pid" || /usr/sbin/slurmd
    for _ in $(seq 60); do
        case "$(sinfo -h -N -o %T 2>/dev/null | head -1)" in idle | mixed | allocated) break ;; esac
        sleep 0.25
    done
    scontrol update NodeName="$HOST" State=RESUME 2>/dev/null || true
    sinfo
}

stop() {
    for daemon in slurmd slurmctld munged; do
        pidfile="$STATE/pid/$daemon.pid"
        if running "$pidfile"; then
            pid=$(cat "$pidfile")
            kill "$pid"
            for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
            echo "stopped $daemon ($pid)"
        fi
        rm -f "$pidfile"
    done
}

case "${1:-}" in
    start) install; configure; start_munge; start_slurm ;;
    stop) stop ;;
    status)
        for daemon in munged slurmctld slurmd; do
            if running "$STATE/pid/$daemon.pid"; then echo "$daemon: running"; else echo "$daemon: stopped"; fi
        done ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
