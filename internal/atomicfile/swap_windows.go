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

// exchanges: a swap hands back the file it displaced (see swap).
const exchanges = true

// Windows cannot exchange two names in one step, and a rename over a
// file cannot say which file it replaced: a program that renamed its save
// onto the note's name in the moment before the update's rename had that
// save replaced by ours, and gone (under Wine, 13 of 14,751 writes of a
// sync-style writer beside vault-wide edits). So the update replaces the
// note through a handle on the very file it checked:
//
//  1. it opens the file at name for deleting, sharing reading and
//     deleting but not writing: refused while any program has the file
//     open for writing, or open without sharing deletion (waited for,
//     then errWriterOpen); once open, no program can open the file for
//     writing, and none can rename a file over it (Windows refuses to
//     replace a file that is open);
//  2. it looks at that file once more (still the file read, still holding
//     what was read: else errChanged, and the round starts over);
//  3. it renames that file, by its handle, to a temporary name beside it,
//     and then ours to name without replacing anything: a file another
//     program put at name in between is its save, kept; ours is not
//     renamed, and the round starts over on theirs (the file set aside
//     is then what their rename would have replaced);
//  4. it renames the file set aside to tmp, where Linux's RENAME_EXCHANGE
//     leaves the displaced file, and hands back the handle on it.
//
// No program can write into the displaced file while the handle is held,
// so nothing written into it after the check is missed. Between the two
// renames of step 3 nothing is at name for a moment: a reader then finds
// no note, as it does while an editor saves by renaming.

// testHookBeforeRename, when set by a test, runs between the swap's
// setting aside of the file at name and its rename of ours onto name.
var testHookBeforeRename func()

// letGoWhileChanging: an update closes the file it read while its change
// runs, since no other program can rename over the file while it is held
// (sync clients and editors that save by rename would fail meanwhile); it
// is opened again for the check before the swap.
const letGoWhileChanging = true

// NameGaps: a swap leaves the note without its name for the moment
// between its two renames; a process that finds a note missing may look
// again once the writer is done (native waits for its write lock).
const NameGaps = true

// swap exchanges the files at tmp and name (see above) and reports
// exchanged. held, when not nil, is the update's open handle on the file
// at name: it is closed and replaced by the handle on the file displaced.
// want, when not nil, is what that file must still hold, looked at once
// writers are kept out (else errChanged, nothing swapped).
func swap(root *os.Root, tmp, name string, held **os.File, want []byte) (exchanged bool, err error) {
	dir, err := root.Open(path.Dir(name))
	if err != nil {
		return false, err
	}
	defer dir.Close()
	dh := windows.Handle(dir.Fd())
	// 1. The file at name, writers kept out.
	var h windows.Handle
	pause := time.Millisecond
	for deadline := time.Now().Add(writerWait); ; {
		h, err = openAt(dh, path.Base(name), windows.DELETE|windows.FILE_READ_DATA|windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_DELETE)
		if err == nil {
			break
		}
		err = &fs.PathError{Op: "open", Path: name, Err: err}
		if heldUnshared(err) != errWriterOpen || time.Now().After(deadline) {
			return false, heldUnshared(err)
		}
		if testHookWriterOpen != nil {
			testHookWriterOpen()
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
	f := os.NewFile(uintptr(h), name)
	handedBack := false
	defer func() {
		if !handedBack {
			_ = f.Close()
		}
	}()
	// 2. Still the file read, holding what was read.
	if held != nil {
		if want != nil {
			ffi, err := f.Stat()
			if err != nil || !sameAs(*held, ffi) || !same(f, want) {
				return false, errChanged
			}
		}
		_ = (*held).Close()
		*held = nil
		defer func() {
			if *held == nil {
				*held = f
				handedBack = true
			}
		}()
	}
	// 3. That file aside, ours at name unless another program's save got
	// there first.
	aside := tempBeside(name)
	if err := renameHandle(h, dh, path.Base(aside)); err != nil {
		return false, &os.LinkError{Op: "rename", Old: name, New: aside, Err: err}
	}
	if testHookBeforeRename != nil {
		testHookBeforeRename()
	}
	if err := renameAt(dh, path.Base(tmp), path.Base(name)); err != nil {
		if renameHandle(h, dh, path.Base(name)) == nil {
			return false, refusedBusy(&os.LinkError{Op: "rename", Old: tmp, New: name, Err: err})
		}
		// Another program's save is at name: it stays, and the file set
		// aside goes, as its rename over it would have had it.
		_ = root.Remove(aside)
		return false, errChanged
	}
	// 4. The displaced file at tmp, as after an exchange.
	if err := renameHandle(h, dh, path.Base(tmp)); err != nil {
		// Ours is at name; the displaced file is read through the handle
		// and its temporary name swept with it.
		_ = root.Remove(aside)
		return false, nil
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

// openAt opens the file name in the folder dh (no path is joined, no link
// followed) with the access and sharing given.
func openAt(dh windows.Handle, name string, access, share uint32) (windows.Handle, error) {
	objName, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return 0, err
	}
	oa := &windows.OBJECT_ATTRIBUTES{RootDirectory: dh, ObjectName: objName}
	oa.Length = uint32(unsafe.Sizeof(*oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, access, oa, &iosb, nil, 0, share, windows.FILE_OPEN,
		windows.FILE_OPEN_REPARSE_POINT|windows.FILE_NON_DIRECTORY_FILE|windows.FILE_SYNCHRONOUS_IO_NONALERT, 0, 0)
	if err != nil {
		return 0, ntErr(err)
	}
	return h, nil
}

// renameAt renames from to to within the folder dh, by a handle on from,
// never replacing a file at to.
func renameAt(dh windows.Handle, from, to string) error {
	h, err := openAt(dh, from, windows.DELETE|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return renameHandle(h, dh, to)
}

// renameHandle gives the file h names the name to in the folder dh,
// never replacing a file at to (the swap must not destroy a save another
// program put there).
func renameHandle(h, dh windows.Handle, to string) error {
	name, err := windows.UTF16FromString(to)
	if err != nil {
		return err
	}
	// FILE_RENAME_INFORMATION: ReplaceIfExists (a BOOLEAN, padded; left
	// false), the folder the name is relative to, the name's length in
	// bytes, the name.
	type renameInfo struct {
		ReplaceIfExists uint32
		RootDirectory   windows.Handle
		FileNameLength  uint32
		FileName        [1]uint16
	}
	nameBytes := (len(name) - 1) * 2
	size := int(unsafe.Offsetof(renameInfo{}.FileName)) + nameBytes
	buf := make([]uint64, (size+7)/8) // 8-byte aligned, as the handle needs
	info := (*renameInfo)(unsafe.Pointer(&buf[0]))
	info.RootDirectory = dh
	info.FileNameLength = uint32(nameBytes)
	copy(unsafe.Slice(&info.FileName[0], len(name)-1), name[:len(name)-1])
	var iosb windows.IO_STATUS_BLOCK
	return ntErr(windows.NtSetInformationFile(h, &iosb, (*byte)(unsafe.Pointer(&buf[0])), uint32(size), windows.FileRenameInformation))
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
