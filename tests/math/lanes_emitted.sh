#!/usr/bin/env bash
# tests/math/lanes_emitted.sh BRINE: the lane vectoriser computes math
# calls in lanes. Every par reduction of tests/golden/par/lanes_math.br (each
# element calls exp, exp2, log, sin, cos or tan: plain, nested, through
# functions, under a branch or a filter, over an array, two clauses, min and
# max; and its one sequential sum), and every sequential sum, product and
# accumulating for loop of tests/golden/opt/seq_lanes.br but the five it
# says take none, every accumulating loop over range(lo, hi, step) of
# tests/golden/opt/seq_lanes_stepped.br, and every reduction of
# tests/golden/par/lanes_log2_log10.br,
# must have a lanes form (bp_leaves<n>) that calls brt_lanes_<name>; the
# goldens themselves check that the lanes give the scalar functions' bits.
# Exit 1 when one does not.
set -uo pipefail
BRINE=$1
DIR=$(dirname "$0")/../golden
fail=0
# check FILE WANT WHAT: FILE's lanes forms, WANT of them, each calling the lanes
check() {
    "$BRINE" --dump=c "$1" | awk -v want="$2" -v what="$3" '
        /^BP_PAR void bp_leaves[0-9]+\(/ { name = $3; sub(/\(.*/, "", name); laned = 0; n++ }
        /brt_lanes_(exp|exp2|log|log2|log10|sin|cos|tan)\(vi[0-9]+_, vo[0-9]+_\)/ { laned = 1 }
        /^}/ { if (name != "" && !laned) { print "lanes_emitted: " name " calls no brt_lanes_<name>"; bad++ } name = "" }
        END {
            if (n != want) { print "lanes_emitted: " n " lanes forms, want " want; exit 1 }
            if (bad) exit 1
            print "lanes_emitted: all " n " " what " call the math lanes"
        }' || fail=1
}
check "$DIR/par/lanes_math.br" 24 "par reductions (and its one sequential sum)"
check "$DIR/opt/seq_lanes.br" 28 "sequential sums, products and loops"
check "$DIR/opt/seq_lanes_stepped.br" 7 "loops over stepped ranges"
check "$DIR/par/lanes_log2_log10.br" 13 "reductions of log2 and log10"
exit $fail
