package atomicfile

import (
	"crypto/rand"
	stderrors "errors"
	"io/fs"
	"os"
	"path"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Windows refuses to rename a file over one that any program holds open
// (the classic rename rule; Wine follows it too). That refusal is the
// signal Windows offers where Linux grants leases: a rename that succeeds
// replaced a file nobody had open, so no program can go on writing into
// the file it displaced. The update therefore lets go of its own handle
// before the rename, and keeps the file it read reachable by a second name
// (a hard link beside it, named like a temporary file so that recovery
// sweeps it after a crash) to read what was written into it between the
// last check and the rename.
//
// Go's os.Root.Rename tries POSIX semantics first, which real Windows
// grants over open files: the update does not use it for the note, or a
// program holding the note open could write on into the displaced file
// unseen.

// letGoWhileChanging: an update closes the file it read while its change
// runs, since no other program can rename over the file while it is held
// (sync clients and editors that save by rename would fail meanwhile); it
// is opened again for the check before the swap.
const letGoWhileChanging = true

// swap renames tmp over name. held is the update's open handle on the file
// at name (nil for a swap back, which happens only where names can be
// exchanged, never here); it is closed before the rename and replaced by a
// handle on the file displaced. A rename refused because another program
// has name open answers errWriterOpen; a name found replaced since the
// check answers errStale (the round starts over).
func swap(root *os.Root, tmp, name string, held **os.File) (exchanged bool, err error) {
	if held == nil {
		return false, renameOver(root, tmp, name)
	}
	fi, err := (*held).Stat()
	if err != nil {
		return false, err
	}
	keep := path.Join(path.Dir(name), "."+path.Base(name)+".tmp-"+rand.Text()[:12])
	if err := root.Link(name, keep); err != nil {
		// No hard links (FAT, exFAT): the rename alone, with nothing of
		// the file it displaced left to read. docs/data-safety.md.
		_ = (*held).Close()
		*held = nil
		if err := renameClassic(root, tmp, name); err != nil {
			*held, _ = openRead(root, name)
			return false, refusedBusy(err)
		}
		return false, nil
	}
	defer func() { _ = root.Remove(keep) }()
	if kfi, err := root.Lstat(keep); err != nil || !os.SameFile(kfi, fi) {
		// Another program put a new file at name after the check.
		return false, errStale
	}
	_ = (*held).Close()
	*held = nil
	// Refused while a program has the note open: tried again until it
	// closes it, writerWait at most. What it writes meanwhile goes into
	// the file at keep, which the caller reads after the rename (and
	// merges). A program that replaced the note meanwhile made keep a
	// stale name: the round starts over on its file.
	var rerr error
	pause := time.Millisecond
	for deadline := time.Now().Add(writerWait); ; {
		rerr = renameClassic(root, tmp, name)
		if rerr == nil || refusedBusy(rerr) != errWriterOpen || time.Now().After(deadline) {
			break
		}
		if testHookWriterOpen != nil {
			testHookWriterOpen()
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
		if now, err := root.Lstat(name); err != nil || !os.SameFile(now, fi) {
			return false, errStale
		}
	}
	// The file read is at keep whether the rename happened or not; with
	// it open again the name can go now (what keep links is then the
	// handle's only, as the file displaced on Linux). Removing a name
	// takes the file's DELETE access for a moment, which a program
	// opening it without FILE_SHARE_DELETE would meet: after a rename that
	// is the displaced file, which nobody opens by the note's name.
	f, err := openRead(root, keep)
	if err != nil {
		return false, err
	}
	*held = f
	if rerr != nil {
		return false, refusedBusy(rerr)
	}
	return false, nil
}

// refusedBusy turns a rename Windows refused because another program has
// the target open into errWriterOpen (the update waits and tries again);
// other errors pass unchanged.
func refusedBusy(err error) error {
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errWriterOpen
	}
	return err
}

// heldUnshared turns an open Windows refused because another program holds
// the file without sharing it (a sharing violation) into errWriterOpen,
// which is waited for; other errors pass unchanged.
func heldUnshared(err error) error {
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errWriterOpen
	}
	return err
}

// renameClassic renames tmp over name within one folder, by handle,
// without POSIX semantics, so that it fails while any program holds name
// open. Both names are taken relative to the folder's handle, opened
// inside root: no path is joined, and no link in the path is followed.
func renameClassic(root *os.Root, tmp, name string) error {
	if path.Dir(tmp) != path.Dir(name) {
		return &os.LinkError{Op: "rename", Old: tmp, New: name, Err: errors.New("not in one folder")}
	}
	dir, err := root.Open(path.Dir(name))
	if err != nil {
		return err
	}
	defer dir.Close()
	dh := windows.Handle(dir.Fd())
	objName, err := windows.NewNTUnicodeString(path.Base(tmp))
	if err != nil {
		return err
	}
	oa := &windows.OBJECT_ATTRIBUTES{RootDirectory: dh, ObjectName: objName}
	oa.Length = uint32(unsafe.Sizeof(*oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, windows.DELETE|windows.SYNCHRONIZE, oa, &iosb, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, windows.FILE_OPEN,
		windows.FILE_OPEN_REPARSE_POINT|windows.FILE_SYNCHRONOUS_IO_NONALERT, 0, 0)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: name, Err: ntErr(err)}
	}
	defer windows.CloseHandle(h)
	to, err := windows.UTF16FromString(path.Base(name))
	if err != nil {
		return err
	}
	// FILE_RENAME_INFORMATION: ReplaceIfExists (a BOOLEAN, padded), the
	// folder the name is relative to, the name's length in bytes, the name.
	type renameInfo struct {
		ReplaceIfExists uint32
		RootDirectory   windows.Handle
		FileNameLength  uint32
		FileName        [1]uint16
	}
	nameBytes := (len(to) - 1) * 2
	size := int(unsafe.Offsetof(renameInfo{}.FileName)) + nameBytes
	buf := make([]uint64, (size+7)/8) // 8-byte aligned, as the handle needs
	info := (*renameInfo)(unsafe.Pointer(&buf[0]))
	info.ReplaceIfExists = 1
	info.RootDirectory = dh
	info.FileNameLength = uint32(nameBytes)
	copy(unsafe.Slice(&info.FileName[0], len(to)-1), to[:len(to)-1])
	err = windows.NtSetInformationFile(h, &iosb, (*byte)(unsafe.Pointer(&buf[0])), uint32(size), windows.FileRenameInformation)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: name, Err: ntErr(err)}
	}
	return nil
}

// ntErr is an NTSTATUS as the Windows error code Go's os errors carry, so
// that errors.Is(err, fs.ErrNotExist) and the like hold.
func ntErr(err error) error {
	if st, ok := err.(windows.NTStatus); ok {
		return st.Errno()
	}
	return err
}

// renameOver is the rename of files this program alone writes (Put: the
// journal, the index, its state): Windows refuses it while a reader has the
// target open, so it is tried again until writerWait has passed, then
// answered with ErrBusy naming the file.
func renameOver(root *os.Root, tmp, name string) error {
	pause := time.Millisecond
	deadline := time.Now().Add(writerWait)
	for {
		err := root.Rename(tmp, name)
		if err == nil || refusedBusy(err) != errWriterOpen {
			return err
		}
		if time.Now().After(deadline) {
			return &fs.PathError{Op: "replace", Path: name, Err: ErrBusy}
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
}

// exchange is Linux's alone; elsewhere no file is ever parked for it (only
// Linux grants the leases that keep one).
func exchange(root *os.Root, a, b string) error {
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: stderrors.ErrUnsupported}
}
