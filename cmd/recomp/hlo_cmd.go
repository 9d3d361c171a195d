package main

import (
	"errors"
	"fmt"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
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

// readHLO reads and parses one HLO file. A parse error is returned with the partial module.
func readHLO(e *env, path string) (*hlo.Module, error) {
	src, err := diff.ReadFile(path, e.stdin)
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
	bad := 0
	for _, f := range c.Files {
		m, err := readHLO(e, f)
		var list hlo.ErrorList
		switch {
		case errors.As(err, &list):
			bad++
			for _, pe := range list {
				fmt.Fprintln(e.stderr, pe.Error())
			}
		case err != nil:
			bad++
			fmt.Fprintf(e.stderr, "recomp: error: %v\n", err)
		default:
			if _, err := fmt.Fprintf(e.stdout, "%s: ok: module %s, %d computations, %d instructions\n", f, m.Name, len(m.Computations), m.InstructionCount()); err != nil {
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
	bad := 0
	for _, f := range c.Files {
		m, err := readHLO(e, f)
		if err != nil {
			bad++
			fmt.Fprintf(e.stderr, "recomp: error: %v\n", err)
			continue
		}
		if _, err := fmt.Fprintf(e.stdout, "%s  %s  %s\n", hlo.Fingerprint(m), m.Name, f); err != nil {
			return usageErr("writing the result: %v", err)
		}
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(c.Files))}
	}
	return nil
}
