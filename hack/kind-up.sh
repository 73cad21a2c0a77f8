#!/usr/bin/env bash
# The tester's path: Sandflow in cluster mode on a local kind cluster, on a connected machine with
# docker, kind, helm and kubectl. Safe to run again: every step skips or updates what is there.
#
#   hack/kind-up.sh            # cluster, Argo Workflows, PostgreSQL, image, chart, samples, port-forward
#   hack/kind-down.sh          # deletes the cluster (and stops the port-forward)
#
# What it installs:
#   - kind cluster "$KIND_CLUSTER" (default sandflow)
#   - Argo Workflows $ARGO_VERSION from its release manifests (install.yaml) in namespace argo, with
#     argo-server over plain HTTP inside the cluster (--secure=false, --auth-mode=server)
#   - PostgreSQL: a plain single-replica Deployment of postgres:16-alpine (no chart, no volume
#     claim: data lives as long as the Pod) in namespace sandflow-db, password in a Secret
#   - the image: `docker build` of ./Dockerfile as sandflow:dev, then `kind load docker-image`
#   - the chart charts/sandflow as release "sandflow" in namespace sandflow, with DATABASE_URL and
#     a generated JWT key and secrets key in the Secret sandflow-env (kept across runs)
#   - config/samples (organization demo: namespaces sf-demo, sf-demo-research)
#
# Env: KIND_CLUSTER (sandflow), ARGO_VERSION (v4.1.2: the version of embedded/argo-crds),
#      SANDFLOW_NAMESPACE (sandflow), SANDFLOW_IMAGE (sandflow:dev), LOCAL_PORT (8080),
#      PORT_FORWARD (1: start `kubectl port-forward` in the background; 0: only print the command),
#      HELM_EXTRA_ARGS (appended to `helm upgrade --install`, e.g. "--set api.replicas=1").
set -euo pipefail

here="${BASH_SOURCE[0]%/*}"
[[ "$here" == "${BASH_SOURCE[0]}" ]] && here=.
root="$(cd "$here/.." && pwd)"

KIND_CLUSTER="${KIND_CLUSTER:-sandflow}"
ARGO_VERSION="${ARGO_VERSION:-v4.1.2}"
SANDFLOW_NAMESPACE="${SANDFLOW_NAMESPACE:-sandflow}"
SANDFLOW_IMAGE="${SANDFLOW_IMAGE:-sandflow:dev}"
LOCAL_PORT="${LOCAL_PORT:-8080}"
PORT_FORWARD="${PORT_FORWARD:-1}"
DB_NAMESPACE=sandflow-db
RELEASE=sandflow
CHART="$root/charts/sandflow"
SAMPLES="$root/config/samples"
DOCKERFILE="$root/Dockerfile"
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/sandflow-kind"

say() { printf '\n==> %s\n' "$*"; }
die() {
  printf 'kind-up: %s\n' "$*" >&2
  exit 1
}

# Every missing tool at once, each with where to get it.
check_tools() {
  local missing=0 tool hint
  for tool in docker kind helm kubectl; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      case "$tool" in
        docker) hint='a container engine: https://docs.docker.com/engine/install/' ;;
        kind) hint='https://kind.sigs.k8s.io/docs/user/quick-start/#installation' ;;
        helm) hint='https://helm.sh/docs/intro/install/ (or hack/envtest/build.sh helm)' ;;
        kubectl) hint='https://kubernetes.io/docs/tasks/tools/' ;;
      esac
      printf 'kind-up: %s is not on PATH — install it: %s\n' "$tool" "$hint" >&2
      missing=1
    fi
  done
  [[ $missing == 0 ]] || exit 2
  docker info >/dev/null 2>&1 || die 'docker is installed but its daemon does not answer (is it running? may this user use it?)'
}

