package dist

import (
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// MainPackage is the package every release binary is built from.
const MainPackage = "github.com/recomp/recomp/cmd/recomp"

// Binary is a built release binary, as read back from its file.
type Binary struct {
	Target   Target
	Path     string
	Size     int64
	SHA256   string
	MinMacOS [2]int // darwin: the oldest macOS the binary runs on (LC_BUILD_VERSION minos), e.g. 12.0
	Revision string // the VCS revision stamped into it ("" when the build had none)
	Modified bool   // the checkout had uncommitted changes
	VCSTime  string // the revision's commit time (RFC 3339), when stamped
}

// Inspect reads a built binary and checks that it is what a release needs for t: an executable
// of t's format and architecture, static (no dynamic loader, no shared libraries, no cgo),
// built from MainPackage with -trimpath for t.
func Inspect(path string, t Target) (*Binary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := &Binary{Target: t, Path: path, Size: st.Size()}
	if b.MinMacOS, err = checkFormat(f, t); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	bi, err := buildinfo.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: no Go build information: %v", path, err)
	}
	if err := checkBuildInfo(bi, t); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "vcs.time":
			b.VCSTime = s.Value
		}
	}
	h := sha256.New()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	b.SHA256 = hex.EncodeToString(h.Sum(nil))
	return b, nil
}

// checkBuildInfo checks what the go command recorded: the package, the target, cgo off and
// paths trimmed.
func checkBuildInfo(bi *debug.BuildInfo, t Target) error {
	if bi.Path != MainPackage {
		return fmt.Errorf("built from %s, want %s", bi.Path, MainPackage)
	}
	want := map[string]string{"GOOS": t.OS, "GOARCH": t.Arch, "CGO_ENABLED": "0", "-trimpath": "true"}
	got := map[string]string{}
	for _, s := range bi.Settings {
		got[s.Key] = s.Value
	}
	for _, k := range []string{"GOOS", "GOARCH", "CGO_ENABLED", "-trimpath"} {
		if got[k] != want[k] {
			return fmt.Errorf("built with %s=%q, want %q", k, got[k], want[k])
		}
	}
	return nil
}

// checkFormat checks the executable format and architecture, and that a Linux binary is
// static; for macOS it returns the oldest version the binary declares it runs on.
func checkFormat(r io.ReaderAt, t Target) (minMacOS [2]int, err error) {
	switch t.OS {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return minMacOS, fmt.Errorf("not an ELF executable: %v", err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[t.Arch]
		if f.Machine != want {
			return minMacOS, fmt.Errorf("an ELF executable for %v, want %v", f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				return minMacOS, errors.New("dynamically linked (it names a program interpreter), want a static binary")
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			return minMacOS, fmt.Errorf("needs shared libraries %v, want a static binary", libs)
		}
		return minMacOS, nil
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return minMacOS, fmt.Errorf("not a Mach-O executable: %v", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[t.Arch]
		if f.Cpu != want {
			return minMacOS, fmt.Errorf("a Mach-O executable for %v, want %v", f.Cpu, want)
		}
		const lcBuildVersion = 0x32
		for _, l := range f.Loads {
			raw := l.Raw()
			if len(raw) >= 16 && f.ByteOrder.Uint32(raw) == lcBuildVersion {
				minos := f.ByteOrder.Uint32(raw[12:])
				return [2]int{int(minos >> 16), int(minos >> 8 & 0xff)}, nil
			}
		}
		return minMacOS, errors.New("no LC_BUILD_VERSION load command: the oldest macOS it runs on is unknown")
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return minMacOS, fmt.Errorf("not a PE executable: %v", err)
		}
		if t.Arch != "amd64" || f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
			return minMacOS, fmt.Errorf("a PE executable for machine %#x, want %s", f.Machine, t.Arch)
		}
		return minMacOS, nil
	}
	return minMacOS, fmt.Errorf("no release format for %s", t)
}
