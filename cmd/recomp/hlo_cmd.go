package main

import (
	"errors"
	"fmt"
	"os"

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
func readHLO(path string) (*hlo.Module, error) {
	rc, err := openInput(path, os.Stdin)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	src, err := readAllLimited(rc, path)
	if err != nil {
		return nil, err
	}
	return hlo.Parse(path, src)
}

func (c *hloCheckCmd) Run(e *env) error {
	bad := 0
	for _, f := range c.Files {
		m, err := readHLO(f)
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
			fmt.Fprintf(e.stdout, "%s: ok: module %s, %d computations, %d instructions\n", f, m.Name, len(m.Computations), m.InstructionCount())
		}
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(c.Files))}
	}
	return nil
}

func (c *hloFingerprintCmd) Run(e *env) error {
	bad := 0
	for _, f := range c.Files {
		m, err := readHLO(f)
		if err != nil {
			bad++
			fmt.Fprintf(e.stderr, "recomp: error: %v\n", err)
			continue
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s\n", hlo.Fingerprint(m), m.Name, f)
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(c.Files))}
	}
	return nil
}
