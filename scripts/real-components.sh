#!/usr/bin/env bash
# Installs the real components the tests prove mon against (issue 34; docs/providers/README.md): Debian's
# prometheus-alertmanager (Alertmanager), prometheus (Prometheus and promtool) and opensmtpd (a mail transfer
# agent), what the real Kubernetes control plane of ../shared/kube needs to start (xz-utils, openssl, curl;
# issue 40), unzip for Helm and kubectl (scripts/kube-tools.sh, issue 43), and what the real node needs
# (containerd, runc, the CNI plugins, busybox-static; issue 50). Chromium has its own script
# (scripts/browser.sh), which .ci/run runs while the tests run. Run as root on Debian, as .ci/run does; what is installed already is left alone, and OpenSMTPD is not
# installed over another mail transfer agent (Debian keeps one). Their services are not started: the tests
# start them on loopback. Without them the real-component tests are skipped, and say so, outside CI.
set -euo pipefail
missing=()
command -v prometheus-alertmanager >/dev/null 2>&1 || command -v alertmanager >/dev/null 2>&1 ||
  missing+=(prometheus-alertmanager)
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then missing+=(prometheus); fi
if [ ! -x /usr/sbin/smtpd ]; then
  if [ -e /usr/sbin/sendmail ]; then
    echo "real components: another mail transfer agent is installed; OpenSMTPD is left out" >&2
  else
    missing+=(opensmtpd)
  fi
fi
for tool in xz:xz-utils openssl:openssl curl:curl unzip:unzip; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
# The real node of ../shared/kube/node (issue 50): a kubelet's container runtime, its CNI plugins, the busybox
# its local images are made of, iproute2 for its bridge.
for tool in containerd:containerd runc:runc ip:iproute2; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
dpkg -s busybox-static >/dev/null 2>&1 || missing+=(busybox-static)
if [ ${#missing[@]} -eq 0 ]; then
  echo "real components: nothing to install"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "real components: ${missing[*]} missing; run this script as root on Debian (apt-get)" >&2
  exit 1
fi
started=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
# The packages' own services are not started: the tests start the servers on loopback themselves.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "${policy}" ]; then
  printf '#!/bin/sh\nexit 101\n' > "${policy}" && chmod +x "${policy}" && own_policy=1
fi
trap '[ "${own_policy}" -eq 1 ] && rm -f "${policy}"' EXIT
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "real components: installed ${missing[*]} in $(($(date +%s) - started)) s"
