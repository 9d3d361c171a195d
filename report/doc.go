// Package report lays out recomp's results in every output format from one place: text for
// people, Markdown for CI comments, JSON for scripts (a versioned contract), GitHub workflow
// annotations and JUnit XML for CI gates, and a self-contained HTML page. The results are
// computed and defined below it (explain's Scan, Guard, Diff, Run, RunsDiff, Ranks; cache's
// Inventory, wrapped in Cache here); Render picks the layout of the format. Only the commands
// (and internal/helptext, for the formats) import report. The package prints nothing on its
// own and reads no files.
//
// The work is split by job: render.go picks the layout of a format (Render, the formats each
// command writes); document.go builds the one presentation document of a result that the
// text, Markdown and HTML layouts share (text.go, markdown.go, html.go); json.go and
// verdict_json.go write the JSON contract (docs/json.md); ci.go writes GitHub annotations and
// JUnit XML; runs.go, ranks.go, coverage.go and run.go hold what is particular to the results
// of two runs, the ranks, the warm-up's coverage and recomp run; run_summary.go writes recomp
// run's reports into its run folder and says the run's end; hlo.go writes recomp hlo's lines,
// one a file; escape.go keeps control
// characters and bidi marks of the inputs out of every format; format.go formats numbers,
// durations and tables once for all; model.go is Cache, the one result report wraps itself.
package report
