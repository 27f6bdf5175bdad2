#!/usr/bin/env bash
# Installs Debian's Chromium for the incidents page in a real browser (src/e2e/incidents-page.test.ts, issue 44).
# Run as root on Debian, after scripts/real-components.sh (one apt at a time); .ci/run runs it in the background
# while the tests run, and the test waits for it. Nothing is done when Chromium is there.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  echo "browser: chromium is installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "browser: chromium missing; run this script as root on Debian (apt-get)" >&2
  exit 1
fi
started=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
echo "browser: installed chromium in $(($(date +%s) - started)) s"
