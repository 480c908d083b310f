#!/usr/bin/env bash
# A throwaway PostgreSQL for the kit's real-backend tests: `npm run pg:start` / `npm run pg:stop`.
#
# start: installs Debian's `postgresql` package when no server binaries are found (apt-get, as root;
#        no cluster is started by the install), creates a data directory under .sbkit/pg/ (git-ignored),
#        and starts a server listening on 127.0.0.1 only, port $SBKIT_PG_PORT (default 54329), as a
#        non-root user (Postgres refuses to run as root: the `postgres` user, created when missing).
#        Password authentication (scram-sha-256) on TCP, no Unix socket. Prints the URL and writes it
#        to .sbkit/pg/url, where the tests find it (env SBKIT_PG_URL overrides the file).
#        Server log: beside the data directory (data.log). If the server user cannot reach the
#        project (e.g. it lives under /root), the data directory goes to /tmp/sbkit-pg-<hash of the
#        project path>, linked from .sbkit/pg/data.
#        Idempotent: a server of ours already running is reused. On failure it writes the reason to
#        .sbkit/pg/unavailable (the tests print it when they skip) and exits non-zero.
# stop:  stops our server (fast shutdown; if that fails, SIGKILL of our postmaster pid only) and removes
#        the url file. Always leaves nothing of ours running; a no-op when nothing runs. The data
#        directory stays (reused by the next start); `pg.sh wipe` stops and deletes it.
# url:   prints the URL of the running server, or exits 1.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STATE="$ROOT/.sbkit/pg"
PORT="${SBKIT_PG_PORT:-54329}"
DB=sbkit
ROLE=sbkit
PASSWORD=sbkit
URL="postgres://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"

say() { printf 'pg: %s\n' "$*" >&2; }
fail() {
  mkdir -p "$STATE"
  printf '%s\n' "$*" >"$STATE/unavailable"
  say "cannot start PostgreSQL: $*"
  exit 1
}

