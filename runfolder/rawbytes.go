package runfolder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A command's arguments, its environment and the paths it names are bytes, not text: Linux
// passes `caf\xe9` (Latin-1) as it is. JSON strings are Unicode, and encoding/json turns each
// byte that is not UTF-8 into U+FFFD, so that `caf\xe9` and `caf\xe8` would both read back as
// `caf\ufffd`. The manifest keeps such strings byte for byte with the escape of Python's
// surrogateescape (PEP 383): a byte 0x80-0xFF that is not part of valid UTF-8 is written as the
// lone surrogate `\udcXX`. Valid UTF-8 is written as encoding/json writes it (no manifest of
// text changes), a lone surrogate is never text (UTF-8 cannot encode one, and encoding/json writes
// none), so the escape is unambiguous and reversible; Python's json.load followed by
// os.fsencode gives the bytes back.
//
// The escape is applied in two steps around encoding/json, on the fields that hold bytes from
// the system (rawFields): before encoding, each such byte becomes a NUL followed by the rune of
// the same number (U+0080-U+00FF), which encoding/json writes as `\u0000` and that rune; after
// encoding, that pair becomes `\udcXX`. Reading does the reverse. A NUL cannot be part of an
// argument, a variable or a path, so the pair stands for nothing else.

// markBytes returns s with each byte that is not part of valid UTF-8 replaced by NUL and the
// rune of the byte's value; valid UTF-8 is returned as it is.
func markBytes(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, 0)
			b = utf8.AppendRune(b, rune(s[i]))
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// unmarkBytes is markBytes's inverse: NUL followed by a rune U+0080-U+00FF is that byte.
func unmarkBytes(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			if r, size := utf8.DecodeRuneInString(s[i+1:]); r >= 0x80 && r <= 0xff && size == 2 {
				b = append(b, byte(r))
				i += size
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// escapeMarked rewrites, in JSON text encoding/json wrote from marked strings, each `\u0000`
// followed by a rune U+0080-U+00FF into the surrogate escape `\udcXX`.
func escapeMarked(js []byte) []byte {
	const nul = `\u0000`
	if !bytes.Contains(js, []byte(nul)) {
		return js
	}
	out := make([]byte, 0, len(js))
	for i := 0; i < len(js); i++ {
		c := js[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		// An escape: \u0000 followed by a marked byte's rune, or any other (copied whole, so
		// that `\\u0000` is never read as one).
		if bytes.HasPrefix(js[i:], []byte(nul)) {
			if r, size := utf8.DecodeRune(js[i+len(nul):]); r >= 0x80 && r <= 0xff && size == 2 {
				out = fmt.Appendf(out, `\udc%02x`, r)
				i += len(nul) + size - 1
				continue
			}
		}
		out = append(out, c)
		if i+1 < len(js) {
			i++
			out = append(out, js[i])
		}
	}
	return out
}

// unescapeSurrogates rewrites, in JSON text, each lone surrogate escape `\udc80`-`\udcff` into
// `\u0000` and the rune of that byte, so that encoding/json (which reads a lone surrogate as
// U+FFFD) keeps it for unmarkBytes. A low surrogate after a high one is a pair: kept.
func unescapeSurrogates(js []byte) []byte {
	if !bytes.Contains(js, []byte(`\udc`)) && !bytes.Contains(js, []byte(`\uDC`)) {
		return js
	}
	out := make([]byte, 0, len(js))
	highBefore := false // the escape just copied was a high surrogate
	for i := 0; i < len(js); i++ {
		c := js[i]
		if c != '\\' || i+1 >= len(js) {
			out = append(out, c)
			highBefore = false
			continue
		}
		if js[i+1] != 'u' || i+6 > len(js) {
			out = append(out, c, js[i+1])
			i++
			highBefore = false
			continue
		}
		v, err := strconv.ParseUint(string(js[i+2:i+6]), 16, 16)
		if err != nil {
			out = append(out, c)
			highBefore = false
			continue
		}
		if v >= 0xdc80 && v <= 0xdcff && !highBefore {
			out = append(out, `\u0000`...)
			out = utf8.AppendRune(out, rune(v-0xdc00))
		} else {
			out = append(out, js[i:i+6]...)
		}
		highBefore = v >= 0xd800 && v <= 0xdbff
		i += 5
	}
	return out
}

// manifestJSON is Manifest without its methods: encoding/json's own encoding of it.
type manifestJSON Manifest

// MarshalJSON writes the manifest as encoding/json does, with the bytes of the fields that hold
// the system's (mapRawFields) kept where they are not UTF-8 (`\udcXX`).
func (m Manifest) MarshalJSON() ([]byte, error) {
	c := manifestJSON(m)
	marked := false
	mapRawFields((*Manifest)(&c), func(s string) string {
		t := markBytes(s)
		marked = marked || len(t) != len(s)
		return t
	})
	b, err := json.Marshal(c)
	if err != nil || !marked {
		return b, err
	}
	return escapeMarked(b), nil
}

// UnmarshalJSON reads a manifest, turning the escapes MarshalJSON writes back into bytes.
func (m *Manifest) UnmarshalJSON(b []byte) error {
	var c manifestJSON
	if err := json.Unmarshal(unescapeSurrogates(b), &c); err != nil {
		return err
	}
	*m = Manifest(c)
	mapRawFields(m, unmarkBytes)
	return nil
}

// mapRawFields replaces each field of m that holds the system's bytes by f of it. It copies the
// slices and maps it changes, so that a caller's manifest shares nothing it changed.
func mapRawFields(m *Manifest, f func(string) string) {
	if m.Command != nil {
		cmd := make([]string, len(m.Command))
		for i, a := range m.Command {
			cmd[i] = f(a)
		}
		m.Command = cmd
	}
	m.WorkDir, m.DumpDir = f(m.WorkDir), f(m.DumpDir)
	if m.Settings != nil {
		set := make([]Setting, len(m.Settings))
		for i, s := range m.Settings {
			s.Name, s.Value = f(s.Name), f(s.Value)
			set[i] = s
		}
		m.Settings = set
	}
	if m.Launcher != nil {
		l := make(map[string]string, len(m.Launcher))
		for k, v := range m.Launcher {
			l[f(k)] = f(v)
		}
		m.Launcher = l
	}
	if m.Caches != nil {
		cs := make([]CacheSnapshot, len(m.Caches))
		for i, c := range m.Caches {
			c.Dir = f(c.Dir)
			if c.Added != nil {
				added := make([]string, len(c.Added))
				for j, a := range c.Added {
					added[j] = f(a)
				}
				c.Added = added
			}
			cs[i] = c
		}
		m.Caches = cs
	}
}
