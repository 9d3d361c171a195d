package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// On a terminal the answer lines are wrapped to its width, the action indented under its arrow;
// a pipe or a file gets them whole.
func TestAnswerWrappedToTheTerminal(t *testing.T) {
	long := strings.Repeat("the step compiled again because a Python value changed ", 8)
	d := &Document{Title: "recomp scan", Headline: "1 input", Answer: []Answer{{Tone: "bad", Text: long, Action: long}}}
	var b bytes.Buffer
	if err := writeText(&b, d, false, 80); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) < 10 {
		t.Fatalf("not wrapped:\n%s", b.String())
	}
	arrow := false
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(l), l)
		}
		arrow = arrow || strings.HasPrefix(l, "    → ")
	}
	if !arrow {
		t.Error("no action line")
	}
	b.Reset()
	if err := writeText(&b, d, false, 0); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Errorf("unwrapped: %d lines\n%s", n, b.String())
	}
}

// In HTML a long unbroken name (a module family, a path) wraps inside the answer and the cards
// instead of running out of them.
func TestHTMLNamesWrap(t *testing.T) {
	d := &Document{Title: "recomp scan", Headline: "1 input", Answer: []Answer{{Tone: "bad", Text: strings.Repeat("a_inference_train_step_", 30)}}}
	var b bytes.Buffer
	if err := writePage(&b, d, Meta{}); err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{"section.answer li{margin:0 0 8px;overflow-wrap:anywhere}", ".card p{margin:3px 0;overflow-wrap:anywhere}"} {
		if !strings.Contains(b.String(), rule) {
			t.Errorf("the page lacks %q", rule)
		}
	}
}
