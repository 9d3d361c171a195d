package dist

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

// PlatformTags are the wheel platform tags (PEP 425, PEP 600, PEP 656) of the systems the
// binary runs on, the most specific first.
//
// Linux: the binary is static, so it needs no particular C library: manylinux (glibc) and
// musllinux alike. Go's Linux port needs kernel 3.2 or newer; the oldest manylinux whose systems
// have that is manylinux2014 (glibc 2.17, CentOS 7's kernel 3.10), so manylinux_2_17 and its
// alias manylinux2014, which pip has known since 19.3. macOS: the version the Go linker wrote
// into the binary (LC_BUILD_VERSION minos: 12.0 with Go 1.25 and 1.26).
func PlatformTags(b *Binary) ([]string, error) {
	t := b.Target
	switch {
	case t.OS == "linux" && (t.Arch == "amd64" || t.Arch == "arm64"):
		m := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[t.Arch]
		return []string{"manylinux_2_17_" + m, "manylinux2014_" + m, "musllinux_1_1_" + m}, nil
	case t.OS == "darwin" && (t.Arch == "amd64" || t.Arch == "arm64"):
		if b.MinMacOS[0] < 10 {
			return nil, fmt.Errorf("%s: the oldest macOS it runs on is unknown", b.Path)
		}
		m := map[string]string{"amd64": "x86_64", "arm64": "arm64"}[t.Arch]
		return []string{fmt.Sprintf("macosx_%d_%d_%s", b.MinMacOS[0], b.MinMacOS[1], m)}, nil
	case t == Target{"windows", "amd64"}:
		return []string{"win_amd64"}, nil
	}
	return nil, fmt.Errorf("no wheel platform tag for %s", t)
}

// Wheel describes a wheel that installs one binary as a command, with the Python package that
// runs it (a pytest plugin) beside it.
type Wheel struct {
	Name, Version string
	Tags          []string // platform tags; the Python tag is py3 and the ABI tag none
	Command       string   // the command's file name once installed: recomp or recomp.exe
	Binary        string   // the binary's path
	Summary       string
	Description   string    // Markdown
	Time          time.Time // the modification time of every entry (a fixed one: the same wheel from the same binary)
	// Python is the Python code installed into site-packages, by path ("recomp/__init__.py"),
	// in sorted order; nil for none. EntryPoints is the dist-info's entry_points.txt ("" for none).
	Python      fs.FS
	EntryPoints string
}

// FileName is the wheel's file name (PEP 427, with PEP 425's compressed tag set):
// recomp-0.1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl.
func (w *Wheel) FileName() string {
	return fmt.Sprintf("%s-%s-py3-none-%s.whl", w.Name, w.Version, strings.Join(w.Tags, "."))
}

func (w *Wheel) distInfo() string { return w.Name + "-" + w.Version + ".dist-info" }

// Write writes the wheel: the binary as <name>-<version>.data/scripts/<command> (installers
// put it in the environment's bin or Scripts folder, executable: its zip entry has mode 0755),
// then METADATA, WHEEL and RECORD (every file's sha256 and size). Entries, times and
// compression are fixed, so the same binary gives the same wheel byte for byte.
func (w *Wheel) Write(out io.Writer) error {
	if w.Name == "" || w.Version == "" || w.Command == "" || len(w.Tags) == 0 {
		return fmt.Errorf("wheel: name, version, command and tags are needed")
	}
	zw := zip.NewWriter(out)
	var record bytes.Buffer
	rw := csv.NewWriter(&record)
	add := func(name string, mode os.FileMode, r io.Reader, recorded bool) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: w.Time.UTC()}
		h.SetMode(mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		sum := sha256.New()
		n, err := io.Copy(io.MultiWriter(f, sum), r)
		if err != nil {
			return err
		}
		if !recorded {
			return nil
		}
		return rw.Write([]string{name, "sha256=" + base64.RawURLEncoding.EncodeToString(sum.Sum(nil)), fmt.Sprint(n)})
	}
	bin, err := os.Open(w.Binary)
	if err != nil {
		return err
	}
	defer bin.Close()
	if err := add(w.Name+"-"+w.Version+".data/scripts/"+w.Command, 0o755, bin, true); err != nil {
		return err
	}
	if err := w.addPython(add); err != nil {
		return err
	}
	if w.EntryPoints != "" {
		if err := add(w.distInfo()+"/entry_points.txt", 0o644, strings.NewReader(w.EntryPoints), true); err != nil {
			return err
		}
	}
	if err := add(w.distInfo()+"/METADATA", 0o644, strings.NewReader(w.metadata()), true); err != nil {
		return err
	}
	if err := add(w.distInfo()+"/WHEEL", 0o644, strings.NewReader(w.wheelFile()), true); err != nil {
		return err
	}
	rw.Write([]string{w.distInfo() + "/RECORD", "", ""}) // RECORD lists itself without a hash
	rw.Flush()
	if err := rw.Error(); err != nil {
		return err
	}
	if err := add(w.distInfo()+"/RECORD", 0o644, &record, false); err != nil {
		return err
	}
	return zw.Close()
}

// addPython adds the files of w.Python, in the order fs.WalkDir gives (sorted).
func (w *Wheel) addPython(add func(string, os.FileMode, io.Reader, bool) error) error {
	if w.Python == nil {
		return nil
	}
	return fs.WalkDir(w.Python, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(w.Python, path)
		if err != nil {
			return err
		}
		return add(path, 0o644, bytes.NewReader(b), true)
	})
}

// metadata is the core metadata (version 2.1).
func (w *Wheel) metadata() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", w.Name, w.Version)
	if w.Summary != "" {
		fmt.Fprintf(&b, "Summary: %s\n", w.Summary)
	}
	if w.Description != "" {
		fmt.Fprintf(&b, "Description-Content-Type: text/markdown\n\n%s", w.Description)
		if !strings.HasSuffix(w.Description, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wheelFile is the WHEEL file: a platform wheel (Root-Is-Purelib false) with each tag of the
// compressed tag set on a line of its own.
func (w *Wheel) wheelFile() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Wheel-Version: 1.0\nGenerator: recomp-dist %s\nRoot-Is-Purelib: false\n", w.Version)
	for _, t := range w.Tags {
		fmt.Fprintf(&b, "Tag: py3-none-%s\n", t)
	}
	return b.String()
}
