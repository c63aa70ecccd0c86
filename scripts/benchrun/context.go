package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultgen"
)

// What a model pays for: the tool list it reads before the user asks
// anything, and the answers of a typical session. An answer reaches the
// model as its text blocks (Claude Desktop, ChatGPT) or, when it has one,
// as its structured content (Claude Code, VS Code): both are counted, and
// the bytes on the wire. Tokens are bytes/4, the usual rough measure.

// step is one call of the session: what it does, the tool and arguments,
// or an empty tool when the server has nothing that does it.
type step struct {
	what string
	tool string
	args any
}

// contextServer is a server and its session.
type contextServer struct {
	name    string
	argv    []string
	session []step
}

// contextResult is one server's figures, in bytes.
type contextResult struct {
	Server     string `json:"server"`
	Tools      int    `json:"tools"`
	ToolsList  int    `json:"tools_list_bytes"`
	Wire       int    `json:"session_wire_bytes"`
	Text       int    `json:"session_text_bytes"`
	Structured int    `json:"session_structured_first_bytes"`
	Calls      int    `json:"calls"`
	Missing    int    `json:"calls_without_a_tool"`
}

// contextSession is the typical session: two searches, five reads (a
// note a search leads to, and four ordinary notes of the vault, 2-9 KB), a
// folder listed, a note created, added to and read back.
func contextSession(qs []vaultgen.Query, notes []string, search func(q string) step, read func(p string) step, list func(folder string) step,
	create func(p, content string) step, add func(p, text string) step) []step {
	const created = "From the session.md" // at the root: server-filesystem cannot make folders
	return []step{
		search(qs[0].Query), read(qs[0].Expect), read(notes[0]), list(path.Dir(notes[0])),
		search(qs[2].Query), read(notes[1]), create(created, "# From the session\n\nA summary of what was found.\n"),
		add(created, "- one more finding"), read(notes[2]), read(notes[3]),
	}
}

// sessionNotes are four ordinary notes of a vaultgen vault, the same in
// every copy (the vault is generated from one seed).
func sessionNotes(dir string) ([]string, error) {
	var all []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil || len(all) < 400 {
		return nil, fmt.Errorf("the vault has %d notes, want 400 or more: %v", len(all), err)
	}
	sort.Strings(all)
	return []string{all[100], all[200], all[300], all[len(all)-100]}, nil
}

func contextServers(dir, bin, peers string, qs []vaultgen.Query, notes []string) []contextServer {
	ours := contextServer{name: "obsidian-mcp (native)", argv: []string{filepath.Join(bin, "obsidian-mcp"), "--backend", "native", "--vault-path", dir}}
	ours.session = contextSession(qs, notes,
		func(q string) step {
			return step{"search", "obsidian_search_notes", map[string]any{"query": q, "limit": 10}}
		},
		func(p string) step { return step{"read", "obsidian_read_note", map[string]any{"path": p}} },
		func(f string) step { return step{"list", "obsidian_list_files", map[string]any{"folder": f}} },
		func(p, c string) step {
			return step{"create", "obsidian_create_note", map[string]any{"path": p, "content": c}}
		},
		func(p, c string) step {
			return step{"append", "obsidian_append_to_note", map[string]any{"path": p, "content": c}}
		})
	list := []contextServer{ours}
	if peers == "" {
		return list
	}
	node := func(script string) []string { return []string{"node", filepath.Join(peers, script), dir} }
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	mcpvault := contextServer{name: "mcpvault 0.16.0", argv: node("@bitbonsai/mcpvault/dist/server.js")}
	mcpvault.session = contextSession(qs, notes,
		func(q string) step { return step{"search", "search_notes", map[string]any{"query": q, "limit": 10}} },
		func(p string) step { return step{"read", "read_note", map[string]any{"path": p}} },
		func(f string) step { return step{"list", "list_directory", map[string]any{"path": f}} },
		func(p, c string) step { return step{"create", "write_note", map[string]any{"path": p, "content": c}} },
		func(p, c string) step {
			return step{"append", "write_note", map[string]any{"path": p, "content": c, "mode": "append"}}
		})
	files := contextServer{name: "server-filesystem 2026.8.31", argv: node("@modelcontextprotocol/server-filesystem/dist/index.js")}
	files.session = contextSession(qs, notes,
		// Its search matches file names only: the nearest it has.
		func(q string) step {
			return step{"search", "search_files", map[string]any{"path": dir, "pattern": "**/*" + firstWord(q) + "*"}}
		},
		func(p string) step { return step{"read", "read_text_file", map[string]any{"path": abs(p)}} },
		func(f string) step { return step{"list", "list_directory", map[string]any{"path": abs(f)}} },
		func(p, c string) step {
			return step{"create", "write_file", map[string]any{"path": abs(p), "content": c}}
		},
		func(p, c string) step { return step{what: "append"} }) // edit_file replaces text: no append
	vault := filepath.Base(dir)
	split := func(p string) (string, string) { return path.Dir(p), path.Base(p) }
	old := contextServer{name: "obsidian-mcp 1.0.6", argv: node("obsidian-mcp/build/main.js")}
	old.session = contextSession(qs, notes,
		func(q string) step {
			return step{"search", "search-vault", map[string]any{"vault": vault, "query": q, "searchType": "content"}}
		},
		func(p string) step {
			f, n := split(p)
			return step{"read", "read-note", map[string]any{"vault": vault, "folder": f, "filename": n}}
		},
		func(string) step { return step{what: "list"} }, // no listing tool
		func(p, c string) step {
			f, n := split(p)
			return step{"create", "create-note", map[string]any{"vault": vault, "folder": f, "filename": n, "content": c}}
		},
		func(p, c string) step {
			f, n := split(p)
			return step{"append", "edit-note", map[string]any{"vault": vault, "folder": f, "filename": n, "operation": "append", "content": c}}
		})
	return append(list, mcpvault, files, old)
}

