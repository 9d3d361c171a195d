package main

import (
	"fmt"
	"io"
	"iter"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/input"
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

func (c *hloCheckCmd) Run(e *env) error { return eachHLO(e, c.Files, report.WriteHLOCheck) }

func (c *hloFingerprintCmd) Run(e *env) error {
	return eachHLO(e, c.Files, report.WriteHLOFingerprints)
}

// eachHLO parses files one at a time (hlo.ParseFiles, each read under the HLO cap) and writes
// their answer; it fails with exit 2 when a file did not parse.
func eachHLO(e *env, files []string, write func(out, errs io.Writer, files iter.Seq[hlo.FileResult]) (int, error)) error {
	if err := input.CheckStdin(files); err != nil { // stdin named twice
		return usage(err)
	}
	read := func(path string) ([]byte, error) {
		src, err := diff.ReadFileMax(path, e.stdin, e.maxHLO)
		if err == nil {
			e.log.Trace("parsing", "file", path, "bytes", len(src))
		}
		return src, err
	}
	bad, err := write(e.stdout, e.stderr, hlo.ParseFiles(files, read))
	if err != nil {
		return usageErr("writing the result: %v", err)
	}
	if bad > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d files did not parse", bad, len(files))}
	}
	return nil
}
