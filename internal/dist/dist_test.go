package dist

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestParseTargets(t *testing.T) {
	if ts, err := ParseTargets("all"); err != nil || len(ts) != 5 {
		t.Errorf("all: %v %v", ts, err)
	}
	if ts, err := ParseTargets("linux/amd64, darwin/arm64"); err != nil || len(ts) != 2 || ts[1] != (Target{"darwin", "arm64"}) {
		t.Errorf("two: %v %v", ts, err)
	}
	if _, err := ParseTargets("plan9/amd64"); err == nil || !strings.Contains(err.Error(), "linux/amd64") {
		t.Errorf("unknown target: %v", err)
	}
	if (Target{"windows", "amd64"}).BinaryName() != "recomp-windows-amd64.exe" || (Target{"linux", "arm64"}).BinaryName() != "recomp-linux-arm64" ||
		(Target{"windows", "amd64"}).Command() != "recomp.exe" || (Target{"darwin", "arm64"}).Command() != "recomp" {
		t.Error("file names")
	}
}

func TestPlatformTags(t *testing.T) {
	for _, c := range []struct {
		b    Binary
		want string
	}{
		{Binary{Target: Target{"linux", "amd64"}}, "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64"},
		{Binary{Target: Target{"linux", "arm64"}}, "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64"},
		{Binary{Target: Target{"darwin", "amd64"}, MinMacOS: [2]int{12, 0}}, "macosx_12_0_x86_64"},
		{Binary{Target: Target{"darwin", "arm64"}, MinMacOS: [2]int{13, 1}}, "macosx_13_1_arm64"},
		{Binary{Target: Target{"windows", "amd64"}}, "win_amd64"},
	} {
		tags, err := PlatformTags(&c.b)
		if err != nil || strings.Join(tags, ".") != c.want {
			t.Errorf("%s: %v %v, want %s", c.b.Target, tags, err, c.want)
		}
	}
	if _, err := PlatformTags(&Binary{Target: Target{"darwin", "arm64"}}); err == nil {
		t.Error("a macOS binary without its oldest macOS must have no tag")
	}
}

// machO is the smallest Mach-O file debug/macho reads: a 64-bit header and one load command.
func machO(cpu uint32, cmd uint32, minos uint32) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	for _, v := range []uint32{0xfeedfacf, cpu, 0, 2 /* MH_EXECUTE */, 1, 24, 0, 0} {
		binary.Write(&b, le, v)
	}
	for _, v := range []uint32{cmd, 24, 1 /* PLATFORM_MACOS */, minos, minos, 0} {
		binary.Write(&b, le, v)
	}
	return b.Bytes()
}

func TestCheckFormatMachO(t *testing.T) {
	const cpuArm64, cpuAmd64, lcBuildVersion = 0x0100000c, 0x01000007, 0x32
	got, err := checkFormat(bytes.NewReader(machO(cpuArm64, lcBuildVersion, 12<<16|3<<8)), Target{"darwin", "arm64"})
	if err != nil || got != [2]int{12, 3} {
		t.Errorf("minos: %v %v", got, err)
	}
	if _, err := checkFormat(bytes.NewReader(machO(cpuAmd64, lcBuildVersion, 12<<16)), Target{"darwin", "arm64"}); err == nil {
		t.Error("an amd64 binary passed as arm64")
	}
	if _, err := checkFormat(bytes.NewReader(machO(cpuArm64, 0x1b /* LC_UUID */, 0)), Target{"darwin", "arm64"}); err == nil ||
		!strings.Contains(err.Error(), "LC_BUILD_VERSION") {
		t.Errorf("no minos: %v", err)
	}
	if _, err := checkFormat(bytes.NewReader(machO(cpuArm64, lcBuildVersion, 12<<16)), Target{"linux", "arm64"}); err == nil {
		t.Error("a Mach-O file passed as Linux")
	}
}

// The test binary itself is an ELF file for this machine; as another architecture it fails.
func TestCheckFormatELF(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := checkFormat(f, Target{"windows", "amd64"}); err == nil {
		t.Error("the test binary passed as a Windows one")
	}
	var head [4]byte
	f.ReadAt(head[:], 0)
	if string(head[:]) != "\x7fELF" {
		t.Skip("the test binary is not ELF here")
	}
	other := map[bool]string{true: "arm64", false: "amd64"}[runtime.GOARCH == "amd64"]
	if _, err := checkFormat(f, Target{"linux", other}); err == nil || !strings.Contains(err.Error(), "want") {
		t.Errorf("the test binary passed as linux/%s: %v", other, err)
	}
}

func TestCheckBuildInfo(t *testing.T) {
	good := []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "CGO_ENABLED", Value: "0"}, {Key: "GOARCH", Value: "arm64"}, {Key: "GOOS", Value: "darwin"}}
	if err := checkBuildInfo(&debug.BuildInfo{Path: MainPackage, Settings: good}, Target{"darwin", "arm64"}); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Path: "example.com/other", Settings: good}, "built from example.com/other"},
		{debug.BuildInfo{Path: MainPackage, Settings: good[1:]}, "-trimpath"},
		{debug.BuildInfo{Path: MainPackage, Settings: append([]debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "CGO_ENABLED", Value: "1"}}, good[2:]...)}, "CGO_ENABLED"},
	} {
		if err := checkBuildInfo(&c.bi, Target{"darwin", "arm64"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.bi.Path, err, c.want)
		}
	}
	if err := checkBuildInfo(&debug.BuildInfo{Path: MainPackage, Settings: good}, Target{"linux", "arm64"}); err == nil {
		t.Error("a darwin build passed as linux")
	}
}

