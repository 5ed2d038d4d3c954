#!/bin/sh
# Render a kustomization (default: app/ beside this script) with kubectl's built-in
# kustomize and the TrainJobGenerator plugin in plugin/; prints the manifests.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
KUSTOMIZE_PLUGIN_HOME="$here/plugin" exec kubectl kustomize --enable-alpha-plugins "${1:-$here/app}"
