#!/usr/bin/env bash
# Removes what hack/kind-up.sh made: stops its background port-forward and deletes the kind cluster
# (Argo Workflows, PostgreSQL and Sandflow go with it). Safe to run again.
#
# Env: KIND_CLUSTER (sandflow)
set -euo pipefail

KIND_CLUSTER="${KIND_CLUSTER:-sandflow}"
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/sandflow-kind"

if ! command -v kind >/dev/null 2>&1; then
  echo 'kind-down: kind is not on PATH — install it: https://kind.sigs.k8s.io/docs/user/quick-start/#installation' >&2
  exit 2
fi

pidfile="$STATE_DIR/port-forward.pid"
if [[ -f "$pidfile" ]]; then
  pid="$(cat "$pidfile")"
  # Only our port-forward: the pid may have been reused since.
  if ps -p "$pid" -o args= 2>/dev/null | grep -q 'port-forward'; then
    echo "stopping kubectl port-forward (pid $pid)"
    kill "$pid"
  fi
  rm -f "$pidfile"
fi

if kind get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  kind delete cluster --name "$KIND_CLUSTER"
else
  echo "no kind cluster $KIND_CLUSTER: nothing to delete"
fi
