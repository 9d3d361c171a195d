package runfolder

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Round 4 (issue 43), class 5: argv and env are kept byte for byte. Two commands that differ
// only in a byte that is not UTF-8 (Latin-1 `caf\xe9` and `caf\xe8`) are told apart in
// manifest.json and read back as they ran.
func TestManifestKeepsBytes(t *testing.T) {
	m := &Manifest{Version: 1, Command: []string{"python", "caf\xe9", "caf\xe8", "ok\xff\xfe", "mixed é \xe9"},
		WorkDir: "/data/r\xe9sum\xe9", DumpDir: "/d\x80", Forwarded: []string{}, Versions: map[string]string{},
		Settings: []Setting{{Name: "MY_VAR", Value: "na\xefve", Kept: true}},
		Launcher: map[string]string{"RANK": "0\xa0"},
		Caches:   []CacheSnapshot{{Dir: "/cache/\xe9", Added: []string{"entry\xe9"}}}}
	dir := t.TempDir()
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) {
		t.Errorf("manifest.json is not UTF-8")
	}
	for _, want := range []string{`"caf\udce9"`, `"caf\udce8"`, `"ok\udcff\udcfe"`, `"mixed é \udce9"`, `"na\udcefve"`, `"/data/r\udce9sum\udce9"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("manifest.json lacks %s:\n%s", want, b)
		}
	}
	if bytes.Contains(b, []byte(`\ufffd`)) {
		t.Errorf("a byte was replaced by U+FFFD:\n%s", b)
	}
	got, err := ReadManifest(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Command, m.Command) || got.WorkDir != m.WorkDir || got.DumpDir != m.DumpDir ||
		!reflect.DeepEqual(got.Settings, m.Settings) || !reflect.DeepEqual(got.Launcher, m.Launcher) ||
		!reflect.DeepEqual(got.Caches, m.Caches) {
		t.Errorf("read back %q %q %q %q %v %v", got.Command, got.WorkDir, got.DumpDir, got.Settings[0].Value, got.Launcher, got.Caches)
	}
	if m.Command[1] != "caf\xe9" {
		t.Errorf("writing changed the caller's manifest: %q", m.Command)
	}

	// Python reads the escape back as the same bytes (surrogateescape, PEP 383).
	if py, err := exec.LookPath("python3"); err == nil {
		out, err := exec.Command(py, "-c", `import json, os, sys; m = json.load(open(sys.argv[1], encoding="utf-8")); sys.stdout.buffer.write(b"|".join(os.fsencode(a) for a in m["command"]))`,
			filepath.Join(dir, ManifestName)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(m.Command, "|"); string(out) != want {
			t.Errorf("Python read %q, want %q", out, want)
		}
	}
}

// A manifest of valid UTF-8 is written exactly as encoding/json writes it (existing manifests
// and goldens stay the same), U+FFFD and escapes written as text included.
func TestManifestTextUnchanged(t *testing.T) {
	m := Manifest{Version: 1, Command: []string{"python", "x\ufffd", `a\u0000b`, "<&>", "\u2028", "caf\u00e9"},
		Settings: []Setting{{Name: "A", Value: `\udce9`}}, Launcher: map[string]string{}, Versions: map[string]string{"jax": "0.4"}}
	got, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(manifestJSON(m), "", "  ")
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var back Manifest
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Command, m.Command) || back.Settings[0].Value != `\udce9` {
		t.Errorf("read back %q %q", back.Command, back.Settings[0].Value)
	}
}

// A surrogate pair written by another tool (Python's ensure_ascii) is a character, not bytes.
func TestManifestSurrogatePair(t *testing.T) {
	var m Manifest
	if err := json.Unmarshal([]byte(`{"command": ["\ud83d\ude00", "\udbff\udcff", "\udce9\udce8"]}`), &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"\U0001F600", "\U0010FCFF", "\xe9\xe8"}
	if !reflect.DeepEqual(m.Command, want) {
		t.Errorf("got %q, want %q", m.Command, want)
	}
}

// Any argument without a NUL (none can hold one) round-trips through manifest.json.
func FuzzManifestBytes(f *testing.F) {
	for _, s := range []string{"caf\xe9", "", "é", "\xed\xb3\xa9", `\u0000é`, "\xc3", "a\\\xe9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("no argument holds a NUL")
		}
		b, err := json.Marshal(Manifest{Command: []string{s}, WorkDir: s})
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b) {
			t.Fatalf("%q: not UTF-8: %s", s, b)
		}
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%q: %s: %v", s, b, err)
		}
		if len(m.Command) != 1 || m.Command[0] != s || m.WorkDir != s {
			t.Fatalf("%q came back %q (%s)", s, m.Command, b)
		}
	})
}
