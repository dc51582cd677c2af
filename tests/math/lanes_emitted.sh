#!/usr/bin/env bash
# tests/math/lanes_emitted.sh BRINE: the lane vectoriser computes math
# calls in lanes. Every par reduction of tests/golden/par/lanes_math.br (each
# element calls exp, exp2, log, sin, cos or tan: plain, nested, through functions,
# under a branch or a filter, over an array, two clauses, min and max) must
# have a lanes form (bp_leaves<n>) that calls brt_lanes_<name>; the golden
# itself checks that the lanes give the scalar functions' bits. Exit 1 when
# one does not.
set -uo pipefail
BRINE=$1
SRC=$(dirname "$0")/../golden/par/lanes_math.br
"$BRINE" --dump=c "$SRC" | awk '
    /^BP_PAR void bp_leaves[0-9]+\(/ { name = $3; sub(/\(.*/, "", name); laned = 0; n++ }
    /brt_lanes_(exp|exp2|log|sin|cos|tan)\(vi[0-9]+_, vo[0-9]+_\)/ { laned = 1 }
    /^}/ { if (name != "" && !laned) { print "lanes_emitted: " name " calls no brt_lanes_<name>"; bad++ } name = "" }
    END {
        if (n < 23) { print "lanes_emitted: " n " lanes forms, want 23"; exit 1 }
        if (bad) exit 1
        print "lanes_emitted: all " n " par reductions call the math lanes"
    }'
