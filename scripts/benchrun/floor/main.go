// Command floor is the start-up floor scripts/bench measures against: the
// least a Go program can do to answer initialize over stdio. It reads one
// line, writes one answer, and waits for end of input.
package main

import (
	"bufio"
	"io"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadBytes('\n'); err != nil {
		os.Exit(1)
	}
	// The id is the driver's: 1, as in every start it times.
	_, _ = os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"floor","version":"0"}}}` + "\n")
	_, _ = io.Copy(io.Discard, in)
}
