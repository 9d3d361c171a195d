package runfolder

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The follower gives, after each write (lines cut anywhere), the records ReadProbe reads of the
// whole lines written so far, repeated calls folded as ReadProbe folds them.
func TestProbeFollowerIsReadProbe(t *testing.T) {
	dir := t.TempDir()
	fol := FollowProbe(dir)
	defer fol.Close()
	if recs, err := fol.Records(); recs != nil || err != nil {
		t.Fatalf("no probe.jsonl yet: %+v %v", recs, err)
	}
	var b strings.Builder
	for i := range 20 {
		b.WriteString(predictCall(float64(i), 40))
		if i%7 == 6 {
			fmt.Fprintf(&b, `{"framework":"jax","event":"compile","name":"jit(step)","t":%d.5,"pid":7}`+"\n", i)
		}
	}
	b.WriteString("not json\n" + predictCall(30, 41))
	text := b.String()
	f, err := os.Create(filepath.Join(dir, ProbeName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	written := 0
	for cut := 0; cut <= len(text); cut += 97 {
		if _, err := f.WriteString(text[written:cut]); err != nil {
			t.Fatal(err)
		}
		written = cut
		got, err := fol.Records()
		if err != nil {
			t.Fatal(err)
		}
		whole := text[:strings.LastIndexByte(text[:cut], '\n')+1] // ReadProbe of the whole lines
		ref := t.TempDir()
		os.WriteFile(filepath.Join(ref, ProbeName), []byte(whole), 0o644)
		want, _ := ReadProbe(ref)
		if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("after %d bytes: the follower gives %d records, ReadProbe %d\n%+v\n%+v", cut, len(got), len(want), got, want)
		}
	}
}

// The follower reads only what was written since its last call: bytes rewritten behind it are
// not read again.
func TestProbeFollowerReadsNewBytesOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ProbeName)
	first := `{"framework":"jax","event":"compile","name":"jit(a)","t":1,"pid":7}` + "\n"
	os.WriteFile(path, []byte(first), 0o644)
	fol := FollowProbe(dir)
	defer fol.Close()
	if recs, _ := fol.Records(); len(recs) != 1 || recs[0].Name != "jit(a)" {
		t.Fatalf("%+v", recs)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteAt([]byte(strings.Replace(first, "jit(a)", "jit(z)", 1)), 0) // behind the follower
	f.WriteAt([]byte(`{"framework":"jax","event":"compile","name":"jit(b)","t":2,"pid":7}`+"\n"), int64(len(first)))
	recs, err := fol.Records()
	if err != nil || len(recs) != 2 || recs[0].Name != "jit(a)" || recs[1].Name != "jit(b)" {
		t.Errorf("%+v %v", recs, err)
	}
}

// The live path's reading of the probe's records while a run goes on: 200 compilations after
// warm-up, each after 50 more records, read by a follower (new bytes only) or by ReadProbe of
// the whole file each time (as before).
func BenchmarkProbeDuringRun(b *testing.B) {
	var batch strings.Builder
	for i := range 50 {
		fmt.Fprintf(&batch, `{"framework":"jax","event":"trace","name":"step_%d","file":"/w/train.py","line":%d,"t":%d.5,"pid":7}`+"\n", i, i, i)
	}
	for _, mode := range []string{"follower", "ReadProbe"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(200 * batch.Len()))
			for range b.N {
				dir := b.TempDir()
				f, err := os.Create(filepath.Join(dir, ProbeName))
				if err != nil {
					b.Fatal(err)
				}
				fol := FollowProbe(dir)
				for range 200 {
					f.WriteString(batch.String())
					if mode == "follower" {
						fol.Records()
					} else {
						ReadProbe(dir)
					}
				}
				fol.Close()
				f.Close()
			}
		})
	}
}
