#!/usr/bin/env bash
# Issue 22's six evaluation sets in one table: the four bench dev sets (against their KG files)
# and the realistic queries against the demo graphs of seeds 42 and 7 (20k + 20k each).
#   bench/six-sets.sh G42_DATA_DIR G7_DATA_DIR Q7_QUERIES [eval options...]
# G42/G7: `npm run quarry -- demo-data --seed S --organizations 20000 --persons 20000 --import --data DIR`;
# Q7: `npx node bench/realistic-queries.ts --seed 7 --organizations 20000 --persons 20000 --out Q7`.
# Seed 7 is held out: check it, never tune on it.
set -euo pipefail
g42=$1 g7=$2 q7=$3
shift 3
bench=../shared/bench
kg="$bench/kg-organizations.jsonl $bench/kg-persons.jsonl $bench/kg-historical.jsonl $bench/kg-febrl.jsonl"
summary() { # set name, eval output on stdin
  awk -v set="$1" '
    /^(Organization|Person)$/ { type = $1 }
    /^precision/ { p[type] = $2 } /^recall/ { r[type] = $2 } /^ece / { e[type] = $2 }
    /^outcomes/ { hash = $3 }
    /^  / && /right/ { for (i = 1; i <= NF; i++) if ($i == "right") { kind = $1; for (j = 2; j < i - 1; j++) kind = kind " " $j; right = $(i + 1); break }
      if (min == "" || right < min) { min = right; lowest = kind } ; if ($0 ~ /namesakes/) ns = ns sprintf(" %s sum %s top %s", kind, $(i + 5), $(i + 12)) }
    END {
      if (type == "") printf "%-14s P %s  R %s  ECE %s  %s\n", set, p[""], r[""], e[""], hash
      else printf "%-14s Org P %s R %s ECE %s | Person P %s R %s ECE %s | lowest kind %s %s |%s  %s\n", set, p["Organization"], r["Organization"], e["Organization"], p["Person"], r["Person"], e["Person"], lowest, min, ns, hash
    }'
}
for set in organizations persons historical febrl; do
  # shellcheck disable=SC2086
  npm run -s quarry -- eval "$bench/queries-$set.dev.jsonl" --kg $kg "$@" 2>/dev/null | summary "$set"
done
npm run -s quarry -- eval "$bench/realistic/queries-realistic.dev.jsonl" --data "$g42" "$@" 2>/dev/null | summary realistic-42
npm run -s quarry -- eval "$q7" --data "$g7" "$@" 2>/dev/null | summary realistic-7