func testWheel(t *testing.T, dir string) (*Wheel, []byte) {
	t.Helper()
	bin := filepath.Join(dir, "recomp")
	if err := os.WriteFile(bin, bytes.Repeat([]byte("\x7fELF binary bytes "), 5000), 0o755); err != nil {
		t.Fatal(err)
	}
	w := &Wheel{Name: "recomp", Version: "1.2.3", Tags: []string{"manylinux_2_17_x86_64", "musllinux_1_1_x86_64"}, Command: "recomp",
		Binary: bin, Summary: "the recompilation detective", Description: "# recomp\n\nA binary.", Time: time.Date(2026, 11, 23, 9, 15, 12, 0, time.UTC)}
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return w, buf.Bytes()
}

// The wheel has what an installer reads (PEP 427): the binary under .data/scripts with mode
// 0755, METADATA, WHEEL with every tag, and a RECORD whose hashes and sizes are the files'.
func TestWheel(t *testing.T) {
	dir := t.TempDir()
	w, data := testWheel(t, dir)
	if got := w.FileName(); got != "recomp-1.2.3-py3-none-manylinux_2_17_x86_64.musllinux_1_1_x86_64.whl" {
		t.Errorf("file name %s", got)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = b
		names = append(names, fmt.Sprintf("%s %v", f.Name, f.Mode()))
		if !f.Modified.Equal(w.Time) {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
	}
	want := "recomp-1.2.3.data/scripts/recomp -rwxr-xr-x|recomp-1.2.3.dist-info/METADATA -rw-r--r--|" +
		"recomp-1.2.3.dist-info/WHEEL -rw-r--r--|recomp-1.2.3.dist-info/RECORD -rw-r--r--"
	if strings.Join(names, "|") != want {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(names, "|"), want)
	}
	bin, _ := os.ReadFile(filepath.Join(dir, "recomp"))
	if !bytes.Equal(files["recomp-1.2.3.data/scripts/recomp"], bin) {
		t.Error("the binary in the wheel differs from the file")
	}
	meta := string(files["recomp-1.2.3.dist-info/METADATA"])
	if !strings.HasPrefix(meta, "Metadata-Version: 2.1\nName: recomp\nVersion: 1.2.3\nSummary: the recompilation detective\n") ||
		!strings.HasSuffix(meta, "\n\n# recomp\n\nA binary.\n") {
		t.Errorf("METADATA %q", meta)
	}
	if wf := string(files["recomp-1.2.3.dist-info/WHEEL"]); wf != "Wheel-Version: 1.0\nGenerator: recomp-dist 1.2.3\nRoot-Is-Purelib: false\n"+
		"Tag: py3-none-manylinux_2_17_x86_64\nTag: py3-none-musllinux_1_1_x86_64\n" {
		t.Errorf("WHEEL %q", wf)
	}
	rows, err := csv.NewReader(bytes.NewReader(files["recomp-1.2.3.dist-info/RECORD"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("RECORD %v", rows)
	}
	for _, r := range rows {
		if r[0] == "recomp-1.2.3.dist-info/RECORD" {
			if r[1] != "" || r[2] != "" {
				t.Errorf("RECORD's own row %v", r)
			}
			continue
		}
		sum := sha256.Sum256(files[r[0]])
		if r[1] != "sha256="+base64.RawURLEncoding.EncodeToString(sum[:]) || r[2] != fmt.Sprint(len(files[r[0]])) {
			t.Errorf("RECORD row %v does not match the file (%d bytes)", r, len(files[r[0]]))
		}
	}
	// The same binary gives the same wheel.
	if _, again := testWheel(t, t.TempDir()); !bytes.Equal(again, data) {
		t.Error("two wheels of the same binary differ")
	}
}

func TestWheelNeedsItsNames(t *testing.T) {
	if err := (&Wheel{Name: "recomp", Version: "1.0.0", Command: "recomp"}).Write(io.Discard); err == nil {
		t.Error("a wheel without tags was written")
	}
}

// The wheel's Python code goes into site-packages as it is, before the dist-info, and its entry
// points into entry_points.txt; RECORD lists them with their hashes.
func TestWheelPython(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "recomp")
	os.WriteFile(bin, []byte("binary"), 0o755)
	w := &Wheel{Name: "recomp", Version: "1.2.3", Tags: []string{"win_amd64"}, Command: "recomp", Binary: bin,
		Python:      fstest.MapFS{"recomp/__init__.py": {Data: []byte("x = 1\n")}, "recomp/pytest_plugin.py": {Data: []byte("y = 2\n")}},
		EntryPoints: "[pytest11]\nrecomp = recomp.pytest_plugin\n"}
	var buf bytes.Buffer
	if err := w.Write(&buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		names = append(names, f.Name)
		files[f.Name] = string(b)
	}
	want := "recomp-1.2.3.data/scripts/recomp recomp/__init__.py recomp/pytest_plugin.py recomp-1.2.3.dist-info/entry_points.txt " +
		"recomp-1.2.3.dist-info/METADATA recomp-1.2.3.dist-info/WHEEL recomp-1.2.3.dist-info/RECORD"
	if strings.Join(names, " ") != want {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(names, " "), want)
	}
	if files["recomp/pytest_plugin.py"] != "y = 2\n" || files["recomp-1.2.3.dist-info/entry_points.txt"] != w.EntryPoints {
		t.Errorf("files %q", files)
	}
	if rec := files["recomp-1.2.3.dist-info/RECORD"]; !strings.Contains(rec, "recomp/__init__.py,sha256=") || !strings.Contains(rec, "entry_points.txt,sha256=") {
		t.Errorf("RECORD %s", rec)
	}
}