func firstWord(q string) string {
	for i, r := range q {
		if r == ' ' {
			return q[:i]
		}
	}
	return q
}

// contextBench runs each server's session on a fresh copy of a vaultgen
// vault of n notes (each session writes) and reports what it costs.
func contextBench(work, bin, peers string, n int, w io.Writer) ([]contextResult, error) {
	qs, err := vaultgen.Queries()
	if err != nil {
		return nil, err
	}
	var out []contextResult
	for i := range 4 {
		dir := filepath.Join(work, fmt.Sprintf("context-vault-%d-%d", n, i))
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if _, err := vaultgen.Generate(dir, n, 1); err != nil {
			return nil, err
		}
		notes, err := sessionNotes(dir)
		if err != nil {
			return nil, err
		}
		servers := contextServers(dir, bin, peers, qs, notes)
		if i >= len(servers) {
			break
		}
		r, err := runContext(servers[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", servers[i].name, err)
		}
		out = append(out, r)
	}
	contextReport(w, n, out)
	return out, nil
}

func runContext(s contextServer) (contextResult, error) {
	r := contextResult{Server: s.name}
	c, err := dial(server{argv: s.argv})
	if err != nil {
		return r, err
	}
	defer c.close()
	if _, err := c.call(1, initialize); err != nil {
		return r, err
	}
	if err := c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return r, err
	}
	resp, err := c.call(2, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err != nil {
		return r, err
	}
	var list struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(resp, &list); err != nil {
		return r, err
	}
	var tools struct{ Tools []json.RawMessage }
	_ = json.Unmarshal(list.Result, &tools)
	r.ToolsList, r.Tools = len(list.Result), len(tools.Tools)
	id := 2
	for _, st := range s.session {
		if st.tool == "" {
			r.Missing++
			continue
		}
		id++
		_, resp, err := timedCall(c, id, st.tool, st.args)
		if err != nil {
			return r, fmt.Errorf("%s (%s): %w", st.what, st.tool, err)
		}
		var m struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				Structured json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(resp, &m); err != nil {
			return r, err
		}
		text := 0
		for _, b := range m.Result.Content {
			text += len(b.Text)
		}
		r.Calls++
		r.Wire += len(resp)
		r.Text += text
		if len(m.Result.Structured) > 0 && string(m.Result.Structured) != "null" {
			r.Structured += len(m.Result.Structured)
		} else {
			r.Structured += text
		}
	}
	time.Sleep(50 * time.Millisecond)
	return r, nil
}

func contextReport(w io.Writer, n int, res []contextResult) {
	fmt.Fprintf(w, "\n### What a model pays for, %d-note vault\n\n", n)
	fmt.Fprintln(w, "Tokens ≈ bytes/4. The session: 2 searches, 5 reads, 1 folder listing, 1 create, 1 append (10 calls).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| server | tools | tools/list | session, text blocks (Claude Desktop) | session, structured first (Claude Code) | session on the wire | calls it has no tool for |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	tok := func(b int) string { return fmt.Sprintf("%d (%.1f KB)", (b+3)/4, float64(b)/1024) }
	for _, r := range res {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d |\n", r.Server, r.Tools, tok(r.ToolsList), tok(r.Text), tok(r.Structured), tok(r.Wire), r.Missing)
	}
}
