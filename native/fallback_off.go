//go:build !fallback

package native

// fallbackBuild is set by the fallback build tag, which runs on Linux the
// code paths other systems take (no watcher here; no leases or name
// exchange in atomicfile), so that the code macOS runs is tested.
const fallbackBuild = false
