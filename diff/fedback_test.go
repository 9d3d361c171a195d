package diff

import (
	"fmt"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// TestFedBack: a decoding step that appends the new token's key to the cache it was given and
// returns the cache: the next version is fed the cache the last one returned (FedBack). A step
// fed a longer sequence it does not return is not.
func TestFedBack(t *testing.T) {
	step := func(n int, returns bool) *hlo.Module {
		root := fmt.Sprintf("ROOT out = (f32[1,%d,4]{2,1,0}, f32[1,4]{1,0}) tuple(cat, s)", n+1)
		if !returns {
			root = "ROOT out = (f32[1,4]{1,0}) tuple(s)"
		}
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  cache = f32[1,%[1]d,4]{2,1,0} parameter(0)
  k = f32[1,1,4]{2,1,0} parameter(1)
  cat = f32[1,%[2]d,4]{2,1,0} concatenate(cache, k), dimensions={1}
  z = f32[] constant(0)
  s = f32[1,4]{1,0} reduce(cat, z), dimensions={1}, to_apply=add
  %[3]s
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
`, n, n+1, root)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := Compare(step(6, true), step(7, true))
	if len(r.Causes) == 0 || r.Causes[0].Kind != CauseInputShape || !r.Causes[0].FedBack {
		t.Errorf("the cache fed back: %+v", r.Causes)
	}
	r = Compare(step(6, false), step(7, false))
	if len(r.Causes) == 0 || r.Causes[0].Kind != CauseInputShape || r.Causes[0].FedBack {
		t.Errorf("a longer input, not returned: %+v", r.Causes)
	}
	r = Compare(step(6, true), step(8, true))
	if len(r.Causes) == 0 || r.Causes[0].FedBack {
		t.Errorf("fed a cache two longer than the last one returned: %+v", r.Causes)
	}
}
