package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// codeSpan is inline code and fenced blocks, whose text is never a link.
var codeSpan = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")

// editSession edits the example vault at vault through the server as a
// person's assistant would: read, append, patch under a heading, set a
// property, create a note, rename a note many link to, move a folder,
// search, delete; every call must succeed. Then every link that resolved
// before still resolves (the unresolved links are the same), no link
// names the old note any more, and the renamed note's backlinks are all
// there. It returns how many edits it made.
func editSession(send func(string), await func(string) (map[string]json.RawMessage, error), vault string) (int, error) {
	id := 100
	call := func(tool string, args map[string]any) (string, error) {
		id++
		params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params))
		msg, err := await(fmt.Sprint(id))
		if err != nil {
			return "", fmt.Errorf("%s: %v", tool, err)
		}
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(msg["result"], &res); err != nil {
			return "", fmt.Errorf("%s: %v", tool, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			text.WriteString(c.Text)
		}
		if res.IsError {
			return "", fmt.Errorf("%s %v failed: %s", tool, args, text.String())
		}
		return text.String(), nil
	}
	unresolved := func() ([]string, error) {
		out, err := call("obsidian_list_unresolved_links", map[string]any{"limit": 100})
		if err != nil {
			return nil, err
		}
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				got = append(got, l)
			}
		}
		slices.Sort(got)
		return got, nil
	}
	before, err := unresolved()
	if err != nil {
		return 0, err
	}
	edits := []struct {
		tool string
		args map[string]any
		want string // in the answer, when set
	}{
		{"obsidian_read_note", map[string]any{"path": "Welcome.md"}, "# Welcome"},
		{"obsidian_append_to_note", map[string]any{"path": "Welcome.md", "content": "Appended through the bundle."}, ""},
		{"obsidian_patch_note", map[string]any{"path": "Welcome.md", "operation": "append", "heading": "Welcome", "content": "Patched under the heading."}, ""},
		{"obsidian_set_property", map[string]any{"path": "Projects/Garden Plan.md", "key": "checked", "value": "yes"}, ""},
		{"obsidian_create_note", map[string]any{"path": "Inbox/New.md", "content": "See [[Website Redesign]] and [[Ana Lima]].\n"}, ""},
		{"obsidian_rename_note", map[string]any{"path": "Projects/Website Redesign.md", "new_name": "Site Redesign"}, ""},
		{"obsidian_folder", map[string]any{"operation": "move", "folder": "People", "to": "Contacts"}, ""},
		{"obsidian_search_notes", map[string]any{"query": "Appended through the bundle"}, "Welcome.md"},
		{"obsidian_get_backlinks", map[string]any{"path": "Projects/Site Redesign.md"}, "Inbox/New.md"},
		{"obsidian_delete_note", map[string]any{"path": "Inbox/New.md"}, ""},
		{"obsidian_read_note", map[string]any{"path": "Welcome.md"}, "Patched under the heading."},
	}
	for _, e := range edits {
		out, err := call(e.tool, e.args)
		if err != nil {
			return 0, err
		}
		if e.want != "" && !strings.Contains(out, e.want) {
			return 0, fmt.Errorf("%s %v answered without %q:\n%s", e.tool, e.args, e.want, out)
		}
	}
	after, err := unresolved()
	if err != nil {
		return 0, err
	}
	if !slices.Equal(before, after) {
		return 0, fmt.Errorf("unresolved links before the edits:\n%v\nafter:\n%v", before, after)
	}
	// On disk: no link names the old note, and no note is left at an old
	// place.
	var stale []string
	err = filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		// Code is not a link: "`[[Website Redesign]]`" stays as written.
		if err == nil && strings.Contains(codeSpan.ReplaceAllString(string(data), ""), "[[Website Redesign") {
			stale = append(stale, p)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	if len(stale) > 0 {
		return 0, fmt.Errorf("links to the renamed note left in %v", stale)
	}
	for _, gone := range []string{"Projects/Website Redesign.md", "People", "Inbox/New.md"} {
		if _, err := os.Stat(filepath.Join(vault, gone)); err == nil {
			return 0, fmt.Errorf("%s is still there after the edits", gone)
		}
	}
	return len(edits), nil
}
