#!/usr/bin/env bash
# Installs (from Debian's packages, when missing), configures and starts what the tests need
# beside Node.js: PostgreSQL at postgresql://postgres@127.0.0.1:5432/test (trust on loopback) and
# Redis on 127.0.0.1:6379, plus bubblewrap (the build sandbox) and Chromium (browser tests).
# Idempotent and quick when everything already runs; waits for apt's lock rather than failing when
# another install holds it. Run as root (CI and the development machines are); a developer without
# root installs the same packages by hand and runs the parts below that apply.
#
#   bash scripts/services.sh            # install what is missing, start PostgreSQL and Redis
#   bash scripts/services.sh --stop     # stop both (data stays)
set -euo pipefail

PG_PORT=5432
REDIS_PORT=6379
PG_DB=test
APT_LOCK_WAIT=900 # seconds apt waits for another install's lock

log() { printf '[services] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# apt-get that waits for the dpkg and lists locks instead of failing at once when another install
# holds them (DPkg::Lock::Timeout covers install; update's lists lock is retried here).
apt_updated=false
apt_install() {
  local opts=(-o "DPkg::Lock::Timeout=$APT_LOCK_WAIT" -o "Acquire::Retries=3")
  if [ "$apt_updated" = false ]; then
    local deadline=$((SECONDS + APT_LOCK_WAIT))
    until as_root env DEBIAN_FRONTEND=noninteractive apt-get "${opts[@]}" update -qq; do
      if [ "$SECONDS" -ge "$deadline" ]; then
        log "apt-get update kept failing for ${APT_LOCK_WAIT}s"
        return 1
      fi
      log "apt-get update failed (another install holding the lock?); retrying in 5 s"
      sleep 5
    done
    apt_updated=true
  fi
  log "installing: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${opts[@]}" install -y -qq --no-install-recommends "$@" >/dev/null
}

pg_version() { ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1; }
pg_up() { pg_isready -q -h 127.0.0.1 -p "$PG_PORT" 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }

wait_for() {
  local what=$1 check=$2 seconds=$3
  local deadline=$((SECONDS + seconds))
  until "$check"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "$what did not answer within ${seconds}s"
      return 1
    fi
    sleep 0.2
  done
}

install_missing() {
  local missing=()
  [ -n "$(pg_version)" ] && command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql postgresql-contrib)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-dejavu-core)
  # Kubernetes test control plane (scripts/kube/): certificates are made with openssl.
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
}

configure_postgres() {
  local version hba conf
  version=$(pg_version)
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $2}' | grep -qx main; then
    log "creating PostgreSQL $version cluster main"
    as_root pg_createcluster "$version" main --port "$PG_PORT" >/dev/null
  fi
  hba=/etc/postgresql/$version/main/pg_hba.conf
  conf=/etc/postgresql/$version/main/postgresql.conf
  # Trust on loopback only: the tests' URL carries no password. The first matching line wins, so
  # ours go on top; the marker keeps this idempotent.
  if ! grep -q '^# berth: trust on loopback' "$hba"; then
    log "PostgreSQL: trust on loopback ($hba)"
    as_root sed -i '1i # berth: trust on loopback\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  if ! grep -q "^port = $PG_PORT" "$conf"; then
    as_root sed -i "s/^port = .*/port = $PG_PORT/" "$conf"
  fi
}

start_postgres() {
  local version
  version=$(pg_version)
  if pg_up; then
    # A running server that predates our pg_hba lines needs a reload to read them.
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload >/dev/null 2>&1 || true
  else
    log "starting PostgreSQL $version"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  wait_for PostgreSQL pg_up 60
  if ! psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -Atqc \
    "select 1 from pg_database where datname = '$PG_DB'" | grep -q 1; then
    log "creating database $PG_DB"
    psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "create database $PG_DB" >/dev/null
  fi
}

start_redis() {
  if redis_up; then return; fi
  log "starting Redis"
  as_root mkdir -p /var/lib/redis /var/log/redis
  # No snapshots: tests flush and restart it; nothing here needs to survive a reboot.
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
    --appendonly no --dir /var/lib/redis --logfile /var/log/redis/berth-tests.log \
    --pidfile /var/run/redis-berth-tests.pid
  wait_for Redis redis_up 30
}

stop_all() {
  local version
  version=$(pg_version)
  if [ -n "$version" ] && pg_up; then
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main stop || true
  fi
  if redis_up; then redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true; fi
  log "stopped"
}

case "${1:-}" in
  --stop)
    stop_all
    exit 0
    ;;
  "") ;;
  -h | --help)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "unknown argument: $1 (try --help)" >&2
    exit 2
    ;;
esac

install_missing
configure_postgres
start_postgres
start_redis
log "PostgreSQL: postgresql://postgres@127.0.0.1:$PG_PORT/$PG_DB  Redis: redis://127.0.0.1:$REDIS_PORT"
