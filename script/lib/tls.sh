# TLS helpers for script/test-release and script/bench-deploy (sourced, not run).

# make_test_cert DIR: a throwaway CA (DIR/ca.pem) and a server certificate for localhost and
# 127.0.0.1 signed by it (DIR/server.pem, DIR/server.key).
make_test_cert() {
  local dir=$1
  mkdir -p "$dir"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=RepoScroll test CA" \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$dir/server.key" \
    -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$dir/san.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
    -extfile "$dir/san.ext" -out "$dir/server.pem" 2>/dev/null
}

# start_site_nginx DIR HTTPS_PORT HTTP_PORT APP_PORT...: nginx running deploy/nginx-reposcroll.conf
# as shipped, with this run's ports, the certificate from make_test_cert DIR, server_name localhost
# and no IPv6 listeners (loopback only), its logs in DIR/logs. Its pid is added to PIDS (stopped by cleanup).
start_site_nginx() {
  local dir=$1 https=$2 http=$3
  shift 3
  mkdir -p "$dir/logs"
  local upstreams="" p
  for p in "$@"; do upstreams+="    server 127.0.0.1:$p max_fails=1 fail_timeout=2s;\n"; done
  # The shipped upstream lines are replaced by this run's instances.
  awk -v ups="$upstreams" '
    /server 127\.0\.0\.1:808[0-9] / { if (!done) { printf "%s", ups; done = 1 } next }
    { print }' deploy/nginx-reposcroll.conf |
    sed -e "s#listen 443 #listen 127.0.0.1:$https #; s#listen 80;#listen 127.0.0.1:$http;#" \
      -e '/listen \[::\]/d' \
      -e "s#/etc/letsencrypt/live/reposcroll.example.com/fullchain.pem#$dir/server.pem#" \
      -e "s#/etc/letsencrypt/live/reposcroll.example.com/privkey.pem#$dir/server.key#" \
      -e "s#reposcroll.example.com#localhost#" -e "s#/var/log/nginx/#$dir/logs/#" > "$dir/site.conf"
  cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  include $dir/site.conf;
}
CONF
  nginx -t -p "$dir" -c "$dir/nginx.conf" 2> "$dir/nginx-t.log" || { cat "$dir/nginx-t.log" >&2; return 1; }
  nginx -p "$dir" -c "$dir/nginx.conf" 2>> "$dir/logs/error.log" &
  PIDS+=($!)
  local _
  for _ in $(seq 1 100); do
    curl -s --cacert "$dir/ca.pem" --resolve "localhost:$https:127.0.0.1" "https://localhost:$https/healthz" \
      > /dev/null && return 0
    sleep 0.1
  done
  echo "nginx did not answer on $https" >&2
  return 1
}
