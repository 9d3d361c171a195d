package keras_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// Keras's bar states and the records printed between them, as a Linux terminal or file gets
// them (a Keras 3 program on JAX with flax nnx, verbose=1): each record glued after a state that
// did not end its line is read besides the state, and a state redrawn after backspaces is read.
func TestBarsAndGluedRecords(t *testing.T) {
	text := "Epoch 1/4\n" +
		"Finished XLA compilation of jit(<lambda>) in 0.397842646 sec\n" +
		"\r\x1b[1m1/5\x1b[0m \x1b[32m━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m2s\x1b[0m 594ms/step - loss: 0.7597" +
		"Finished XLA compilation of jit(<lambda>) in 0.287109852 sec\n" +
		"\b\b\b\b\b\b\r\x1b[1m5/5\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m3s\x1b[0m 93ms/step - loss: 0.5 - val_loss: 0.4\n"
	evs, st := scantest.Scan(t, text, logscan.Options{})
	var got []string
	for _, ev := range evs {
		got = append(got, fmt.Sprintf("%d:%s:%s:%s:%s", ev.Line, ev.Kind, ev.Phase, ev.Step, ev.Detail))
	}
	want := "1:progress:epoch:1/4:Epoch 1/4 2:request_done::: 3:progress:bar:1/5:loss 3:request_done::: 4:progress:bar:5/5:loss val_loss"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if st.Unread != 0 {
		t.Errorf("unread lines: %+v", st.UnreadLines)
	}
}
