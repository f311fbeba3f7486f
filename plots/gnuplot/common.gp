# common.gp — styles shared by every mw plot template; mw copies it into each NAME.gp after
# the variables it writes and before the kind's template (docs/plots.md).
#
# Data files are tab-separated; "-" is a missing value (mw writes it for a figure that does
# not exist, never NaN); lines starting with # are comments.
set datafile separator "\t"
set datafile missing "-"
set encoding utf8
set grid back lc rgb '#e0e0e0' lw 1 dt 1
set border lw 1
set key noautotitle
# notes (what is missing) are written on an opaque box, over the data (trace.gp makes room
# for them above the traces)
set style textbox opaque margins 1, 1 noborder

# Channels (and other series): colour-blind-safe colours (Okabe-Ito) with a dash type and a
# point type of their own each, so that lines stay apart in black and white.
array series_color[8] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#999999']
do for [i = 1:24] {
    set style line i lc rgb series_color[(i - 1) % 8 + 1] lw 1.5 dt 1 + (i - 1) % 5 pt 1 + (i - 1) % 13 ps 1.0
}

# Phase classes (mw's order: compute, comm, wait, gpu, other, then the computation inferred
# where no phase marked it) — colour and fill pattern (3 solid, 4 and 5 diagonal hatching, 1
# cross-hatching, 6 and 7 sparse hatching), distinguishable in black and white.
array cls_name[6] = ['compute', 'comm', 'wait', 'gpu', 'other', 'compute (inferred)']
array cls_color[6] = ['#009E73', '#0072B2', '#E69F00', '#CC79A7', '#7f7f7f', '#009E73']
array cls_pattern[6] = [3, 4, 5, 1, 6, 7]

# Loops over lists of words ("1 3 4"): gnuplot evaluates a loop's element once even when the
# list is empty (then w is ""), and reads its data file: word_index("") is 1, and every such
# element points at data that exists, though nothing is drawn.
word_index(w) = strlen(w) ? int(w) : 1

# Elements of zero-iteration loops (for [k = 1:0]) are read but not drawn: the templates
# give them an index and columns that hold numbers, so that gnuplot has nothing to warn of.

# The idle baseline (mw record --idle) and gaps (no windows) as bands behind the data.
idle_color = '#d0d0d0'
gap_color = '#e8a0a0'
