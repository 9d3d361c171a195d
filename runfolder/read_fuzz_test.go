package runfolder

import (
	"os"
	"path/filepath"
	"testing"
)

// The readers of a run folder's files recomp did not necessarily write whole: any bytes are an
// error or a value, never a panic.

func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"version": 1, "command": ["python", "train.py"], "start": "2026-01-01T00:00:00Z", "exit_code": 0}`))
	f.Add([]byte(`{"version": 1, "versions": {"jax": "0.4"}, "caches": [{"dir": "/c", "added": ["a"]}]}`))
	f.Add([]byte(`{"version": 1, "start": "not a time"}`))
	f.Add([]byte("{\"version\": 1,\n"))
	f.Add([]byte("\x00\xff"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, ManifestName)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Skip(err)
		}
		m, err := ReadManifest(p)
		if err == nil && m == nil {
			t.Fatal("no manifest and no error")
		}
	})
}

func FuzzReadProbe(f *testing.F) {
	f.Add([]byte(`{"framework":"jax","event":"compile","seconds":0.5,"name":"f","file":"train.py","line":3,"function":"main","t":1700000000.5,"pid":1}` + "\n"))
	f.Add([]byte(`{"framework":"keras","event":"fit_begin","samples":100,"batch_size":32,"t":1,"pid":1}` + "\n{\"event\":"))
	f.Add([]byte("\n\n{}\n{\"event\":\"x\",\"t\":1e308}\n"))
	f.Add([]byte(`{"event":"trace","t0":-1,"t":-1e20}`))
	f.Add([]byte(`{"framework":"torch-xla","event":"steps","step":9,"compiles":3,"compile_ns":[1687713424,-5,1e30],"loader":"7f","t":1,"pid":2}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, ProbeName), b, 0o644); err != nil {
			t.Skip(err)
		}
		recs, err := ReadProbe(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Event == "" {
				t.Fatal("a record without an event")
			}
			_ = r.Time()
			_ = r.Begin()
		}
	})
}
