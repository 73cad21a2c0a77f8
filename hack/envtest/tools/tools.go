//go:build tools

// Package tools records the commands this module builds, so that
// `go mod tidy` keeps their dependencies in go.mod and go.sum.
package tools

import (
	_ "github.com/yannh/kubeconform/cmd/kubeconform"
	_ "helm.sh/helm/v3/cmd/helm"
)
