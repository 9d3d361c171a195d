package cache

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux a cache tree on disk is walked with openat, getdents64 and fstatat from each
// folder's descriptor: five calls and two names made per entry folder (its open, two reads of
// its names, one file's size, its close), where os.ReadDir and DirEntry.Info make an *os.File,
// a DirEntry and a FileInfo for each name and look every path up from the cache folder.

// fdDir is an open folder of a cache tree on disk; buf is the walk's buffer for its names.
type fdDir struct {
	fd  int
	buf *[]byte
}

// direntBuf is the size of the buffer getdents64 fills (a name of Inductor's is 72 bytes).
const direntBuf = 32 << 10

// openOSTree opens the top folder of a cache tree on disk, as os.DirFS does (a link to a folder
// is followed there, as it is for the folder's other subfolders).
func openOSTree(folder Folder, name string) (treeDir, error) {
	fd, err := retry(func() (int, error) {
		return unix.Open(filepath.Join(folder.Path, name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, err
	}
	buf := make([]byte, direntBuf)
	return fdDir{fd: fd, buf: &buf}, nil
}

// retry makes a call again while a signal interrupts it.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

func (d fdDir) list(dirs, files []string) ([]string, []string, error) {
	buf := *d.buf
	for {
		n, err := retry(func() (int, error) { return unix.Getdents(d.fd, buf) })
		if err != nil {
			return dirs, files, err
		}
		if n <= 0 {
			break
		}
		for off := 0; off+19 < n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return dirs, files, unix.EIO
			}
			rec := buf[off+19 : off+reclen]
			typ := buf[off+18]
			off += reclen
			end := 0
			for end < len(rec) && rec[end] != 0 {
				end++
			}
			name := rec[:end]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN { // a file system that does not say: ask it
				var st unix.Stat_t
				if err := d.fstatat(string(name), &st, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
					continue // gone since it was listed
				} else if err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
			}
			if typ == unix.DT_DIR {
				dirs = append(dirs, string(name))
			} else {
				files = append(files, string(name))
			}
		}
	}
	slices.Sort(dirs)
	slices.Sort(files)
	return dirs, files, nil
}

func (d fdDir) fstatat(name string, st *unix.Stat_t, flags int) error {
	_, err := retry(func() (int, error) { return 0, unix.Fstatat(d.fd, name, st, flags) })
	return err
}

// sub opens a subfolder from d, never through a link (one put there since d was listed is
// refused).
func (d fdDir) sub(name string) (treeDir, error) {
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, err
	}
	return fdDir{fd: fd, buf: d.buf}, nil
}

func (d fdDir) stat(name string) (int64, time.Time, bool) {
	var st unix.Stat_t
	err := d.fstatat(name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		err = d.fstatat(name, &st, 0) // a link is sized by what it names, a file anywhere
	}
	if err != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return 0, time.Time{}, false
	}
	return st.Size, time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)), true
}

func (d fdDir) close() { unix.Close(d.fd) }
