//go:build !unix

package gateway

import "testing"

func stoppedAfterProbe(*testing.T, int) {}