# The chart's values for this cluster (also read by tests/chart/kind-scripts.test.ts, which renders
# the chart with them).
chart_values() {
  cat <<EOF
image:
  repository: ${SANDFLOW_IMAGE%:*}
  tag: ${SANDFLOW_IMAGE##*:}
  pullPolicy: Never
secret:
  existingSecret: sandflow-env
api:
  publicUrl: http://localhost:${LOCAL_PORT}
  argoServer:
    url: http://argo-server.argo.svc:2746
EOF
}

# A random alphanumeric string for passwords and keys (no `tr </dev/urandom | head`: under pipefail
# the SIGPIPE of the writer would end the script).
random_secret() { # random_secret <length, at most 64>
  local s
  s="$(head -c 96 /dev/urandom | base64 -w0 | tr -d '/+=')"
  printf '%s' "${s:0:${1:-32}}"
}

# A key of a Secret, decoded; empty when the Secret or key is absent.
secret_value() { # secret_value <namespace> <name> <key>
  local v
  v="$(kubectl -n "$1" get secret "$2" -o "jsonpath={.data.$3}" 2>/dev/null || true)"
  [[ -n "$v" ]] && printf '%s' "$v" | base64 -d
  return 0
}

create_cluster() {
  if kind get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
    say "kind cluster $KIND_CLUSTER exists"
  else
    say "creating kind cluster $KIND_CLUSTER"
    kind create cluster --name "$KIND_CLUSTER" --wait 120s
  fi
  kubectl config use-context "kind-$KIND_CLUSTER" >/dev/null
}

install_argo() {
  say "Argo Workflows $ARGO_VERSION"
  kubectl create namespace argo --dry-run=client -o yaml | kubectl apply -f -
  # Server-side: Argo's CRDs are larger than client-side apply's last-applied annotation allows.
  kubectl apply --server-side --force-conflicts -n argo \
    -f "https://github.com/argoproj/argo-workflows/releases/download/${ARGO_VERSION}/install.yaml"
  # argo-server over HTTP inside the cluster, no client auth: the API reads logs and files from it.
  kubectl -n argo patch deployment argo-server --type json -p '[
    {"op": "replace", "path": "/spec/template/spec/containers/0/args",
     "value": ["server", "--auth-mode=server", "--secure=false"]},
    {"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/scheme",
     "value": "HTTP"}]'
  kubectl -n argo rollout status deployment/workflow-controller --timeout=300s
  kubectl -n argo rollout status deployment/argo-server --timeout=300s
}

install_postgres() {
  say "PostgreSQL (Deployment postgres:16-alpine in $DB_NAMESPACE)"
  kubectl create namespace "$DB_NAMESPACE" --dry-run=client -o yaml | kubectl apply -f -
  local password
  password="$(secret_value "$DB_NAMESPACE" postgres POSTGRES_PASSWORD)"
  if [[ -z "$password" ]]; then
    password="$(random_secret 24)"
    kubectl -n "$DB_NAMESPACE" create secret generic postgres \
      --from-literal=POSTGRES_USER=sandflow --from-literal=POSTGRES_DB=sandflow \
      --from-literal=POSTGRES_PASSWORD="$password"
  fi
  kubectl -n "$DB_NAMESPACE" apply -f - <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: postgres
spec:
  replicas: 1
  selector:
    matchLabels: { app: postgres }
  template:
    metadata:
      labels: { app: postgres }
    spec:
      containers:
        - name: postgres
          image: postgres:16-alpine
          envFrom:
            - secretRef: { name: postgres }
          env:
            - { name: PGDATA, value: /var/lib/postgresql/data/pgdata }
          ports:
            - { name: postgres, containerPort: 5432 }
          readinessProbe:
            exec: { command: [pg_isready, -U, sandflow, -d, sandflow] }
            periodSeconds: 3
          volumeMounts:
            - { name: data, mountPath: /var/lib/postgresql/data }
      volumes:
        - name: data
          emptyDir: {}
---
apiVersion: v1
kind: Service
metadata:
  name: postgres
spec:
  selector: { app: postgres }
  ports:
    - { name: postgres, port: 5432, targetPort: postgres }
EOF
  kubectl -n "$DB_NAMESPACE" rollout status deployment/postgres --timeout=300s
}

build_image() {
  say "image $SANDFLOW_IMAGE (docker build, kind load)"
  docker build -t "$SANDFLOW_IMAGE" -f "$DOCKERFILE" "$root"
  kind load docker-image "$SANDFLOW_IMAGE" --name "$KIND_CLUSTER"
}

