package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/report"
)

type hloCmd struct {
	Check       hloCheckCmd       `cmd:"" help:"Parse HLO text files; print positioned errors (exit 2 on any)."`
	Fingerprint hloFingerprintCmd `cmd:"" help:"Print the normalised fingerprint of each HLO file."`
}

type hloCheckCmd struct {
	Files []string `arg:"" name:"FILE" help:"HLO text files ('-' for stdin, .gz read transparently)."`
}

type hloFingerprintCmd struct {
	Files []string `arg:"" name:"FILE" help:"HLO text files ('-' for stdin, .gz read transparently)."`
}

// guardLines are the command's stdout and stderr for lines that begin with a file name or a
// module name: no such line can be a CI runner's command (report.NewLineGuard).
func guardLines(e *env) (stdout, stderr io.WriteCloser) {
	return report.NewLineGuard(e.stdout), report.NewLineGuard(e.stderr)
}

// eachHLO parses files (hlo.ParseFiles) and writes, for each, ok's line to stdout or its error
// to stderr: a parse's positioned errors one a line when listErrors, else one error line. It
// fails with exit 2 when a file did not parse.
func eachHLO(e *env, files []string, listErrors bool, ok func(f string, m *hlo.Module) string) error {
	if err := checkInputs(files); err != nil {
		return err
	}
	stdout, stderr := guardLines(e)
	defer stdout.Close()
	defer stderr.Close()
	read := func(path string) ([]byte, error) {
		src, err := diff.ReadFileMax(path, e.stdin, e.maxHLO)
		if err == nil {
			e.log.Trace("parsing", "file", path, "bytes", len(src))
		}
		return src, err
	}
	bad := 0
	for r := range hlo.ParseFiles(files, read) {
		var list hlo.ErrorList
		switch {
		case listErrors && errors.As(r.Err, &list):
			bad++
			for _, pe := range list {
				fmt.Fprintln(stderr, textutil.Visible(pe.Error()))
			}
		case r.Err != nil:
			bad++
			fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(r.Err.Error()))
		default:
			if _, err := fmt.Fprintln(stdout, ok(r.Path, r.Module)); err != nil {
				return usageErr("writing the result: %v", err)
			}
		}
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(files))}
	}
	return nil
}

func (c *hloCheckCmd) Run(e *env) error {
	return eachHLO(e, c.Files, true, func(f string, m *hlo.Module) string {
		return fmt.Sprintf("%s: ok: module %s, %d computations, %d instructions", textutil.Visible(f), textutil.Visible(m.Name),
			len(m.Computations), m.InstructionCount())
	})
}

func (c *hloFingerprintCmd) Run(e *env) error {
	return eachHLO(e, c.Files, false, func(f string, m *hlo.Module) string {
		return fmt.Sprintf("%s  %s  %s", hlo.Fingerprint(m), textutil.Visible(m.Name), textutil.Visible(f))
	})
}
