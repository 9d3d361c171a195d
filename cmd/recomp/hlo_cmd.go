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

// readHLO reads and parses one HLO file. A parse error is returned with the partial module.
func readHLO(e *env, path string) (*hlo.Module, error) {
	src, err := diff.ReadFileMax(path, e.stdin, e.maxHLO)
	if err != nil {
		return nil, err
	}
	e.log.Trace("parsing", "file", path, "bytes", len(src))
	return hlo.Parse(path, src)
}

func (c *hloCheckCmd) Run(e *env) error {
	if err := checkInputs(c.Files); err != nil {
		return err
	}
	stdout, stderr := guardLines(e)
	defer stdout.Close()
	defer stderr.Close()
	bad := 0
	for _, f := range c.Files {
		m, err := readHLO(e, f)
		var list hlo.ErrorList
		switch {
		case errors.As(err, &list):
			bad++
			for _, pe := range list {
				fmt.Fprintln(stderr, textutil.Visible(pe.Error()))
			}
		case err != nil:
			bad++
			fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(err.Error()))
		default:
			if _, err := fmt.Fprintf(stdout, "%s: ok: module %s, %d computations, %d instructions\n", textutil.Visible(f), textutil.Visible(m.Name),
				len(m.Computations), m.InstructionCount()); err != nil {
				return usageErr("writing the result: %v", err)
			}
		}
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(c.Files))}
	}
	return nil
}

func (c *hloFingerprintCmd) Run(e *env) error {
	if err := checkInputs(c.Files); err != nil {
		return err
	}
	stdout, stderr := guardLines(e)
	defer stdout.Close()
	defer stderr.Close()
	bad := 0
	for _, f := range c.Files {
		m, err := readHLO(e, f)
		if err != nil {
			bad++
			fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(err.Error()))
			continue
		}
		if _, err := fmt.Fprintf(stdout, "%s  %s  %s\n", hlo.Fingerprint(m), textutil.Visible(m.Name), textutil.Visible(f)); err != nil {
			return usageErr("writing the result: %v", err)
		}
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(c.Files))}
	}
	return nil
}
