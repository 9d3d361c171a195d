package report

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/textutil"
)

// WriteHLOCheck writes recomp hlo check's answer: for each file its line on out ("FILE: ok:
// module M, C computations, I instructions"), or its parse's positioned errors one a line on
// errs. It returns how many files did not parse; the error is out's.
func WriteHLOCheck(out, errs io.Writer, files iter.Seq[hlo.FileResult]) (failed int, err error) {
	return writeHLOFiles(out, errs, files, true, func(r hlo.FileResult) string {
		return fmt.Sprintf("%s: ok: module %s, %d computations, %d instructions", textutil.Visible(r.Path),
			textutil.Visible(r.Module.Name), len(r.Module.Computations), r.Module.InstructionCount())
	})
}

// WriteHLOFingerprints writes recomp hlo fingerprint's answer: for each file "FINGERPRINT
// MODULE FILE" on out, or one error line on errs. It returns how many files did not parse;
// the error is out's.
func WriteHLOFingerprints(out, errs io.Writer, files iter.Seq[hlo.FileResult]) (failed int, err error) {
	return writeHLOFiles(out, errs, files, false, func(r hlo.FileResult) string {
		return fmt.Sprintf("%s  %s  %s", hlo.Fingerprint(r.Module), textutil.Visible(r.Module.Name), textutil.Visible(r.Path))
	})
}

// writeHLOFiles writes ok's line of each file parsed to out, else its error to errs: a parse's
// positioned errors one a line when listErrors, else one error line. Both go through a line
// guard as the text format (lineGuard): a line that begins with a file or module name is no CI runner's command.
func writeHLOFiles(out, errs io.Writer, files iter.Seq[hlo.FileResult], listErrors bool, ok func(hlo.FileResult) string) (failed int, err error) {
	stdout, stderr := newLineGuard(out, Text), newLineGuard(errs, Text)
	defer stdout.Close()
	defer stderr.Close()
	for r := range files {
		var list hlo.ErrorList
		switch {
		case listErrors && errors.As(r.Err, &list):
			failed++
			for _, pe := range list {
				fmt.Fprintln(stderr, textutil.Visible(pe.Error()))
			}
		case r.Err != nil:
			failed++
			fmt.Fprintf(stderr, "recomp: error: %s\n", textutil.Visible(r.Err.Error()))
		default:
			if _, err := fmt.Fprintln(stdout, ok(r)); err != nil {
				return failed, err
			}
		}
	}
	return failed, nil
}
