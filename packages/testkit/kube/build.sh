#!/usr/bin/env bash
# Builds the test Kubernetes control plane from Go modules pinned in the three small modules beside
# this file: kube-apiserver, kube-controller-manager, kube-scheduler and kubectl (k8s.io/kubernetes), etcd
# (go.etcd.io/etcd/server/v3) and kwok (sigs.k8s.io/kwok). The binaries go to a cache directory
# keyed by the modules' go.mod/go.sum, so a second run (and CI on the same machine) reuses them.
# Prints the bin directory on its last line.
#
#   bash packages/testkit/kube/build.sh     # BERTH_KUBE_CACHE overrides ~/.cache/berth-kube
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${BERTH_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/berth-kube}
k8s_version=$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3}' "$here/control-plane/go.mod")
key=$(cat "$here"/*/go.mod "$here"/*/go.sum "$0" | sha256sum | cut -c1-16)
bin="$cache/$k8s_version-$key/bin"
tools=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok)

have_all() {
  local t
  for t in "${tools[@]}"; do [ -x "$bin/$t" ] || return 1; done
}
if have_all; then
  echo "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  echo "build.sh: the Go toolchain is needed to build the test Kubernetes control plane" >&2
  exit 1
}
mkdir -p "$cache"
# One build at a time per cache (two test runs starting together would race on the same files).
exec 9>"$cache/.build.lock"
flock 9
if have_all; then
  echo "$bin"
  exit 0
fi
staging="$bin.partial"
rm -rf "$staging"
mkdir -p "$staging"
started=$SECONDS
log() { printf '[kube build %3ds] %s\n' "$((SECONDS - started))" "$*" >&2; }

# The version a `kubectl version` and the API server's /version report; without it they say
# v0.0.0-master, which clients treat as an unknown (and skewed) release.
minor=$(echo "$k8s_version" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version \
  -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
  -X k8s.io/component-base/version.gitTreeState=clean"
export CGO_ENABLED=0 GOFLAGS=-mod=mod
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  log "building $cmd ($k8s_version)"
  (cd "$here/control-plane" && go build -trimpath -ldflags "$ldflags" -o "$staging/$cmd" "k8s.io/kubernetes/cmd/$cmd")
done
log "building etcd"
(cd "$here/etcd" && go build -trimpath -ldflags "-s -w" -o "$staging/etcd" go.etcd.io/etcd/server/v3)
log "building kwok"
(cd "$here/kwok" && go build -trimpath -ldflags "-s -w" -o "$staging/kwok" sigs.k8s.io/kwok/cmd/kwok)
# kwok's own volume stages (a StorageClass whose claims kwok provisions and binds), from its module.
kwok_dir=$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
mkdir -p "$staging/kwok-volume"
cp "$kwok_dir"/kustomize/stage/volume/fast/{storage-class,pv-bind,pv-delete,pvc-provision,pvc-delete}.yaml "$staging/kwok-volume/"
rm -rf "$bin"
mv "$staging" "$bin"
log "done: $bin"
echo "$bin"
