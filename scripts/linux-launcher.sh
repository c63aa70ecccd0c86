#!/bin/sh
# Starts the obsidian-mcp binary for this CPU. MCPB manifests can choose a
# command per operating system but not per CPU, so the Linux entry point is
# this launcher; exec keeps stdin and stdout the host's.
dir=$(dirname "$0")
case $(uname -m) in
x86_64 | amd64) exec "$dir/obsidian-mcp-amd64" "$@" ;;
aarch64 | arm64) exec "$dir/obsidian-mcp-arm64" "$@" ;;
*)
	echo "obsidian-mcp: no binary for $(uname -m) in this bundle; build one with go install github.com/obsidian-mcp/obsidian-mcp/cmd/obsidian-mcp@latest" >&2
	exit 1
	;;
esac
