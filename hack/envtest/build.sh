#!/usr/bin/env bash
# Build the envtest binaries from Go modules into .cache/envtest/bin/:
#   kube-apiserver, kube-controller-manager, etcd   (module hack/envtest)
#   helm, kubeconform                               (module hack/envtest/tools)
# A binary whose stamp matches the pinned version (and Go toolchain) is skipped.
#
# Usage: hack/envtest/build.sh [all|core|tools|kube-apiserver|kube-controller-manager|etcd|helm|kubeconform]...
#   default: core (kube-apiserver, kube-controller-manager and etcd)
# Env:   ENVTEST_BIN_DIR  output folder (default <repo>/.cache/envtest/bin)
#        ENVTEST_NICE     nice level for go build (default 10; the machine is shared)
#        ENVTEST_FORCE=1  rebuild even when the stamp matches
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${ENVTEST_BIN_DIR:-$root/.cache/envtest/bin}"
nice_level="${ENVTEST_NICE:-10}"
mkdir -p "$bin"
# One build at a time per output folder (two runs at once would both rebuild).
exec 9>"$bin/.build.lock"
flock 9

if ! command -v go >/dev/null 2>&1; then
  echo "envtest build: 'go' is not on PATH" >&2
  exit 3
fi
go_version="$(go env GOVERSION)"

# Pinned versions: read from the go.mod files so there is one source of truth.
modver() { # modver <go.mod> <module path>
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$1"
}
k8s_version="$(modver "$here/go.mod" k8s.io/kubernetes)"
etcd_version="$(modver "$here/go.mod" go.etcd.io/etcd/server/v3)"
helm_version="$(modver "$here/tools/go.mod" helm.sh/helm/v3)"
kubeconform_version="$(modver "$here/tools/go.mod" github.com/yannh/kubeconform)"

k8s_minor="${k8s_version#v}"; k8s_minor="${k8s_minor#*.}"; k8s_minor="${k8s_minor%%.*}"
# Stamp the version that `kube-apiserver --version` and GET /version report
# (otherwise v0.0.0-master+$Format:%H$, which confuses clients and kubectl).
k8s_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$k8s_minor"
  k8s_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
kubeconform_ldflags="-s -w"

build_one() { # build_one <name> <module dir> <package> <version> <ldflags>
  local name="$1" dir="$2" pkg="$3" version="$4" ldflags="$5"
  local want="$name $version $go_version $(sha256sum "$dir/go.sum" | cut -c1-16)"
  local stamp="$bin/.$name.stamp"
  if [[ "${ENVTEST_FORCE:-}" != 1 && -x "$bin/$name" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "envtest build: $name $version already built, skipping (0s)"
    return 0
  fi
  echo "envtest build: building $name $version with $go_version ..."
  local start=$SECONDS
  rm -f "$stamp"
  # -trimpath keeps the module cache path out of the binary; CGO off gives a
  # static binary, like the upstream release builds. GOFLAGS=-mod=readonly:
  # go.mod/go.sum are the pin, never rewritten by a build.
  (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=readonly nice -n "$nice_level" \
    go build -trimpath -ldflags "$ldflags" -o "$bin/$name.tmp" "$pkg")
  mv -f "$bin/$name.tmp" "$bin/$name"
  echo "$want" >"$stamp"
  echo "envtest build: $name $version built in $((SECONDS - start))s"
}

targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(core)
total_start=$SECONDS
for t in "${targets[@]}"; do
  case "$t" in
    all) set -- kube-apiserver kube-controller-manager etcd helm kubeconform ;;
    core) set -- kube-apiserver kube-controller-manager etcd ;;
    tools) set -- helm kubeconform ;;
    kube-apiserver | kube-controller-manager | etcd | helm | kubeconform) set -- "$t" ;;
    *) echo "envtest build: unknown target '$t'" >&2; exit 2 ;;
  esac
  for name in "$@"; do
    case "$name" in
      kube-apiserver) build_one kube-apiserver "$here" k8s.io/kubernetes/cmd/kube-apiserver "$k8s_version" "$k8s_ldflags" ;;
      kube-controller-manager) build_one kube-controller-manager "$here" k8s.io/kubernetes/cmd/kube-controller-manager "$k8s_version" "$k8s_ldflags" ;;
      etcd) build_one etcd "$here" go.etcd.io/etcd/server/v3 "$etcd_version" "-s -w" ;;
      helm) build_one helm "$here/tools" helm.sh/helm/v3/cmd/helm "$helm_version" "$helm_ldflags" ;;
      kubeconform) build_one kubeconform "$here/tools" github.com/yannh/kubeconform/cmd/kubeconform "$kubeconform_version" "$kubeconform_ldflags" ;;
    esac
  done
done
echo "envtest build: done in $((SECONDS - total_start))s -> $bin"
