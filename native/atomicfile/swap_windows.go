package atomicfile

import (
	stderrors "errors"
	"io/fs"
	"os"
	"path"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// exchanges: a swap hands back the file it displaced (three steps).
const exchanges = true

// Windows refuses to rename a file over one that any program holds open
// (the classic rename rule; Wine follows it too). That refusal is the
// signal Windows offers where Linux grants leases: a rename that succeeds
// replaced a file nobody had open, so no program goes on writing into the
// file it displaced. The update therefore lets go of its own handle before
// the rename.
//
// Windows cannot exchange two names in one step, but the exchange is made
// of three that each leave the note's name in place: a hard link keeps the
// file at name reachable (named like a temporary file, so that recovery
// sweeps it after a crash), the new file is renamed over name, and the
// link is renamed to tmp. tmp then names the displaced file as after
// Linux's RENAME_EXCHANGE, and the update goes on as it does there: a save
// that reached the file between the check and the rename is put back at
// the note's name by a second exchange (its writer's next read finds its
// own save), and the update starts over on it. (Merging it into ours
// instead let the writer read ours, without its save, and overwrite the
// merge with a save built on that read: under Wine, 1 save in about 300
// of a saver every 20 ms was lost so.)
//
// Go's os.Root.Rename tries POSIX semantics first, which real Windows
// grants over open files: the update does not use it for the note, or a
// program holding the note open could write on into the displaced file
// unseen.

// testHookBeforeRename, when set by a test, runs between the swap's last
// look and its rename: the window a save put back comes from.
var testHookBeforeRename func()

// letGoWhileChanging: an update closes the file it read while its change
// runs, since no other program can rename over the file while it is held
// (sync clients and editors that save by rename would fail meanwhile); it
// is opened again for the check before the swap.
const letGoWhileChanging = true

// swap exchanges the files at tmp and name (see above) and reports
// exchanged. held, when not nil, is the update's open handle on the file
// at name: it is closed before the rename and replaced by a handle on the
// file displaced. want, when not nil, is what that file must still hold:
// it is looked at once more right before each rename, which leaves a
// save closed between that look and the rename as the one put back.
// Found changed, nothing is swapped and the answer is errChanged. A rename
// refused because another program has name open is tried again for
// writerWait, then answered errWriterOpen.
func swap(root *os.Root, tmp, name string, held **os.File, want []byte) (exchanged bool, err error) {
	keep := tempBeside(name)
	if err := root.Link(name, keep); err != nil {
		// No hard links (FAT, exFAT): the rename alone, with nothing of
		// the file it displaced left to read. docs/data-safety.md.
		if held != nil {
			if want != nil && !same(*held, want) {
				return false, errChanged
			}
			_ = (*held).Close()
			*held = nil
		}
		if err := renameClassic(root, tmp, name); err != nil {
			if held != nil {
				*held, _ = openRead(root, name)
			}
			return false, refusedBusy(err)
		}
		return false, nil
	}
	defer func() { _ = root.Remove(keep) }() // gone once renamed to tmp
	// unchanged is the last look: keep still names the file at name, and
	// it still holds want.
	unchanged := func() bool {
		if want == nil {
			return true
		}
		now, errN := root.Lstat(name)
		k, errK := openRead(root, keep)
		if errK != nil {
			return false
		}
		defer k.Close()
		kfi, errS := k.Stat()
		return errN == nil && errS == nil && os.SameFile(now, kfi) && same(k, want)
	}
	if held != nil {
		if want != nil {
			if kfi, err := root.Lstat(keep); err != nil || !sameAs(*held, kfi) || !same(*held, want) {
				return false, errChanged
			}
		}
		_ = (*held).Close()
		*held = nil
	}
	// Refused while a program has the note open: tried again until it
	// closes it, unless it changed the note meanwhile (errChanged: the
	// round starts over on its save).
	var rerr error
	pause := time.Millisecond
	for deadline := time.Now().Add(writerWait); ; {
		if testHookBeforeRename != nil {
			testHookBeforeRename()
		}
		rerr = renameClassic(root, tmp, name)
		if rerr == nil || refusedBusy(rerr) != errWriterOpen || time.Now().After(deadline) {
			break
		}
		if testHookWriterOpen != nil {
			testHookWriterOpen()
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
		if !unchanged() {
			rerr = errChanged
			break
		}
	}
	if rerr != nil {
		// Nothing was renamed: the file read is still at name.
		if held != nil {
			*held, _ = openRead(root, name)
		}
		if rerr == errChanged {
			return false, errChanged
		}
		return false, refusedBusy(rerr)
	}
	if err := renameClassic(root, keep, tmp); err != nil {
		// A program holds the displaced file unshared: the note is ours
		// now, and the file displaced is read through keep, as after a
		// plain rename (renamedOver merges what it holds).
		if held != nil {
			f, err := openRead(root, keep)
			if err != nil {
				return false, err
			}
			*held = f
		}
		return false, nil
	}
	if held != nil {
		f, err := openRead(root, tmp)
		if err != nil {
			return true, err
		}
		*held = f
	}
	return true, nil
}

// sameAs reports whether f is the file fi describes.
func sameAs(f *os.File, fi fs.FileInfo) bool {
	ffi, err := f.Stat()
	return err == nil && os.SameFile(ffi, fi)
}

// refusedBusy turns a rename Windows refused because another program has
// the target open into errWriterOpen (the update waits and tries again);
// other errors pass unchanged.
func refusedBusy(err error) error {
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// What Windows answers a rename over a file held open.
		return errWriterOpen
	}
	return heldUnshared(err)
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
