package app

import (
	"runtime/debug"
	"strings"
)

// Version is the release this source is: manifest.json's version, which a
// test holds them to. Every way of building reports it (make build and
// the bundle stamp it with -ldflags, go install finds it here), so one
// commit has one version; a release tag v<Version> says the same.
const Version = "0.1.0"

// resolveVersion is the version this binary reports: the one stamped at
// build time, else a release tag go install was given (v0.1.0 → 0.1.0),
// else Version.
func resolveVersion(stamped string) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v, ok := strings.CutPrefix(bi.Main.Version, "v"); ok && isRelease(v) {
			return v
		}
	}
	return Version
}

// isRelease reports a plain major.minor.patch version: not a
// pseudo-version (0.0.0-20261127…-0be7482…), which names a commit and not
// a release.
func isRelease(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
