package note

import (
	"path"
	"strings"
)

// mediaTypes are the MIME types of the files Obsidian shows as
// attachments (its "Files & links" list of supported formats).
var mediaTypes = map[string]string{
	"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "bmp": "image/bmp",
	"svg": "image/svg+xml", "webp": "image/webp", "avif": "image/avif",
	"mp3": "audio/mpeg", "wav": "audio/wav", "m4a": "audio/mp4", "ogg": "audio/ogg", "3gp": "audio/3gpp", "flac": "audio/flac",
	"mp4": "video/mp4", "webm": "video/webm", "ogv": "video/ogg", "mov": "video/quicktime", "mkv": "video/x-matroska",
	"pdf": "application/pdf",
}

// MediaType is the MIME type of p by its extension; "" for an unknown one.
func MediaType(p string) string {
	return mediaTypes[strings.ToLower(strings.TrimPrefix(path.Ext(p), "."))]
}

// IsBinary reports whether p is an attachment whose bytes are not text
// (every known type but SVG): the Obsidian CLI cannot carry them.
func IsBinary(p string) bool {
	t := MediaType(p)
	return t != "" && t != "image/svg+xml"
}

// IsAttachment reports whether p is an attachment: any file but a note,
// a canvas or a base.
func IsAttachment(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case MarkdownExt, ".canvas", ".base":
		return false
	}
	return true
}
