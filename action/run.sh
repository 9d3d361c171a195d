#!/usr/bin/env bash
# Runs the gate of the GitHub Action (action.yml) with the recomp action/install.sh installed.
#
# INPUT_COMMAND  a command for bash, run as `recomp run --out $INPUT_OUT --guard ARGS -- bash -c
#                COMMAND`; the exit code is recomp run's (the command's when it failed, else
#                the gate's: 1 when something compiled after warm-up). When the gate fails, its
#                findings are written again as workflow annotations (recomp guard --format
#                github on the run folder).
# INPUT_LOGS     or: logs and run folders, as shell words, for recomp guard --format github ARGS;
#                a word with *, ? or [ is a pattern of file names.
# INPUT_ARGS     the gate's flags, as shell words.
# Shell words are split as the shell reads quotes ('…', "…") and backslashes, and nothing else:
# no input is ever run (no eval; $(…), `…` and $VAR stay as written).
# The report goes to the job's summary ($GITHUB_STEP_SUMMARY) as Markdown: only this run's.
set -uo pipefail

# words STRING: prints the shell words of STRING, each ended by a NUL byte. xargs splits them
# (quotes and backslashes) and runs nothing but printf.
words() {
  case "$1" in *[![:space:]]*) ;; *) return 0 ;; esac
  printf '%s\n' "$1" | xargs printf '%s\0'
}

# split STRING: the array split_out holds the shell words of STRING; an unmatched quote is an
# error (exit 2).
split() {
  local list w
  split_out=()
  list=$(mktemp) || exit 2
  if ! words "$1" > "$list"; then
    rm -f "$list"
    echo "recomp: cannot split into shell words (an unmatched quote?): $1" >&2
    exit 2
  fi
  while IFS= read -r -d '' w; do
    split_out+=("$w")
  done < "$list"
  rm -f "$list"
}

split "${INPUT_ARGS:-}"
args=(${split_out[@]+"${split_out[@]}"})
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
if [ -n "${INPUT_COMMAND:-}" ]; then
  out=${INPUT_OUT:-recomp-run}
  # recomp run never writes over a folder that is not empty: a report.md there before the run
  # is an old run's, never this one's.
  stale=""
  [ -e "$out/report.md" ] && stale=1
  recomp run --out "$out" --guard ${args[@]+"${args[@]}"} -- bash -c "$INPUT_COMMAND"
  code=$?
  [ -n "${GITHUB_OUTPUT:-}" ] && echo "run-folder=$out" >> "$GITHUB_OUTPUT"
  if [ -z "$stale" ] && [ -f "$out/report.md" ]; then
    cat "$out/report.md" >> "$summary"
  elif [ -n "$stale" ]; then
    echo "recomp: $out holds an earlier run's report.md: not added to the job summary" >&2
  fi
  if [ "$code" = 1 ] && [ -f "$out/run.log" ]; then
    recomp guard --format github ${args[@]+"${args[@]}"} "$out"
  fi
  exit "$code"
fi
if [ -n "${INPUT_LOGS:-}" ]; then
  split "$INPUT_LOGS"
  logs=()
  for w in ${split_out[@]+"${split_out[@]}"}; do
    case "$w" in
      *[*?[]*)
        # A pattern: expanded as the shell would (no match: the word itself), nothing else.
        ifs=$IFS
        IFS=''
        matches=($w)
        IFS=$ifs
        logs+=("${matches[@]}") ;;
      *) logs+=("$w") ;;
    esac
  done
  recomp guard --format markdown ${args[@]+"${args[@]}"} "${logs[@]}" >> "$summary"
  recomp guard --format github ${args[@]+"${args[@]}"} "${logs[@]}"
  exit $?
fi
echo "recomp: give the action a command or logs" >&2
exit 2
