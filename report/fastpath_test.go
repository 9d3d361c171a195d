package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentSeeds are documents with what indentJSON must copy exactly: escapes, quotes and
// brackets inside strings, empty objects and arrays, nesting, numbers, literals.
var indentSeeds = []string{
	`{}`, `[]`, `""`, `0`, `null`, `-1.5e+10`, `[[],{},[{}],{"a":[]}]`,
	`{"a":1,"b":[1,2,{"c":"d"}],"e":{},"f":[],"g":null,"h":true}`,
	`{"s":"a\"b\\\\c\\\"d","t":"{[,:]}","u":"\u001b\u2028 é \\"}`,
	`[{"k\"":"v\\"},"\\\\",""]`,
	` { "spaced" : [ 1 , 2 ] } `,
}

// indentLikeEncoder is what json.Encoder with SetIndent("", indent) writes of a document
// encoding/json wrote compact (with the Encoder's newline).
func indentLikeEncoder(t testing.TB, doc []byte) (src, want []byte, ok bool) {
	var c bytes.Buffer
	if err := json.Compact(&c, doc); err != nil {
		return nil, nil, false
	}
	c.WriteByte('\n')
	var w bytes.Buffer
	if err := json.Indent(&w, c.Bytes(), "", "  "); err != nil {
		t.Fatalf("json.Indent of compact JSON: %v", err)
	}
	return c.Bytes(), w.Bytes(), true
}

func TestIndentJSON(t *testing.T) {
	for _, s := range indentSeeds {
		src, want, ok := indentLikeEncoder(t, []byte(s))
		if !ok {
			t.Fatalf("seed %q is not JSON", s)
		}
		if got := indentJSON(nil, src, "  "); !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", s, got, want)
		}
	}
	// a whole report, as json.Encoder wrote it before
	doc := ScanDocument(hostileGuard(t).Scan)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeJSON(&got, doc); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("writeJSON differs from json.Encoder's indentation:\n%s\nwant\n%s", got.String(), want.String())
	}
}

func FuzzIndentJSON(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		src, want, ok := indentLikeEncoder(t, doc)
		if !ok {
			return
		}
		if got := indentJSON(nil, src, "  "); !bytes.Equal(got, want) {
			t.Errorf("%q:\n%s\nwant\n%s", src, got, want)
		}
	})
}

// guardOut is what a lineGuard of format f writes of p given in pieces of size n (0: whole).
func guardOut(t *testing.T, f Format, p []byte, n int) []byte {
	var b bytes.Buffer
	g := newLineGuard(&b, f)
	for len(p) > 0 {
		k := len(p)
		if n > 0 {
			k = min(n, k)
		}
		if m, err := g.Write(p[:k]); m != k || err != nil {
			t.Fatalf("Write: %d, %v", m, err)
		}
		p = p[k:]
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkGuardWhole: lines written together (the guard's fast path for lines none of which needs
// defusing) come out as they do one byte at a time (line by line, every line through emit).
func checkGuardWhole(t *testing.T, p []byte) {
	for _, f := range []Format{Text, JSON, Markdown, HTML} {
		want := guardOut(t, f, p, 1)
		for _, n := range []int{0, 7, 64} {
			if got := guardOut(t, f, p, n); !bytes.Equal(got, want) {
				t.Errorf("%s, pieces of %d: %q\nwant %q", f, n, got, want)
			}
		}
	}
}

func TestLineGuardWhole(t *testing.T) {
	for _, s := range append(hostileTexts, "{\n  \"a\": \"b\"\n}\n", "x\r\ny\rz\n::", "a:\n:b\n##\n[", "é\n\x7f\n") {
		checkGuardWhole(t, []byte(s))
	}
}

func FuzzLineGuardWhole(f *testing.F) {
	for _, s := range hostileTexts {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) { checkGuardWhole(t, p) })
}
