package authserver

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// usage is `obsidian-mcp oauth --help`.
const usage = `obsidian-mcp oauth: the built-in authorization server's approvals (serve --oauth).

Usage:
  obsidian-mcp oauth passphrase [--oauth-store FILE]   set the passphrase that approves clients (read from standard input)
  obsidian-mcp oauth grants [--oauth-store FILE]       list the clients you approved
  obsidian-mcp oauth revoke ID [--oauth-store FILE]    end an approval at once (its id, or its first 6 characters or more)

The store is --oauth-store (OBSIDIAN_MCP_OAUTH_STORE), by default oauth.json in
obsidian-mcp's folder of your configuration directory; a running serve sees a
change at its next request.
`

// Command is `obsidian-mcp oauth`: the owner's approvals, on the store
// (--oauth-store). It returns the exit status: 0 done, 1 failed, 2 bad
// usage.
func Command(args []string, getenv func(string) string, std Streams) int {
	fs := flag.NewFlagSet("oauth", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	store := fs.String("oauth-store", getenv("OBSIDIAN_MCP_OAUTH_STORE"), "")
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(std.Out, usage)
				return 0
			}
			fmt.Fprintf(std.Err, "obsidian-mcp oauth: %v\nobsidian-mcp oauth: see `obsidian-mcp oauth --help`\n", err)
			return 2
		}
		args = fs.Args()
		if len(args) > 0 {
			words, args = append(words, args[0]), args[1:]
		}
	}
	if len(words) == 0 {
		fmt.Fprint(std.Err, usage)
		return 2
	}
	s, err := OpenStoreFile(*store)
	if err != nil {
		fmt.Fprintf(std.Err, "obsidian-mcp oauth: %v\n", err)
		return 1
	}
	switch {
	case words[0] == "passphrase" && len(words) == 1:
		fmt.Fprintln(std.Err, "Type the passphrase that will approve clients on the consent page (four or more random words; a guessable one is refused), then Enter:")
		line, err := bufio.NewReader(std.In).ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(std.Err, "obsidian-mcp oauth passphrase: no passphrase was given on standard input")
			return 2
		}
		if err := s.SetPassphrase(strings.TrimRight(line, "\r\n")); err != nil {
			fmt.Fprintf(std.Err, "obsidian-mcp oauth passphrase: %v\n", err)
			return 2
		}
		fmt.Fprintln(std.Out, "The passphrase is set (stored hashed). Start `obsidian-mcp serve --oauth`.")
	case words[0] == "grants" && len(words) == 1:
		grants, names, err := s.Grants()
		if err != nil {
			fmt.Fprintf(std.Err, "obsidian-mcp oauth grants: %v\n", err)
			return 1
		}
		if len(grants) == 0 {
			fmt.Fprintln(std.Out, "No client is approved.")
			return 0
		}
		tw := tabwriter.NewWriter(std.Out, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tCLIENT\tSCOPES\tAPPROVED\tLAST USED")
		for _, g := range grants {
			var scopes []string
			for _, sc := range g.Scopes {
				if strings.HasPrefix(sc, "vault:") {
					scopes = append(scopes, sc)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.ID[:12], cmp.Or(names[g.ClientID], g.ClientID), strings.Join(scopes, " "), g.Created.Local().Format(time.DateTime), g.Used.Local().Format(time.DateTime))
		}
		_ = tw.Flush()
	case words[0] == "revoke" && len(words) == 2:
		g, err := s.Revoke(words[1])
		if err != nil {
			fmt.Fprintf(std.Err, "obsidian-mcp oauth revoke: %v\n", err)
			return 1
		}
		fmt.Fprintf(std.Out, "Revoked %s: its tokens are refused from the next request on.\n", g.ID[:12])
	default:
		fmt.Fprint(std.Err, usage)
		return 2
	}
	return 0
}

// Streams are a command's standard streams.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}
