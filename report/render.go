package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Format is an output format.
type Format string

// Output formats.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	GitHub   Format = "github"
	JUnit    Format = "junit"
	HTML     Format = "html"
)

// Style is how a renderer writes: Color for a terminal (text only); Meta is where the report
// came from (HTML shows it).
type Style struct {
	Color bool
	Meta  Meta
}

// Report is one of the report models: *Scan, *Guard, *Diff, *Cache, *Run.
type Report interface{ command() string }

func (*Scan) command() string  { return "scan" }
func (*Guard) command() string { return "guard" }
func (d *Diff) command() string {
	if d.Command == "" {
		return "diff"
	}
	return d.Command
}
func (*Cache) command() string { return "cache" }
func (*Run) command() string   { return "run" }

// renderer writes the models one format supports; the others return errUnsupported.
type renderer interface {
	scan(w io.Writer, r *Scan) error
	guard(w io.Writer, r *Guard) error
	diff(w io.Writer, r *Diff) error
	cache(w io.Writer, r *Cache) error
	run(w io.Writer, r *Run) error
}

var renderers = map[Format]func(Style) renderer{
	Text:     func(st Style) renderer { return textRenderer{p: painter{st.Color}} },
	JSON:     func(Style) renderer { return jsonRenderer{} },
	Markdown: func(Style) renderer { return markdownRenderer{} },
	GitHub:   func(Style) renderer { return githubRenderer{unsupported{GitHub}} },
	JUnit:    func(Style) renderer { return junitRenderer{unsupported{JUnit}} },
	HTML:     func(st Style) renderer { return htmlRenderer{unsupported{HTML}, st.Meta} },
}

// formats lists the formats of each command, in the order help shows them.
var formats = map[string][]Format{
	"scan":    {Text, JSON, Markdown, HTML},
	"guard":   {Text, JSON, GitHub, JUnit, Markdown, HTML},
	"diff":    {Text, JSON, Markdown, HTML},
	"explain": {Text, JSON, Markdown, HTML},
	"cache":   {Text, JSON, Markdown},
	"run":     {Text, JSON, Markdown, HTML},
	"ranks":   {Text, JSON, Markdown, HTML},
}

// Formats returns the formats a command can write.
func Formats(command string) []Format { return formats[command] }

// CheckFormat returns an error naming the formats a command can write when f is not one.
func CheckFormat(command string, f Format) error {
	if slices.Contains(formats[command], f) {
		return nil
	}
	var names []string
	for _, x := range formats[command] {
		names = append(names, string(x))
	}
	return fmt.Errorf("--format %q: recomp %s writes %s", f, command, strings.Join(names, ", "))
}

// Render writes r in format f. A write that fails (a closed pipe, a full device) is its error,
// in every format.
func Render(w io.Writer, f Format, r Report, st Style) error {
	if err := CheckFormat(r.command(), f); err != nil {
		return err
	}
	rd := renderers[f](st)
	ew := &errWriter{w: w}
	w = ew
	if f == Text {
		w = &controlSafe{w: w}
	}
	var err error
	switch r := r.(type) {
	case *Scan:
		err = rd.scan(w, r)
	case *Guard:
		err = rd.guard(w, r)
	case *Diff:
		err = rd.diff(w, r)
	case *Cache:
		err = rd.cache(w, r)
	case *Run:
		err = rd.run(w, r)
	case selfRendered:
		err = r.render(w, f, st)
	default:
		err = fmt.Errorf("no renderer for %T", r)
	}
	if ew.err != nil {
		return fmt.Errorf("writing the report: %w", ew.err)
	}
	return err
}

// errWriter keeps the first write error; the writes after it are not attempted.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

// unsupported is embedded by the renderers of formats that do not fit every command.
type unsupported struct{ format Format }

func (u unsupported) err(cmd string) error {
	return fmt.Errorf("recomp %s cannot write %s", cmd, u.format)
}
func (u unsupported) scan(io.Writer, *Scan) error   { return u.err("scan") }
func (u unsupported) guard(io.Writer, *Guard) error { return u.err("guard") }
func (u unsupported) diff(io.Writer, *Diff) error   { return u.err("diff") }
func (u unsupported) cache(io.Writer, *Cache) error { return u.err("cache") }
func (u unsupported) run(io.Writer, *Run) error     { return u.err("run") }
