package httpapi

import (
	"net"
	"slices"
	"strings"
)

// ReachableURL is the /mcp URL of a listener, with a loopback address in
// place of an unspecified one (0.0.0.0, ::), which cannot be dialled.
func ReachableURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/mcp"
	}
	// A listener on every address (0.0.0.0, which Go opens as a
	// dual-stack [::]) is reached here on 127.0.0.1, which every Host
	// check accepts; [::1] would not pass the gateway's default
	// allowed_hosts.
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}

// Loopback reports whether host:port listens on this machine only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// BrowserReach says which browser pages get CORS: those of loopback
// origins always, plus the configured origins; star is how the setting
// allowing any origin is written.
func BrowserReach(origins []string, star string) string {
	switch {
	case slices.Contains(origins, "*"):
		return "browser pages from any origin (" + star + ")"
	case len(origins) > 0:
		return "browser pages from loopback origins and " + strings.Join(origins, ", ")
	}
	return "browser pages from loopback origins only"
}
