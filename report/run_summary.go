package report

import (
	"fmt"
	"io"

	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/live"
)

// WriteRunSummary writes the run folder's reports (RunFiles, with st's Meta) and says the
// run's end on w (recomp run's stderr): the run in format f and style st, where its reports
// are, what of the run's record was lost, and the compilations after warm-up the command was
// not stopped at. What could not be written is added to res.Lost. The summary is a courtesy
// (the run folder holds the reports): its error, a terminal that went away, is only returned.
func WriteRunSummary(w io.Writer, f Format, res *live.RunResult, st Style) error {
	reportsErr := WriteRunFiles(res.Dir, res.Run, Style{Meta: st.Meta})
	if reportsErr != nil {
		res.Lost = append(res.Lost, fmt.Sprintf("the reports could not be written: %v", reportsErr))
	}
	fmt.Fprintln(w)
	err := Render(w, f, res.Run, Style{Color: st.Color, Width: st.Width})
	dir := textutil.Visible(res.Dir)
	if reportsErr == nil {
		fmt.Fprintf(w, "\nrecomp run: reports in %s (report.json, report.md, report.html)\n", dir)
	} else {
		fmt.Fprintf(w, "\nrecomp run: run folder %s, without its reports\n", dir)
	}
	for _, l := range res.Lost {
		fmt.Fprintf(w, "recomp run: %s\n", textutil.Visible(l))
	}
	if res.Missed > 0 {
		fmt.Fprintf(w, "recomp run: ✗ %d compilation(s) after warm-up in the run's evidence, which the command was not stopped at: --fail-on-recompile fails the run\n", res.Missed)
	}
	return err
}
