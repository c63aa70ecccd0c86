package note

import (
	"crypto/sha256"
	"encoding/hex"
)

// ETag identifies one version of a note's content: the first 128 bits of
// its SHA-256, in hex. Every backend computes it from the exact bytes, so
// an etag read through one backend holds for a write through the other.
func ETag(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:16])
}
