package patch

import (
	"bytes"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// CleanTag turns a tag as a caller writes it ("#Area/home" or "area/home")
// into its name, or says, naming field, why it is no tag.
func CleanTag(field, tag string) (string, error) {
	name := strings.TrimPrefix(strings.TrimSpace(tag), "#")
	if msg := metadata.ValidTag(name); msg != "" {
		return "", errors.InvalidFields(errors.Field{Field: field, Message: msg})
	}
	return name, nil
}

// frontmatterTags is the note's tags property: its key as written ("" when
// it has none) and its tags.
func frontmatterTags(n *metadata.Note) (key string, tags []string) {
	for _, p := range n.Properties {
		if k := strings.ToLower(p.Key); k == "tags" || k == "tag" {
			key = p.Key
		}
	}
	for _, t := range n.Tags {
		if t.Line == 0 {
			tags = append(tags, t.Name)
		}
	}
	return key, tags
}

// setTags writes the tags property as a list, removing it when empty.
func setTags(content []byte, key string, tags []string) (Result, error) {
	if len(tags) == 0 {
		r, _, err := RemoveProperty(content, key)
		return r, err
	}
	if key == "" {
		key = "tags"
	}
	return SetProperty(content, key, List, tags)
}

// AddTags adds tags (names, see CleanTag) to the note's tags property,
// creating it (and the frontmatter) when needed. A tag the note already
// has, in its frontmatter or inline, in any case, is left out; added says
// which were added.
func AddTags(content []byte, tags []string) (r Result, added []string, err error) {
	r, err = underBOM(content, func(content []byte) (Result, error) {
		n := metadata.Parse(content)
		have := map[string]bool{}
		for _, t := range n.Tags {
			have[strings.ToLower(t.Name)] = true
		}
		key, list := frontmatterTags(n)
		for _, t := range tags {
			if !have[strings.ToLower(t)] {
				have[strings.ToLower(t)] = true
				list = append(list, t)
				added = append(added, t)
			}
		}
		if len(added) == 0 {
			return Result{Content: content}, nil
		}
		if out, ok := editInPlace(content, nil, added); ok {
			return Result{Content: out}, nil
		}
		return setTags(content, key, list)
	})
	return r, added, err
}

// RemoveTags removes tags from the note: from its tags property (removed
// when it empties) and every inline use (with one space beside it), never
// inside code. Tags match without case and exactly: removing #a leaves
// #a/b. removed counts the uses taken out.
func RemoveTags(content []byte, tags []string) (r Result, removed int, err error) {
	drop := map[string]bool{}
	for _, t := range tags {
		drop[strings.ToLower(t)] = true
	}
	r, err = underBOM(content, func(content []byte) (Result, error) {
		out := content
		spans := metadata.InlineTags(content)
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if !drop[strings.ToLower(s.Name)] {
				continue
			}
			from, to := s.Start, s.End
			if from > 0 && (out[from-1] == ' ' || out[from-1] == '\t') {
				from--
			} else if to < len(out) && out[to] == ' ' {
				to++
			}
			if isFence(out, from, to) {
				// The space stays: without it the line would become a
				// frontmatter fence ("--- #a" → "---") and change what
				// the note's properties are (found by fuzzing).
				from, to = s.Start, s.End
			}
			out = append(out[:from:from], out[to:]...)
			removed++
		}
		key, list := frontmatterTags(metadata.Parse(out))
		kept := list[:0:0]
		for _, t := range list {
			if drop[strings.ToLower(t)] {
				removed++
			} else {
				kept = append(kept, t)
			}
		}
		if len(kept) == len(list) {
			return Result{Content: out}, nil
		}
		if len(kept) > 0 {
			gone := func(it tagItem) (string, bool) { return "", drop[strings.ToLower(it.name)] }
			if edited, ok := editInPlace(out, gone, nil); ok {
				return Result{Content: edited}, nil
			}
		}
		return setTags(out, key, kept)
	})
	return r, removed, err
}

// RenameTag renames tag from to to in the note, in its tags property and
// inline (never inside code), nested tags included: renaming proj makes
// #proj/alpha #project/alpha. Names match without case. renamed counts
// the uses renamed.
func RenameTag(content []byte, from, to string) (r Result, renamed int, err error) {
	rename := func(name string) (string, bool) {
		switch {
		case strings.EqualFold(name, from):
			return to, true
		case len(name) > len(from) && name[len(from)] == '/' && strings.EqualFold(name[:len(from)], from):
			return to + name[len(from):], true
		}
		return "", false
	}
	r, err = underBOM(content, func(content []byte) (Result, error) {
		out := content
		spans := metadata.InlineTags(content)
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			written := string(content[s.Start+1 : s.End])
			if !strings.HasPrefix(written, s.Name) {
				continue // "#/x": not as Obsidian would write it
			}
			if name, ok := rename(s.Name); ok {
				at := s.Start + 1
				out = append(append(out[:at:at], name...), out[at+len(s.Name):]...)
				renamed++
			}
		}
		key, list := frontmatterTags(metadata.Parse(out))
		changed := false
		seen := map[string]bool{}
		var next []string
		for _, t := range list {
			if name, ok := rename(t); ok {
				t, changed = name, true
				renamed++
			}
			if !seen[strings.ToLower(t)] { // renaming may merge two tags
				seen[strings.ToLower(t)] = true
				next = append(next, t)
			}
		}
		if !changed {
			return Result{Content: out}, nil
		}
		have := map[string]bool{}
		renamed := func(it tagItem) (newName string, merged bool) {
			name := it.name
			if n, ok := rename(name); ok {
				newName, name = n, n
			}
			merged = have[strings.ToLower(name)] // renaming may merge two tags
			have[strings.ToLower(name)] = true
			return newName, merged
		}
		if edited, ok := editInPlace(out, renamed, nil); ok {
			return Result{Content: edited}, nil
		}
		return setTags(out, key, next)
	})
	return r, renamed, err
}

// isFence reports whether cutting out[from:to] leaves its line exactly
// "---", the frontmatter's fence.
func isFence(out []byte, from, to int) bool {
	start := bytes.LastIndexByte(out[:from], '\n') + 1
	end, ended := len(out), false
	if i := bytes.IndexByte(out[to:], '\n'); i >= 0 {
		end, ended = to+i, true
	}
	line := append(append([]byte{}, out[start:from]...), out[to:end]...)
	return note.IsFence(line, ended)
}
