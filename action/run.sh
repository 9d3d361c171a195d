#!/usr/bin/env bash
# Runs the gate of the GitHub Action (action.yml) with the recomp action/install.sh installed.
#
# INPUT_COMMAND  a command for bash, run as `recomp run --out $INPUT_OUT --guard ARGS -- bash -c
#                COMMAND`; the exit code is recomp run's (the command's when it failed, else
#                the gate's: 1 when something compiled after warm-up). When the gate fails, its
#                findings are written again as workflow annotations (recomp guard --format
#                github on the run folder).
# INPUT_LOGS     or: logs and run folders, as shell words, for recomp guard --format github ARGS.
# INPUT_ARGS     the gate's flags, as shell words.
# The report goes to the job's summary ($GITHUB_STEP_SUMMARY) as Markdown.
set -uo pipefail
eval "args=(${INPUT_ARGS:-})"
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
if [ -n "${INPUT_COMMAND:-}" ]; then
  out=${INPUT_OUT:-recomp-run}
  recomp run --out "$out" --guard ${args[@]+"${args[@]}"} -- bash -c "$INPUT_COMMAND"
  code=$?
  [ -n "${GITHUB_OUTPUT:-}" ] && echo "run-folder=$out" >> "$GITHUB_OUTPUT"
  [ -f "$out/report.md" ] && cat "$out/report.md" >> "$summary"
  if [ "$code" = 1 ] && [ -f "$out/run.log" ]; then
    recomp guard --format github ${args[@]+"${args[@]}"} "$out"
  fi
  exit "$code"
fi
if [ -n "${INPUT_LOGS:-}" ]; then
  eval "logs=($INPUT_LOGS)"
  recomp guard --format markdown ${args[@]+"${args[@]}"} "${logs[@]}" >> "$summary"
  recomp guard --format github ${args[@]+"${args[@]}"} "${logs[@]}"
  exit $?
fi
echo "recomp: give the action a command or logs" >&2
exit 2
