//go:build fallback

package native

// fallbackBuild: see fallback_off.go.
const fallbackBuild = true
