# trace.gp — kinds trace and timeline: every channel's power over time (top panel) and the
# program's phases in lanes below it on the same time axis (one lane per node for trace,
# one per rank for timeline), coloured and hatched by class; the idle baseline and the gaps
# as bands behind the power. docs/plots.md describes the data file.
#
# Variables written by mw: title_text; xmin, xmax (s); nch, ch_title[nch] (the blocks 0 ..
# nch-1 of datafile: start_s end_s power_w min_w max_w); decimated (1: a row is a bucket of
# windows, min_w/max_w its extremes); nlanes, lane_name[nlanes], lane_label, lanes_frac (the
# lanes panel's share of the height); cls_list (the classes present, 1-based, as words),
# cls_block0 (index of the first class block: start_s end_s lane), cls_block_inferred, has_inferred (the
# inferred computation's block, after the gaps, and 1 when it has boxes); n_idle, idle_t0[],
# idle_t1[]; ymin, ymax (W, the power panel's range, to which room for the notes is added on top); y1_list, y2_list (the channel blocks,
# 1-based, on the left and the right axis, as words), has_y2, y2min, y2max (the right axis); n_gaps, gap_t0[], gap_t1[]; n_notes, notes[]; left_margin (screen share
# left of the panels, room for the lane names).

L = left_margin
R = has_y2 ? 0.74 : 0.80 # room for the right axis's numbers and label
KEY_X = R + (has_y2 ? 0.075 : 0.015)
TOP = 0.91
BOTTOM = 0.09
split_y = (nlanes > 0) ? BOTTOM + lanes_frac : BOTTOM

set multiplot title title_text font ',12'

# ---- power
set lmargin at screen L
set rmargin at screen R
set tmargin at screen TOP
set bmargin at screen (nlanes > 0 ? split_y + 0.015 : BOTTOM)
set xrange [xmin:xmax]
# the notes take the top NOTE_F of the panel: the range grows above ymax by as much, so that
# their opaque boxes hide no trace (e.g. the highest channel of another meter)
NOTE_F = n_notes > 0 ? 0.08 + 0.06 * (n_notes - 1) : 0
set yrange [ymin:ymax + (ymax - ymin) * NOTE_F / (1 - NOTE_F)]
set ylabel 'power (W)'
if (has_y2) {
    set y2range [y2min:y2max + (y2max - y2min) * NOTE_F / (1 - NOTE_F)]
    set y2tics
    set ytics nomirror
    set y2label 'power, right axis (W)'
}
if (nlanes > 0) {
    set format x ''
    unset xlabel
} else {
    set format x '% h'
    set xlabel 'time since the start of the run (s)'
}
set key at screen KEY_X, screen TOP top left vertical Left reverse samplen 3 spacing 1.1 box lc rgb '#c0c0c0'
do for [i = 1:n_idle] {
    set object i rectangle from first idle_t0[i], graph 0 to first idle_t1[i], graph 1 behind fc rgb idle_color fs solid 0.7 noborder
}
do for [i = 1:n_gaps] {
    set object (1000 + i) rectangle from first gap_t0[i], graph 0 to first gap_t1[i], graph 1 behind fc rgb gap_color fs pattern 2 noborder
}
do for [i = 1:n_notes] {
    set label (100 + i) notes[i] at graph 0.01, graph (0.95 - 0.06 * (i - 1)) left front boxed font ',11' tc rgb '#a00000'
}
plot for [w in (decimated ? y1_list : '')] datafile index (word_index(w) - 1) using 1:4:5 with filledcurves fc rgb series_color[(word_index(w) - 1) % 8 + 1] fs transparent solid 0.25 noborder notitle, \
     for [w in (decimated ? y2_list : '')] datafile index (word_index(w) - 1) using 1:4:5 axes x1y2 with filledcurves fc rgb series_color[(word_index(w) - 1) % 8 + 1] fs transparent solid 0.25 noborder notitle, \
     for [w in y1_list] datafile index (word_index(w) - 1) using 1:3 with steps ls word_index(w) title ch_title[word_index(w)], \
     for [w in y2_list] datafile index (word_index(w) - 1) using 1:3 axes x1y2 with steps ls word_index(w) title ch_title[word_index(w)].' (right)', \
     for [k = 1:(n_idle > 0)] NaN with boxes fc rgb idle_color fs solid 0.7 noborder title 'idle baseline', \
     for [k = 1:(n_gaps > 0)] NaN with boxes fc rgb gap_color fs pattern 2 noborder title 'gap (no windows)'

# ---- lanes
if (nlanes > 0) {
    unset object
    unset y2tics
    unset y2label
    set ytics mirror
    unset label
    set tmargin at screen split_y
    set bmargin at screen BOTTOM
    set format x '% h'
    set xlabel 'time since the start of the run (s)'
    set ylabel lane_label
    set yrange [nlanes + 0.6:0.4]
    set ytics () scale 0
    do for [i = 1:nlanes] {
        set ytics add (lane_name[i] i)
    }
    set grid noytics
    set key at screen KEY_X, screen split_y top left vertical Left reverse samplen 2 spacing 1.1 box lc rgb '#c0c0c0'
    # a row: [start_s, end_s) in its lane, from offset to offset + share of the lane's height
    # (0.76), measured from its top; rows of a class's own spans have share 1
    plot for [k = 1:has_inferred] datafile index cls_block_inferred using (($1 + $2) / 2):($3 - 0.38 + 0.76 * ($5 + $4 / 2)):1:2:($3 - 0.38 + 0.76 * $5):($3 - 0.38 + 0.76 * ($5 + $4)) with boxxyerror fc rgb cls_color[6] fs pattern cls_pattern[6] noborder title cls_name[6], \
         for [w in cls_list] datafile index (cls_block0 + word_index(w) - 1) using (($1 + $2) / 2):($3 - 0.38 + 0.76 * ($5 + $4 / 2)):1:2:($3 - 0.38 + 0.76 * $5):($3 - 0.38 + 0.76 * ($5 + $4)) with boxxyerror fc rgb cls_color[word_index(w)] fs pattern cls_pattern[word_index(w)] noborder title cls_name[word_index(w)]
}
unset multiplot
