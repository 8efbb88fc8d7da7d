#!/usr/bin/env bash
# Set-up only the tests need, run by `npm test` after scripts/setup.sh (never by `npm start`): the
# Python client's tests (test/e2e/python-client.test.ts) use Debian's python3 with venv, setuptools
# (the package's build backend, offline) and pytest. Nothing comes from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! /usr/bin/python3 -c "import venv, ensurepip, setuptools, pytest" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    started=$(date +%s)
    echo "vessel setup (tests): installing python3, python3-venv, python3-setuptools and python3-pytest from Debian's packages ..."
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv python3-setuptools python3-pytest
    echo "vessel setup (tests): Python test tools: done in $(($(date +%s) - started)) s"
  else
    echo "vessel setup (tests): the Python client's tests need: sudo apt-get install python3 python3-venv python3-setuptools python3-pytest" >&2
  fi
fi
