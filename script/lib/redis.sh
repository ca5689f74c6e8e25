# Redis topologies for script/cluster and the benchmarks (sourced after common.sh, not run).
# Every process is on loopback, has its own folder under $WORK, and is stopped by `cleanup`.

# redis_cli PORT ARGS...: redis-cli against a server this file started (TLS when REDIS_TLS_DIR is set).
redis_cli() {
  local port=$1
  shift
  if [ -n "${REDIS_TLS_DIR:-}" ]; then
    redis-cli --tls --cacert "$REDIS_TLS_DIR/ca.pem" -p "$port" "$@"
  else
    redis-cli -p "$port" "$@"
  fi
}

# redis_tls_args PORT: the redis-server arguments of a TLS-only server on PORT (empty without TLS).
redis_tls_args() {
  [ -n "${REDIS_TLS_DIR:-}" ] || { echo "--port $1"; return; }
  echo "--port 0 --tls-port $1 --tls-cert-file $REDIS_TLS_DIR/server.pem --tls-key-file $REDIS_TLS_DIR/server.key" \
    "--tls-ca-cert-file $REDIS_TLS_DIR/ca.pem --tls-auth-clients no --tls-replication yes"
}

# start_redis_server NAME ARGS...: a redis-server on a free port (no persistence, 256 MB with LRU
# eviction: every key also has a TTL); sets REDIS_PORT and REDIS_PID and waits until it answers.
start_redis_server() {
  local name=$1
  shift
  REDIS_PORT=$(pick_port)
  mkdir -p "$WORK/$name"
  # shellcheck disable=SC2046 # redis_tls_args is a list of arguments
  redis-server $(redis_tls_args "$REDIS_PORT") --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/$name" \
    --maxmemory 256mb --maxmemory-policy allkeys-lru "$@" > "$WORK/$name/redis.log" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  local _
  for _ in $(seq 1 50); do
    redis_cli "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  echo "redis-server $name did not start:" >&2
  cat "$WORK/$name/redis.log" >&2
  exit 1
}

# start_sentinel_topology: a master, a replica of it and three sentinels (quorum 2, master down after
# 1 s) naming it `reposcroll`; sets MASTER_PORT/MASTER_PID, REPLICA_PORT/REPLICA_PID and SENTINELS
# (host:port,...), and returns once every sentinel knows the replica and the other two sentinels.
start_sentinel_topology() {
  start_redis_server master
  MASTER_PORT=$REDIS_PORT MASTER_PID=$REDIS_PID
  start_redis_server replica --replicaof 127.0.0.1 "$MASTER_PORT"
  REPLICA_PORT=$REDIS_PORT REPLICA_PID=$REDIS_PID
  SENTINELS=""
  SENTINEL_PORTS=()
  local i port
  for i in 1 2 3; do
    port=$(pick_port)
    mkdir -p "$WORK/sentinel$i"
    {
      echo "bind 127.0.0.1"
      echo "dir $WORK/sentinel$i"
      if [ -n "${REDIS_TLS_DIR:-}" ]; then
        echo "port 0"
        echo "tls-port $port"
        echo "tls-cert-file $REDIS_TLS_DIR/server.pem"
        echo "tls-key-file $REDIS_TLS_DIR/server.key"
        echo "tls-ca-cert-file $REDIS_TLS_DIR/ca.pem"
        echo "tls-auth-clients no"
        echo "tls-replication yes"
      else
        echo "port $port"
      fi
      echo "sentinel monitor reposcroll 127.0.0.1 $MASTER_PORT 2"
      echo "sentinel down-after-milliseconds reposcroll 1000"
      echo "sentinel failover-timeout reposcroll 10000"
    } > "$WORK/sentinel$i/sentinel.conf"  # a sentinel rewrites its own file
    redis-sentinel "$WORK/sentinel$i/sentinel.conf" > "$WORK/sentinel$i/sentinel.log" 2>&1 &
    PIDS+=($!)
    SENTINEL_PORTS+=("$port")
    SENTINELS+="${SENTINELS:+,}127.0.0.1:$port"
  done
  local _ ready
  for _ in $(seq 1 300); do
    ready=1
    for port in "${SENTINEL_PORTS[@]}"; do
      [ "$(redis_cli "$port" sentinel replicas reposcroll 2>/dev/null | grep -c '^slave$')" -ge 1 ] || ready=0
      [ "$(redis_cli "$port" sentinel sentinels reposcroll 2>/dev/null | grep -c '^name$')" -ge 2 ] || ready=0
    done
    [ "$ready" = 1 ] && return 0
    sleep 0.1
  done
  echo "the sentinels did not find the replica and each other within 30 s" >&2
  exit 1
}

# enable_redis_tls: a throwaway CA and a certificate for 127.0.0.1 and localhost in $WORK/redis-tls;
# the servers started after it speak TLS only.
enable_redis_tls() {
  # shellcheck source=script/lib/tls.sh
  . script/lib/tls.sh
  REDIS_TLS_DIR="$WORK/redis-tls"
  make_test_cert "$REDIS_TLS_DIR"
}
