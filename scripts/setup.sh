#!/usr/bin/env bash
# Set-up shared by `npm start` and `npm test`, safe to run every time: it only does what is missing.
# Dependencies (npm ci, whose postinstall generates the Prisma client), the generated client when the
# schema changed, and Chromium, bubblewrap (the browser jail) and ffmpeg (session recordings) from Debian's packages.
# Database migrations run at start-up (embedded default) or through `npm run db:migrate:deploy`
# (PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.vessel-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "vessel setup: installing dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi

if [ ! -f src/generated/prisma/client.ts ] || [ prisma/schema.prisma -nt src/generated/prisma/client.ts ]; then
  echo "vessel setup: generating the Prisma client"
  npx --no-install prisma generate >/dev/null
fi

# The dashboard (React, built by Vite into dist/dashboard) when it is missing or older than its sources.
if [ ! -f dist/dashboard/index.html ] ||
  [ -n "$(find src/dashboard src/generated/gql -type f -newer dist/dashboard/index.html -print -quit)" ]; then
  echo "vessel setup: building the dashboard"
  NODE_ENV=production npx --no-install vite build --config src/dashboard/vite.config.ts
fi

# The TypeScript client (the @vessel/client workspace: ES modules and CommonJS in clients/typescript/dist)
# for the examples run with tsx; the tests and the type check read its source and need no build.
if [ ! -f clients/typescript/dist/esm/index.js ] ||
  [ -n "$(find clients/typescript/src -type f -newer clients/typescript/dist/esm/index.js -print -quit)" ]; then
  echo "vessel setup: building the TypeScript client (clients/typescript)"
  npm run -s build --workspace @vessel/client
fi

have_chromium() {
  command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1 ||
    [ -x /usr/lib/chromium/chromium-headless-shell ] || [ -x /usr/lib/chromium/chromium ]
}
if ! have_chromium; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "vessel setup: installing Chromium from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    # The headless shell launches ~4x faster and idles ~180 MiB lighter; optional where unavailable.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 || true
  else
    echo "vessel setup: Chromium is missing; install it with: sudo apt-get install chromium chromium-headless-shell" >&2
  fi
fi

# The browser jail (src/browser/jail/jail.ts, docs/threat-model.md): bubblewrap, and perl as the jail's
# egress forwarder (src/browser/jail/forwarder.ts; perl-base is Essential, so every Debian has it).
# Without them the node still starts (VESSEL_BROWSER_JAIL=auto) but warns loudly.
if [ ! -x /usr/bin/bwrap ] || [ ! -x /usr/bin/perl ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "vessel setup: installing bubblewrap and perl-base (the browser jail) from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap perl-base >/dev/null
  else
    echo "vessel setup: bubblewrap or perl is missing, so browsers will run unjailed; install them with: sudo apt-get install bubblewrap perl-base" >&2
  fi
fi

# Session recordings (src/services/recordings): Debian's ffmpeg encodes the screen into MP4 (jailed like
# the browsers). Without it the node still starts; sessions created with `recording: true` then fail to record.
if [ ! -x /usr/bin/ffmpeg ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "vessel setup: installing ffmpeg (session recordings) from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null
  else
    echo "vessel setup: ffmpeg is missing, so session recordings will fail; install it with: sudo apt-get install ffmpeg" >&2
  fi
fi

# The Python client's tests (test/e2e/python-client.test.ts): Debian's python3 with venv, setuptools
# (the package's build backend, offline) and pytest. Nothing comes from PyPI.
if ! /usr/bin/python3 -c "import venv, ensurepip, setuptools, pytest" >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "vessel setup: installing python3, python3-venv, python3-setuptools and python3-pytest from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-setuptools python3-pytest >/dev/null
  else
    echo "vessel setup: the Python client's tests need: sudo apt-get install python3 python3-venv python3-setuptools python3-pytest" >&2
  fi
fi
