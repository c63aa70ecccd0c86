package note

import (
	"fmt"
	"path"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MarkdownExt is the extension a path gets when it has none.
const MarkdownExt = ".md"

// IsMarkdown reports whether p is a Markdown note (by its extension, in
// any case): the files search, links, tags and properties cover.
func IsMarkdown(p string) bool {
	return strings.EqualFold(path.Ext(p), MarkdownExt)
}

// forbiddenNameChars are the characters Obsidian refuses in file names on
// every platform ("File name cannot contain any of the following characters").
const forbiddenNameChars = `*"\/<>:|?`

// WithDefaultExt appends .md to p when its last segment has no extension.
func WithDefaultExt(p string) string {
	if path.Ext(path.Base(p)) == "" {
		return p + MarkdownExt
	}
	return p
}

// Ext returns the extension of p without the dot.
func Ext(p string) string { return strings.TrimPrefix(path.Ext(p), ".") }

// Stem returns p's file name without its extension.
func Stem(p string) string {
	b := path.Base(p)
	return strings.TrimSuffix(b, path.Ext(b))
}

// Dir returns p's folder, "" for the vault root.
func Dir(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// Numbered returns p when taken(p) is false, and otherwise the first of
// "stem 1.ext", "stem 2.ext", … that is free: Obsidian's way to avoid a
// collision.
func Numbered(p string, taken func(string) bool) string {
	stem, ext := strings.TrimSuffix(p, path.Ext(p)), path.Ext(p)
	for i := 1; taken(p); i++ {
		p = fmt.Sprintf("%s %d%s", stem, i, ext)
	}
	return p
}

// Join joins a folder ("" or "/" for the root) and a file name. A trailing
// '/' on the folder, which CheckFolder tolerates, is dropped: folder
// "Projects/" once made "Projects//Plan.md" and "/" made "//Plan.md", both
// then refused as paths (found by FuzzPathChecks).
func Join(folder, name string) string {
	folder = strings.TrimSuffix(folder, "/")
	if folder == "" {
		return name
	}
	return folder + "/" + name
}

func trimSlashes(s string) string { return strings.Trim(s, "/") }

// CheckPath says what is wrong with p as a vault-relative file path, or ""
// when it is safe. The rules keep every path inside the vault and portable:
// no absolute paths or drive letters, no "..", no backslashes (Windows
// separators would otherwise mean different files on different machines),
// no NUL or control characters.
func CheckPath(p string) string {
	if msg := checkText(p); msg != "" {
		return msg
	}
	if strings.HasSuffix(p, "/") {
		return "must name a file, not a folder: remove the trailing '/' to name a note (to change a folder itself, use obsidian_folder)"
	}
	return checkSegments(p)
}

// FolderArg is a folder as a tool argument names it, trimmed of spaces and
// of a trailing '/': the one reading of it, for the policy's check and the
// engine's call alike, so that both judge the same folder.
func FolderArg(p string) string { return strings.TrimSuffix(strings.TrimSpace(p), "/") }

// CheckFolder is CheckPath for a folder; "" (the vault root) is allowed and
// a trailing '/' is tolerated.
func CheckFolder(p string) string {
	if p == "" || p == "/" {
		return ""
	}
	if msg := checkText(p); msg != "" {
		return msg
	}
	return checkSegments(strings.TrimSuffix(p, "/"))
}

// CheckName says what is wrong with a wikilink-style note name, or "".
// A name may carry a folder suffix ("Projects/Plan") but never escape.
func CheckName(n string) string {
	if strings.TrimSpace(n) == "" {
		return "must not be empty or blank"
	}
	return CheckPath(n)
}

// CheckNewName says what is wrong with a new file name (rename, create by
// name), or "". It refuses folder separators and the characters Obsidian
// refuses in names.
func CheckNewName(n string) string {
	if strings.TrimSpace(n) == "" {
		return "must not be empty or blank"
	}
	if i := strings.IndexAny(n, forbiddenNameChars); i >= 0 {
		return "must not contain " + quoteRune(rune(n[i])) + "; Obsidian refuses any of " + forbiddenNameChars + " in file names (use move to change the folder)"
	}
	if msg := checkText(n); msg != "" {
		return msg
	}
	if n == "." || n == ".." {
		return "must be a file name, not '" + n + "'"
	}
	if strings.TrimSpace(n) != n {
		return "must not start or end with white space"
	}
	if onWindows {
		return checkWindowsSegment(n)
	}
	return ""
}

func checkText(p string) string {
	switch {
	case p == "":
		return "must not be empty"
	case !utf8.ValidString(p):
		return "must be valid UTF-8"
	case strings.ContainsRune(p, 0):
		return "must not contain NUL bytes"
	case strings.ContainsRune(p, '\\'):
		return "must use '/' as the folder separator, not '\\'"
	case strings.HasPrefix(p, "/"):
		return "must be relative to the vault root; remove the leading '/'"
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "must be relative to the vault root, not a drive path like '" + p[:2] + "'"
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return "must not contain control characters (found " + quoteRune(r) + ")"
		}
	}
	return ""
}

func checkSegments(p string) string {
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "..":
			return "must not contain '..' segments; paths stay inside the vault"
		case ".", "":
			return "must not contain empty or '.' segments (like 'a//b' or 'a/./b')"
		}
		if onWindows {
			if msg := checkWindowsSegment(seg); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// onWindows: paths are checked against the names Windows cannot store as
// well, since there they would name a device ("CON.md") or another file
// ("a." is "a"), never a file of the vault.
const onWindows = runtime.GOOS == "windows"

// checkWindowsSegment says why seg, a part of a path, cannot name a file
// on Windows, or "".
func checkWindowsSegment(seg string) string {
	if i := strings.IndexAny(seg, forbiddenNameChars); i >= 0 {
		return fmt.Sprintf("%q must not contain %s: Windows cannot store any of %s in names", seg, quoteRune(rune(seg[i])), forbiddenNameChars)
	}
	base, _, _ := strings.Cut(seg, ".")
	if dev := strings.ToUpper(strings.TrimRight(base, " ")); reservedNames[dev] {
		return fmt.Sprintf("%q is a name Windows reserves for a device (%s), whatever its extension", seg, dev)
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return fmt.Sprintf("%q must not end with '.' or a space: Windows drops them, so it names another file there", seg)
	}
	return ""
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func quoteRune(r rune) string {
	if unicode.IsControl(r) {
		return fmt.Sprintf("U+%04X", r)
	}
	return "'" + string(r) + "'"
}

// Limits on the paths a tool may create. A vault is often synced between
// systems, so they are the strictest common ones: a file or folder name of
// at most 255 bytes (every common file system), a vault path of at most
// 1,024 bytes (macOS's PATH_MAX counts the vault's own folder too), and a
// depth no notes need (a path thousands of folders deep was once accepted,
// and slowed every later call for as long as it stayed).
const (
	MaxNameBytes = 255
	MaxPathBytes = 1024
	MaxDepth     = 32
)

// CheckBounds says what makes p too long or too deep to create, or "".
func CheckBounds(p string) string {
	if len(p) > MaxPathBytes {
		return fmt.Sprintf("is %d bytes long; a path the tools create may be at most %d bytes (file systems and sync between systems refuse longer ones): shorten the folder or file names", len(p), MaxPathBytes)
	}
	segs := strings.Split(p, "/")
	if len(segs)-1 > MaxDepth {
		return fmt.Sprintf("is %d folders deep; a path the tools create may be at most %d folders deep: use fewer folders", len(segs)-1, MaxDepth)
	}
	for _, s := range segs {
		if len(s) > MaxNameBytes {
			return fmt.Sprintf("has a name of %d bytes (%.20q…); a file or folder name may be at most %d bytes: shorten it", len(s), s, MaxNameBytes)
		}
	}
	return ""
}
