package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/internal/atomicfile"
	"github.com/recomp/recomp/internal/option"
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

// Style is how a report is written: Color for a terminal (text only); Meta is where the report
// came from (HTML shows it); Root is the repository the program's files are under (GitHub
// annotations name a user's line relative to it; "" names the log's line instead).
type Style struct {
	Color bool
	// Width is the terminal's width in columns: text's answer lines are wrapped to it (0: not
	// wrapped, as for a file or a pipe).
	Width int
	Meta  Meta
	Root  string
}

// Report is one of the report models: *Scan, *Guard, *Diff, *Cache, *Run, *RunsDiff, *Ranks.
type Report any

// commandOf is the command whose report r is ("" for a value that is not a report model).
func commandOf(r Report) string {
	switch r := r.(type) {
	case *explain.Scan:
		return "scan"
	case *across.Guard:
		return "guard"
	case *explain.Diff:
		if r.Command == "" {
			return "diff"
		}
		return r.Command
	case *Cache:
		return "cache"
	case *explain.Run:
		return "run"
	case *across.RunsDiff:
		return "diff"
	case *explain.Ranks:
		return "ranks"
	}
	return ""
}

// layout is one output format: the reports it lays out (by command) and how it writes one.
type layout struct {
	format  Format
	reports []string
	write   func(w io.Writer, r Report, st Style) error
}

var allReports = []string{"scan", "guard", "diff", "explain", "cache", "run", "ranks"}

// layouts are the formats, in the order help shows them. Text, Markdown and HTML lay out the
// report's document; JSON projects the model; GitHub annotations and JUnit XML are a gate's.
var layouts = []layout{
	{Text, allReports, func(w io.Writer, r Report, st Style) error {
		if run, ok := r.(*explain.Run); ok && run.Explain != nil {
			c := *run // the summary printed at the end of a run stays short: report.md and report.html keep the diffs
			c.Explain = withoutTextDiffs(run.Explain)
			r = &c
		}
		return writeText(w, document(r), st.Color, st.Width)
	}},
	{JSON, allReports, func(w io.Writer, r Report, _ Style) error { return writeJSONReport(w, r) }},
	{GitHub, []string{"guard"}, func(w io.Writer, r Report, st Style) error { return writeGitHub(w, r.(*across.Guard), st) }},
	{JUnit, []string{"guard"}, func(w io.Writer, r Report, _ Style) error { return writeJUnit(w, r.(*across.Guard)) }},
	{Markdown, allReports, func(w io.Writer, r Report, _ Style) error { return writeMarkdown(w, document(r)) }},
	{HTML, allReports, func(w io.Writer, r Report, st Style) error { return writePage(w, document(r), st.Meta) }},
}

// Formats returns the formats a command can write.
func Formats(command string) []Format {
	var fs []Format
	for _, l := range layouts {
		if slices.Contains(l.reports, command) {
			fs = append(fs, l.format)
		}
	}
	return fs
}

// CheckFormat returns an error naming the formats a command can write when f is not one.
func CheckFormat(command string, f Format) error {
	fs := Formats(command)
	if slices.Contains(fs, f) {
		return nil
	}
	var names []string
	for _, x := range fs {
		names = append(names, string(x))
	}
	return option.New([]string{"format"}, "%[1]s %[2]q: recomp %[3]s writes %[4]s", f, command, strings.Join(names, ", "))
}

// Render writes r in format f. A write that fails (a closed pipe, a full device) is its error,
// in every format.
func Render(w io.Writer, f Format, r Report, st Style) error {
	if err := CheckFormat(commandOf(r), f); err != nil {
		return err
	}
	var write func(io.Writer, Report, Style) error
	for _, l := range layouts {
		if l.format == f {
			write = l.write
		}
	}
	// The guard writes line by line: a report with tens of thousands of lines (a module's
	// hashes) would be as many write calls on an unbuffered stdout.
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	var err error
	if f == GitHub {
		// every line is one of recomp's workflow commands, whose data is escaped (ghData)
		err = write(ew, r, st)
	} else {
		g := newLineGuard(ew, f)
		err = write(g, r, st)
		if cerr := g.Close(); err == nil {
			err = cerr
		}
	}
	if ew.err == nil {
		ew.err = bw.Flush()
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

// RunFiles are the reports recomp run writes into its run folder, and their formats.
var RunFiles = []struct {
	Name   string
	Format Format
}{{"report.json", JSON}, {"report.md", Markdown}, {"report.html", HTML}}

// WriteRunFiles writes the run's reports into its folder, each atomically: a failed write
// leaves no truncated report.
func WriteRunFiles(dir string, r *explain.Run, st Style) error {
	for _, f := range RunFiles {
		var b bytes.Buffer
		if err := Render(&b, f.Format, r, st); err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(dir, f.Name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