install_chart() {
  say "chart $CHART as release $RELEASE in namespace $SANDFLOW_NAMESPACE"
  kubectl create namespace "$SANDFLOW_NAMESPACE" --dry-run=client -o yaml | kubectl apply -f -
  # DATABASE_URL, the JWT key and the key that seals registry passwords in a Secret of our own,
  # so that a second run keeps the same keys (a new secrets key could not open stored passwords).
  local jwt secrets_key db_password
  jwt="$(secret_value "$SANDFLOW_NAMESPACE" sandflow-env SANDFLOW_JWT_SECRET)"
  [[ -n "$jwt" ]] || jwt="$(random_secret 48)"
  secrets_key="$(secret_value "$SANDFLOW_NAMESPACE" sandflow-env SANDFLOW_SECRETS_KEY)"
  [[ -n "$secrets_key" ]] || secrets_key="$(head -c 32 /dev/urandom | base64 -w0)"
  db_password="$(secret_value "$DB_NAMESPACE" postgres POSTGRES_PASSWORD)"
  [[ -n "$db_password" ]] || die "no PostgreSQL password in secret $DB_NAMESPACE/postgres"
  kubectl -n "$SANDFLOW_NAMESPACE" create secret generic sandflow-env \
    --from-literal=SANDFLOW_JWT_SECRET="$jwt" \
    --from-literal=SANDFLOW_SECRETS_KEY="$secrets_key" \
    --from-literal=DATABASE_URL="postgresql://sandflow:${db_password}@postgres.${DB_NAMESPACE}.svc:5432/sandflow" \
    --dry-run=client -o yaml | kubectl apply -f -
  local values installed=0
  helm status "$RELEASE" --namespace "$SANDFLOW_NAMESPACE" >/dev/null 2>&1 && installed=1
  values="$(mktemp)"
  chart_values >"$values"
  # shellcheck disable=SC2086 # HELM_EXTRA_ARGS is a list of arguments on purpose
  helm upgrade --install "$RELEASE" "$CHART" --namespace "$SANDFLOW_NAMESPACE" \
    -f "$values" ${HELM_EXTRA_ARGS:-} --wait --timeout 10m
  rm -f "$values"
  # Again: a new image under the same tag, so the Pods must restart to run it. (Not on the first
  # install: its first API Pod's log holds the generated super admin password.)
  if [[ $installed == 1 ]]; then
    kubectl -n "$SANDFLOW_NAMESPACE" rollout restart deployment "$RELEASE-api" "$RELEASE-operator"
  fi
  kubectl -n "$SANDFLOW_NAMESPACE" rollout status deployment "$RELEASE-api" --timeout=300s
  kubectl -n "$SANDFLOW_NAMESPACE" rollout status deployment "$RELEASE-operator" --timeout=300s
}

apply_samples() {
  say "samples $SAMPLES"
  kubectl apply -f "$SAMPLES/namespaces.yaml"
  kubectl apply -f "$SAMPLES/"
  kubectl -n sf-demo wait --for=condition=Valid --timeout=120s \
    workflows.sandflow.io/0b9e4d3c-7a21-4f0e-8c6b-2e5d1a9f3b10
}

port_forward() {
  local url="http://localhost:${LOCAL_PORT}"
  local cmd=(kubectl --context "kind-$KIND_CLUSTER" -n "$SANDFLOW_NAMESPACE" port-forward "svc/$RELEASE" "${LOCAL_PORT}:80")
  if [[ "$PORT_FORWARD" != 1 ]]; then
    say "console: run  ${cmd[*]}  and open $url"
    return
  fi
  mkdir -p "$STATE_DIR"
  local pidfile="$STATE_DIR/port-forward.pid"
  # The previous run's port-forward (only if that pid is still one: it may have been reused).
  if [[ -f "$pidfile" ]] && ps -p "$(cat "$pidfile")" -o args= 2>/dev/null | grep -q 'port-forward'; then
    kill "$(cat "$pidfile")"
  fi
  nohup "${cmd[@]}" >"$STATE_DIR/port-forward.log" 2>&1 &
  echo $! >"$pidfile"
  say "console: $url  (kubectl port-forward, pid $(cat "$pidfile"), log $STATE_DIR/port-forward.log)"
}

main() {
  check_tools
  [[ -d "$CHART" && -d "$SAMPLES" && -f "$DOCKERFILE" ]] || die "run from a Sandflow checkout (no $CHART)"
  create_cluster
  install_argo
  install_postgres
  build_image
  install_chart
  apply_samples
  port_forward
  cat <<EOF

Sandflow is up on kind cluster $KIND_CLUSTER.
  Super admin: the first API Pod prints a generated password on the first install:
    kubectl -n $SANDFLOW_NAMESPACE logs -l app.kubernetes.io/component=api --tail=-1 | grep 'super admin created'
  The samples live in namespaces sf-demo and sf-demo-research: create organization "demo" with
  group "research" in the console to see them there.
  Runs: kubectl get runs.sandflow.io,workflows.argoproj.io -n sf-demo-research
  Tear down: hack/kind-down.sh
EOF
}

# Sourced (the tests read chart_values), nothing runs.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main "$@"
fi
