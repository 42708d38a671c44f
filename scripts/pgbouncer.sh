#!/bin/sh
# A PgBouncer in transaction pooling mode in front of a PostgreSQL, for running the tests (or the
# service) the way a pooled deployment runs them.
#
#   scripts/pgbouncer.sh start   prints the URL to use as DATABASE_URL (with DATABASE_POOL_MODE=transaction)
#   scripts/pgbouncer.sh stop    stops it and removes its directory
#
# PGBOUNCER_DIR (default /tmp/doorloom-pgbouncer) holds its configuration, pid and log;
# PGBOUNCER_PORT (default: a free port) is where it listens; UPSTREAM_HOST/UPSTREAM_PORT
# (default 127.0.0.1:5432) is the PostgreSQL behind it, reached with trust authentication.
set -eu
dir=${PGBOUNCER_DIR:-/tmp/doorloom-pgbouncer}
user=${PGBOUNCER_DB_USER:-root}
database=${PGBOUNCER_DB_NAME:-test}

case "${1:-}" in
start)
  if [ -f "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null; then
    echo "postgres://$user@127.0.0.1:$(cat "$dir/port")/$database"
    exit 0
  fi
  command -v pgbouncer >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
  command -v pgbouncer >/dev/null 2>&1 || { echo "pgbouncer is not installed (apt-get install pgbouncer)" >&2; exit 1; }
  port=${PGBOUNCER_PORT:-$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
  mkdir -p "$dir"
  echo "$port" >"$dir/port"
  printf '"%s" ""\n' "$user" >"$dir/userlist.txt"
  cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=${UPSTREAM_HOST:-127.0.0.1} port=${UPSTREAM_PORT:-5432}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 40
max_db_connections = 80
server_reset_query =
; a lost PostgreSQL is retried within a second, and a client waits at most 5 s for a server
; connection, so the service answers 503 DATABASE_UNAVAILABLE within its own time limits
server_login_retry = 1
server_connect_timeout = 3
query_wait_timeout = 5
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
INI
  # PgBouncer refuses to run as root: it then runs as an unprivileged user that owns its directory.
  if [ "$(id -u)" = 0 ]; then
    chown -R nobody "$dir"
    pgbouncer -d -u nobody "$dir/pgbouncer.ini"
  else
    pgbouncer -d "$dir/pgbouncer.ini"
  fi
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -f "$dir/pgbouncer.pid" ] && break
    sleep 0.2
  done
  [ -f "$dir/pgbouncer.pid" ] || { echo "pgbouncer did not start; see $dir/pgbouncer.log" >&2; exit 1; }
  echo "postgres://$user@127.0.0.1:$port/$database"
  ;;
stop)
  if [ -f "$dir/pgbouncer.pid" ]; then
    pid=$(cat "$dir/pgbouncer.pid")
    kill "$pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: scripts/pgbouncer.sh start|stop" >&2
  exit 64
  ;;
esac
