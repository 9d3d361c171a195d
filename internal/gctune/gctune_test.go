package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, maxGCPercent},
		{2 * mb, maxGCPercent},   // goal 10 MB: under 32
		{6 * mb, maxGCPercent},   // 30 MB
		{8 * mb, 300},            // exactly 32 MB
		{12 * mb, 166},           // 32 MB
		{16 * mb, minGCPercent},  // 32 MB
		{100 * mb, minGCPercent}, // never below the default
	} {
		if got := gcPercent(c.live, 32*mb); got != c.want {
			t.Errorf("gcPercent(%d MB, 32 MB) = %d, want %d", c.live/mb, got, c.want)
		}
		if g := gcPercent(c.live, 32*mb); g > minGCPercent && g < maxGCPercent && c.live*uint64(100+g)/100 > 32*mb {
			t.Errorf("%d MB live: GOGC %d puts the goal over 32 MB", c.live/mb, g)
		}
	}
}

// gogc reads GOGC (setting it back at once).
func gogc() int {
	old := debug.SetGCPercent(-1)
	debug.SetGCPercent(old)
	return old
}

// waitGOGC collects until GOGC is want (the tuner sets it after each collection).
func waitGOGC(t *testing.T, want int) {
	t.Helper()
	for range 200 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if gogc() == want {
			return
		}
	}
	t.Fatalf("GOGC %d, want %d", gogc(), want)
}

// Tune lowers GOGC to the default once the live heap is large, raises it when the heap is
// small again, and gives back the GOGC it found; GOGC in the environment turns it off.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	before := gogc()
	stop := Tune(32 << 20)
	if g := gogc(); g != maxGCPercent {
		t.Errorf("GOGC %d at the start, want %d", g, maxGCPercent)
	}
	live := make([][]byte, 24)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	waitGOGC(t, minGCPercent)
	runtime.KeepAlive(live)
	live = nil
	waitGOGC(t, maxGCPercent)
	stop()
	if g := gogc(); g != before {
		t.Errorf("GOGC %d after stop, want %d", g, before)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if g := gogc(); g != before {
		t.Errorf("GOGC %d after stop and a collection, want %d", g, before)
	}

	// a second tuner while one is at work leaves GOGC to the first: stopped in either order,
	// GOGC is what the first found
	stop = Tune(32 << 20)
	stop2 := Tune(32 << 20)
	stop()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	stop2()
	if g := gogc(); g != before {
		t.Errorf("GOGC %d after two tuners stopped, want %d", g, before)
	}
	stop()
	if g := gogc(); g != before {
		t.Errorf("GOGC %d after a second stop, want %d", g, before)
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	stop = Tune(32 << 20)
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if g := gogc(); g != 150 {
		t.Errorf("with GOGC=150 set, GOGC is %d", g)
	}
	stop()
}

// Limit sets MemoryLimit, unless GOMEMLIMIT has set the limit.
func TestLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOMEMLIMIT", "1TiB")
	if Limit(); debug.SetMemoryLimit(-1) != 1<<40 {
		t.Error("Limit changed the limit GOMEMLIMIT set")
	}
	t.Setenv("GOMEMLIMIT", "")
	if Limit(); debug.SetMemoryLimit(-1) != MemoryLimit {
		t.Errorf("limit %d, want %d", debug.SetMemoryLimit(-1), MemoryLimit)
	}
}