# The server binaries: Debian puts them in /usr/lib/postgresql/<major>/bin (newest first).
find_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    if [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

install_postgres() {
  [ "$(id -u)" = 0 ] || fail "PostgreSQL server binaries not found and not root: install Debian's postgresql package"
  command -v apt-get >/dev/null || fail "PostgreSQL server binaries not found and no apt-get to install them"
  say "installing Debian's postgresql package (apt-get) ..."
  # Keep the package's own cluster from being started by the install (policy-rc.d 101 = "do not start").
  local policy=/usr/sbin/policy-rc.d created_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    created_policy=1
  fi
  local rc=0
  {
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  } || rc=$?
  [ "$created_policy" = 1 ] && rm -f "$policy"
  [ "$rc" = 0 ] || fail "apt-get install postgresql failed (exit $rc)"
}

# Who runs the server: Postgres refuses root, so root runs it as `postgres` (created when missing).
RUNAS=""
choose_user() {
  if [ "$(id -u)" != 0 ]; then
    RUNAS=""
    return
  fi
  if ! id -u postgres >/dev/null 2>&1; then
    say "creating system user postgres"
    useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres ||
      fail "could not create the postgres user"
  fi
  RUNAS=postgres
}

as_server_user() {
  if [ -n "$RUNAS" ]; then
    runuser -u "$RUNAS" -- "$@"
  else
    "$@"
  fi
}

# The data directory: $STATE/data, unless the server user cannot reach it (e.g. the project lives
# under a home directory with mode 700): then a directory under /tmp named after the project path,
# linked from $STATE/data.
data_dir() {
  mkdir -p "$STATE"
  if [ -L "$STATE/data" ]; then
    readlink "$STATE/data"
    return
  fi
  if [ -z "$RUNAS" ] || as_server_user test -x "$STATE" 2>/dev/null; then
    echo "$STATE/data"
    return
  fi
  local hash
  hash="$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
  local alt="${TMPDIR:-/tmp}/sbkit-pg-$hash"
  say "user $RUNAS cannot reach $STATE; data directory $alt (linked from $STATE/data)"
  ln -sfn "$alt" "$STATE/data"
  echo "$alt"
}

server_running() {
  local bindir="$1" data="$2"
  [ -f "$data/postmaster.pid" ] && as_server_user "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1
}

cmd_start() {
  rm -f "$STATE/unavailable"
  local bindir
  bindir="$(find_bindir)" || {
    install_postgres
    bindir="$(find_bindir)" || fail "PostgreSQL server binaries still not found after installing"
  }
  choose_user
  local data
  data="$(data_dir)"
  # Beside the data directory, where the server user can write it (not necessarily under $STATE).
  local log="$data.log"

  if server_running "$bindir" "$data"; then
    say "already running ($("$bindir/postgres" --version))"
  else
    if [ ! -f "$data/PG_VERSION" ]; then
      say "initdb $data"
      mkdir -p "$data"
      [ -n "$RUNAS" ] && chown "$RUNAS" "$data"
      chmod 700 "$data"
      local pwfile="$data.pw"
      printf '%s\n' "$PASSWORD" >"$pwfile"
      [ -n "$RUNAS" ] && chown "$RUNAS" "$pwfile"
      as_server_user "$bindir/initdb" -D "$data" -U "$ROLE" --pwfile="$pwfile" \
        --auth-host=scram-sha-256 --auth-local=scram-sha-256 -E UTF8 --no-locale >"$STATE/initdb.log" 2>&1 ||
        { rm -f "$pwfile"; fail "initdb failed: $(tail -5 "$STATE/initdb.log")"; }
      rm -f "$pwfile"
      cat >>"$data/postgresql.conf" <<EOF

# sbkit: a throwaway test server (scripts/pg.sh)
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = ''
max_connections = 100
shared_buffers = 64MB
logging_collector = off
EOF
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      fail "port $PORT on 127.0.0.1 is taken by another program (set SBKIT_PG_PORT to use another)"
    fi
    touch "$log"
    [ -n "$RUNAS" ] && chown "$RUNAS" "$log"
    say "starting $("$bindir/postgres" --version) on 127.0.0.1:$PORT"
    as_server_user "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null ||
      fail "pg_ctl start failed: $(tail -5 "$log" | tr '\n' ' ')"
  fi

  # The database the kit uses (idempotent).
  local psql="$bindir/psql"
  [ -x "$psql" ] || psql="$(command -v psql)"
  export PGPASSWORD="$PASSWORD"
  if ! "$psql" -h 127.0.0.1 -p "$PORT" -U "$ROLE" -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
    "$psql" -h 127.0.0.1 -p "$PORT" -U "$ROLE" -d postgres -qc "CREATE DATABASE $DB" >/dev/null ||
      fail "could not create database $DB"
  fi
  printf '%s\n' "$URL" >"$STATE/url"
  echo "$URL"
}

cmd_stop() {
  local bindir data
  rm -f "$STATE/url"
  bindir="$(find_bindir)" || return 0 # no server binaries: nothing of ours can run
  choose_user
  if [ -L "$STATE/data" ]; then data="$(readlink "$STATE/data")"; else data="$STATE/data"; fi
  [ -f "$data/postmaster.pid" ] || return 0
  if as_server_user "$bindir/pg_ctl" -D "$data" -m fast -w -t 15 stop >/dev/null 2>&1; then
    say "stopped"
    return 0
  fi
  # pg_ctl could not stop it (or it was not running): kill our postmaster only, if it is alive.
  local pid
  pid="$(head -1 "$data/postmaster.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q postgres "/proc/$pid/comm" 2>/dev/null; then
    local children
    children="$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -s ' \n' ' ' || true)"
    say "pg_ctl stop failed; SIGKILL postmaster $pid and its children${children:+ $children}"
    # shellcheck disable=SC2086 # the child pids, one word each
    kill -KILL "$pid" $children 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$data/postmaster.pid"
}

cmd_url() {
  [ -f "$STATE/url" ] || exit 1
  cat "$STATE/url"
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
wipe)
  cmd_stop
  if [ -L "$STATE/data" ]; then rm -rf "$(readlink "$STATE/data")" "$(readlink "$STATE/data").log"; fi
  rm -rf "$STATE"
  ;;
url) cmd_url ;;
*)
  echo "usage: scripts/pg.sh start|stop|wipe|url" >&2
  exit 2
  ;;
esac
