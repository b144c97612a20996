#!/usr/bin/env bash
# What the README's test command needs beyond Rust and the Vulkan driver, installed from Debian
# where it is missing: EGL and Mesa's GL drivers, Chromium (tests/record.rs records a page in it), Node and npm (tools/tint validates every shader wgstress writes with
# Tint; Debian's Node 18 runs it as Node 20 does) and python3's venv (tests/deploy.rs installs
# the Kubernetes schema validator into one). Installs nothing that is already there; without
# root it names what is missing and stops.
set -euo pipefail
missing=()
command -v npm >/dev/null || missing+=(nodejs npm)
# Chromium: `wgstress record --browser` records web pages in it (tests/record.rs).
command -v chromium >/dev/null || missing+=(chromium)
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
# EGL and Mesa's GL drivers: tests/backends.rs runs the bundled applications on llvmpipe
# through wgpu's GL backend.
dpkg -s libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null 2>&1 || missing+=(libegl1 libegl-mesa0 libgl1-mesa-dri)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "test-deps: the tests need ${missing[*]}: apt-get install ${missing[*]} as root, then run the command again" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash "$(dirname "$0")/record/mesa.sh"
