#!/usr/bin/env bash
# Set-up shared by `npm start` and `npm test`, safe to run every time: it only does what is missing.
# What only the tests need (the Python client's test tools) is in scripts/setup-test.sh, which `npm test`
# runs after this; `npm start` never installs it.
# Dependencies (npm ci, whose postinstall generates the Prisma client), the generated client when the
# schema changed, and Chromium, bubblewrap (the browser jail) and ffmpeg (session recordings) from Debian's packages.
# Database migrations run at start-up (embedded default) or through `npm run db:migrate:deploy`
# (PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."

# One line per step that ran, with how long it took: `vessel setup: <step> ...` then `vessel setup: <step>: done in 12.3 s`. Steps with
# nothing to do print nothing, so a second start is silent. npm and apt show their own progress.
step_started=0
step_name=""
step() {
  step_name="$1"
  step_started=$(date +%s%N)
  echo "vessel setup: ${step_name} ..."
}
done_step() {
  local ms=$((($(date +%s%N) - step_started) / 1000000))
  printf 'vessel setup: %s: done in %d.%01d s\n' "$step_name" $((ms / 1000)) $(((ms % 1000) / 100))
}

stamp=node_modules/.vessel-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  step "installing dependencies (npm ci)"
  # npm's own progress and its notices (not --loglevel=error): the longest step is not a silent one.
  npm ci --no-audit --no-fund --foreground-scripts
  touch "$stamp"
  done_step
fi

if [ ! -f src/generated/prisma/client.ts ] || [ prisma/schema.prisma -nt src/generated/prisma/client.ts ]; then
  step "generating the Prisma client"
  npx --no-install prisma generate >/dev/null
  done_step
fi

# The dashboard (React, built by Vite into dist/dashboard) when it is missing or older than its sources.
if [ ! -f dist/dashboard/index.html ] ||
  [ -n "$(find src/dashboard src/generated/gql -type f -newer dist/dashboard/index.html -print -quit)" ]; then
  step "building the dashboard"
  NODE_ENV=production npx --no-install vite build --config src/dashboard/vite.config.ts --logLevel warn
  done_step
fi

# The TypeScript client (the @vessel/client workspace: ES modules and CommonJS in clients/typescript/dist)
# for the examples run with tsx; the tests and the type check read its source and need no build.
if [ ! -f clients/typescript/dist/esm/index.js ] ||
  [ -n "$(find clients/typescript/src -type f -newer clients/typescript/dist/esm/index.js -print -quit)" ]; then
  step "building the TypeScript client (clients/typescript)"
  npm run -s build --workspace @vessel/client
  done_step
fi

# Debian's package lists, fetched once per run and only when a package is missing.
apt_updated=0
apt_update() {
  if [ "$apt_updated" = 0 ]; then
    apt-get update -q
    apt_updated=1
  fi
}

have_chromium() {
  command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1 ||
    [ -x /usr/lib/chromium/chromium-headless-shell ] || [ -x /usr/lib/chromium/chromium ]
}
if ! have_chromium; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing Chromium from Debian's packages"
    apt_update
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
    # The headless shell launches ~4x faster and idles ~180 MiB lighter; optional where unavailable.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium-headless-shell || true
    done_step
  else
    echo "vessel setup: Chromium is missing; install it with: sudo apt-get install chromium chromium-headless-shell" >&2
  fi
fi

# The browser jail (src/browser/jail/jail.ts, docs/threat-model.md): bubblewrap, and perl as the jail's
# egress forwarder (src/browser/jail/forwarder.ts; perl-base is Essential, so every Debian has it).
# Without them the node still starts (VESSEL_BROWSER_JAIL=auto) but warns loudly.
if [ ! -x /usr/bin/bwrap ] || [ ! -x /usr/bin/perl ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing bubblewrap and perl-base (the browser jail) from Debian's packages"
    apt_update
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap perl-base
    done_step
  else
    echo "vessel setup: bubblewrap or perl is missing, so browsers will run unjailed; install them with: sudo apt-get install bubblewrap perl-base" >&2
  fi
fi

# Session recordings (src/services/recordings): Debian's ffmpeg encodes the screen into MP4 (jailed like
# the browsers). Without it the node still starts; sessions created with `recording: true` then fail to record.
if [ ! -x /usr/bin/ffmpeg ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing ffmpeg (session recordings) from Debian's packages"
    apt_update
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ffmpeg
    done_step
  else
    echo "vessel setup: ffmpeg is missing, so session recordings will fail; install it with: sudo apt-get install ffmpeg" >&2
  fi
fi
