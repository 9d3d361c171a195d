package jax

import "testing"

// Every user-like name overrides a name of the eager list (one that is not on it needs no
// override), and is then not taken for an eager program.
func TestUserLikeNames(t *testing.T) {
	for n := range userLike() {
		if !jaxNames()[n] {
			t.Errorf("%q is not an eager name: its entry in userLike does nothing", n)
		}
		if eager("jit_"+n, "") {
			t.Errorf("jit_%s is taken for an eager program", n)
		}
	}
	if !eager("jit_broadcast_in_dim", "") || !eager("jit__normal", "") {
		t.Error("eager programs are no longer recognised")
	}
}
