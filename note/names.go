package note

import (
	"fmt"
	"strings"
)

// The names a tool may give a new file or folder: those Obsidian accepts
// on every platform it runs on, since a vault moves between them (sync,
// git, a copied folder). Create, move, rename and the folder operations
// all check them here, so that none accepts a name another refuses.

// MaxFileNameBytes bounds a new file's name: a note is written as a
// temporary file ".<name>.tmp-<12 characters>" beside it, 18 bytes longer,
// and a name of 255 bytes is the limit of every common file system (names
// of 238 to 255 bytes were once accepted, and then failed as an internal
// error).
const MaxFileNameBytes = MaxNameBytes - len(".") - len(".tmp-") - 12

// hiddenRunes are characters that change how a name is shown, not what
// it holds: bidirectional controls (a right-to-left override shows
// "txt.exe" as "exe.txt") and zero-width ones (two names that look the
// same). A name holding one is refused, naming it.
var hiddenRunes = map[rune]string{
	'\u061C': "an Arabic letter mark", '\u200E': "a left-to-right mark", '\u200F': "a right-to-left mark",
	'\u202A': "a left-to-right embedding", '\u202B': "a right-to-left embedding", '\u202C': "a pop directional formatting",
	'\u202D': "a left-to-right override", '\u202E': "a right-to-left override",
	'\u2066': "a left-to-right isolate", '\u2067': "a right-to-left isolate", '\u2068': "a first strong isolate", '\u2069': "a pop directional isolate",
	'\u200B': "a zero-width space", '\u200C': "a zero-width non-joiner", '\u200D': "a zero-width joiner",
	'\u2060': "a word joiner", '\uFEFF': "a zero-width no-break space",
}

// reservedNames are the device names Windows reserves, whatever their
// extension ("CON.md", "aux.txt.md") and case.
var reservedNames = func() map[string]bool {
	m := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true}
	for _, d := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"} {
		m["COM"+d], m["LPT"+d] = true, true
	}
	return m
}()

// checkNewSegment says why seg cannot be the name of a new file (file) or
// folder, or "".
func checkNewSegment(seg string, file bool) string {
	if i := strings.IndexAny(seg, forbiddenNameChars); i >= 0 {
		return fmt.Sprintf("%q must not contain %s: Obsidian refuses any of %s in file and folder names (Windows cannot store them)", seg, quoteRune(rune(seg[i])), forbiddenNameChars)
	}
	for _, r := range seg {
		if what, ok := hiddenRunes[r]; ok {
			return fmt.Sprintf("%q must not contain U+%04X (%s): it changes how the name is shown, not what it is", seg, r, what)
		}
	}
	base, _, _ := strings.Cut(seg, ".")
	if reservedNames[strings.ToUpper(strings.TrimRight(base, " "))] {
		return fmt.Sprintf("%q is a name Windows reserves for a device (%s), whatever its extension: choose another", seg, strings.ToUpper(strings.TrimRight(base, " ")))
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return fmt.Sprintf("%q must not end with '.' or a space: Windows drops them, so it would name another file there", seg)
	}
	if file && len(seg) > MaxFileNameBytes {
		return fmt.Sprintf("a file name of %d bytes (%.20q…) is too long: at most %d bytes (the file system's 255, less what its temporary copy adds while it is written): shorten it", len(seg), seg, MaxFileNameBytes)
	}
	if len(seg) > MaxNameBytes {
		return fmt.Sprintf("a folder name of %d bytes (%.20q…) is too long: at most %d bytes: shorten it", len(seg), seg, MaxNameBytes)
	}
	return ""
}

// CheckNewPath says why p cannot be the path of a new file (file) or
// folder, or "": each folder on it and its own name are checked as new
// names (checkNewSegment). Folders that exist already are checked too: a
// name Windows cannot store fails there whoever made it.
func CheckNewPath(p string, file bool) string {
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for i, seg := range segs {
		if msg := checkNewSegment(seg, file && i == len(segs)-1); msg != "" {
			return msg
		}
	}
	return ""
}
