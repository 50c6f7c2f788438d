#!/usr/bin/env bash
# check_serve_kserve.sh <conch-serve-kserve> <repository>
# Runs the example with ports picked by the system, then checks over plain
# sockets that HTTP answers readiness and an inference, that the metrics
# endpoint counted that inference, that the gRPC port accepts connections,
# and that SIGTERM stops the program with exit status 0.
set -euo pipefail
binary=$1
repository=$2

coproc server { exec "$binary" "$repository" 0 0 0 2>&1; }
server_pid=$server_PID
exec 3<&"${server[0]}"
trap 'kill "$server_pid" 2>/dev/null || true' EXIT

ports=""
while IFS= read -r -t 120 line <&3; do
  echo "server: $line"
  if [[ $line == listening:* ]]; then
    ports=$line
    break
  fi
done
[[ -n $ports ]] || { echo "the example never listened"; exit 1; }
read -r _ _ http_port _ grpc_port _ metrics_port <<< "$ports"
# The rest of its output, read as it comes so that the pipe never fills.
cat <&3 > "${TMPDIR:-/tmp}/conch-serve-kserve.$$.log" &
drain_pid=$!

# request <method> <port> <path> [json body]: the whole HTTP/1.1 response.
request() {
  local body=${4:-}
  exec 5<>"/dev/tcp/127.0.0.1/$2"
  printf '%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' "$1" "$3" >&5
  printf 'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' "${#body}" "$body" >&5
  cat <&5
  exec 5<&-
}
expect() {  # expect <what> <text> <pattern>
  if ! grep -qE -- "$3" <<< "$2"; then
    printf 'FAILED: %s: no match for %s in\n%s\n' "$1" "$3" "$2"
    exit 1
  fi
}

expect "readiness" "$(request GET "$http_port" /v2/health/ready)" '^HTTP/1.1 200'
data=$(seq -s, 0 15)
body='{"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32","data":['"$data"']}]}'
reply=$(request POST "$http_port" /v2/models/identity_fp32/infer "$body")
expect "inference" "$reply" '^HTTP/1.1 200'
expect "inference" "$reply" '"name":"OUTPUT0".*"data":\[0\.0,1\.0,2\.0,'
expect "metrics" "$(request GET "$metrics_port" /metrics)" \
  '^nv_inference_request_success\{model="identity_fp32",version="1"\} 1$'
if ! exec 6<>"/dev/tcp/127.0.0.1/$grpc_port"; then
  echo "FAILED: nothing accepts connections on the gRPC port $grpc_port"
  exit 1
fi
exec 6<&-

kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
wait "$drain_pid" || true
sed 's/^/server: /' "${TMPDIR:-/tmp}/conch-serve-kserve.$$.log"
rm -f "${TMPDIR:-/tmp}/conch-serve-kserve.$$.log"
trap - EXIT
[[ $status == 0 ]] || { echo "FAILED: exit status $status after SIGTERM"; exit 1; }
echo "conch-serve-kserve served and stopped"
