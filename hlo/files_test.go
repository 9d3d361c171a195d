package hlo

import (
	"errors"
	"testing"
)

// TestParseFiles: each file in order with its module, its read error or its positioned parse
// errors (and the partial module); stopping early reads no further file.
func TestParseFiles(t *testing.T) {
	files := map[string]string{
		"ok.txt":  "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
		"bad.txt": "HloModule m\n\nENTRY e {\n  ROOT p = f32[ parameter(0)\n}\n",
	}
	var read []string
	readFile := func(p string) ([]byte, error) {
		read = append(read, p)
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	}
	var got []FileResult
	for r := range ParseFiles([]string{"ok.txt", "missing.txt", "bad.txt"}, readFile) {
		got = append(got, r)
	}
	if len(got) != 3 || got[0].Path != "ok.txt" || got[1].Path != "missing.txt" || got[2].Path != "bad.txt" {
		t.Fatalf("got %+v", got)
	}
	if got[0].Err != nil || got[0].Module == nil || got[0].Module.Name != "m" {
		t.Errorf("ok.txt: %+v", got[0])
	}
	if got[1].Err == nil || got[1].Module != nil {
		t.Errorf("missing.txt: %+v", got[1])
	}
	var list ErrorList
	if !errors.As(got[2].Err, &list) || len(list) == 0 || got[2].Module == nil {
		t.Errorf("bad.txt: want an ErrorList and the partial module, got %+v", got[2])
	}
	read = nil
	for range ParseFiles([]string{"ok.txt", "bad.txt"}, readFile) {
		break
	}
	if len(read) != 1 {
		t.Errorf("stopping after the first file read %v", read)
	}
}
