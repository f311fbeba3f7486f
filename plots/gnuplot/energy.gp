# energy.gp — kind energy: the energy of the whole run and of each phase group (kind:name,
# the union of its intervals on the ranks a channel measures, as mw analyze reports it),
# stacked by node (channel) on the left, and on the right the dynamic energy (the energy
# less the idle baseline's power times the time) on its own axis: the static part is often
# ten times larger and would flatten it; the key says how much of the whole run it is.
# docs/plots.md describes the data file.
#
# Variables written by mw: title_text, nch, ch_name[nch] (the data columns 5 .. 4+nch),
# nrows (rows drawn: the whole run and the most energetic groups), have_split (0: no idle
# baseline, the right panel shows the totals), left_ymin, left_ymax, right_ymin, right_ymax
# (the panels' ranges, J), static_run_j, total_run_j (the whole run's), n_notes, notes[].
# Columns after the
# channels: total_j, static_j, dynamic_j.

array ch_pattern[8] = [3, 4, 5, 1, 6, 7, 2, 0]
total_col = 5 + nch

set multiplot title title_text font ',12'
set style data histograms
set style histogram rowstacked gap 1
set boxwidth 0.75 relative
set xtics rotate by 35 right nomirror
set grid noxtics
set ylabel 'energy (J)'
set tmargin at screen 0.88
set bmargin at screen 0.24

# ---- per node
set lmargin at screen 0.08
set rmargin at screen 0.53
set yrange [left_ymin:left_ymax]
set key inside top right box lc rgb '#c0c0c0' opaque title 'node (channel)'
do for [i = 1:n_notes] {
    set label (100 + i) notes[i] at screen 0.08, screen (0.03 + 0.03 * (i - 1)) left tc rgb '#a00000'
}
plot for [k = 1:nch] datafile every ::0::(nrows - 1) using (column(4 + k)):xtic(1) lc rgb series_color[(k - 1) % 8 + 1] fs pattern ch_pattern[(k - 1) % 8 + 1] border lc rgb '#404040' title ch_name[k]

# ---- dynamic, on its own axis (room above the bars for the key)
unset label
set yrange [right_ymin:right_ymax + 0.3 * (right_ymax - right_ymin)]
set lmargin at screen 0.62
set rmargin at screen 0.97
if (have_split) {
    set ylabel 'dynamic energy (J)'
    set key inside top right box lc rgb '#c0c0c0' opaque title 'all nodes shown'
    plot datafile every ::0::(nrows - 1) using (column(total_col + 2)):xtic(1) lc rgb '#D55E00' fs pattern 4 border lc rgb '#404040' title 'dynamic (energy - idle power x time)', \
         NaN with boxes lc rgb '#bdbdbd' fs solid 0.8 title sprintf('static, not drawn: %.0f of the run''s %.0f J', static_run_j, total_run_j)
} else {
    set key inside top right box lc rgb '#c0c0c0' opaque title 'all nodes shown'
    plot datafile every ::0::(nrows - 1) using (column(total_col)):xtic(1) lc rgb '#bdbdbd' fs solid 0.8 border lc rgb '#404040' title 'total'
}
unset multiplot
