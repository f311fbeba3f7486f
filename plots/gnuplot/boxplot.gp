# boxplot.gp — kind boxplot (Escobar et al. 2019 Fig. 8): one panel per node (channel), with its own
# power scale; in it, for each eeg-mofs version or sweep configuration, a box of the runs'
# Pow_idle and one of their Pow_work side by side (box: quartiles; line: median; whiskers:
# minimum and maximum), every run's value as a point over its box. docs/plots.md describes
# the data file.
#
# Variables written by mw: title_text, nch, ch_name[nch], ngroups, group_name[ngroups]
# (at x = 1 .. ngroups), ch_ymin[], ch_ymax[] (each panel's range, W), ncols, runs_note.
# Blocks: 0 every run's levels; for channel c, 3c - 2 the Pow_idle boxes and 3c - 1 the
# Pow_work boxes (group x min_w q1_w median_w q3_w max_w runs), 3c the runs' points
# (x_idle pow_idle_w x_work pow_work_w).

set multiplot layout ((nch + ncols - 1) / ncols), ncols title title_text font ',12'
set xrange [0.4:ngroups + 0.6]
set xtics () nomirror
do for [g = 1:ngroups] {
    set xtics add (group_name[g] g)
}
set grid noxtics
set ylabel 'W'
set boxwidth 0.28 absolute
set key top center horizontal samplen 2 font ',9'
set label 1 runs_note at screen 0.01, screen 0.975 left font ',9'
do for [c = 1:nch] {
    set title ch_name[c]
    set yrange [ch_ymin[c]:ch_ymax[c]]
    plot datafile index (3 * c - 2) using 2:4:3:7:6 with candlesticks whiskerbars 0.6 lc rgb '#0072B2' fs pattern 3 border lc rgb '#0072B2' title 'Pow_idle', \
         datafile index (3 * c - 2) using 2:5:5:5:5 with candlesticks lc rgb '#000000' lw 2 notitle, \
         datafile index (3 * c - 1) using 2:4:3:7:6 with candlesticks whiskerbars 0.6 lc rgb '#D55E00' fs pattern 4 border lc rgb '#D55E00' title 'Pow_work', \
         datafile index (3 * c - 1) using 2:5:5:5:5 with candlesticks lc rgb '#000000' lw 2 notitle, \
         datafile index (3 * c) using 1:2 with points pt 6 ps 0.6 lc rgb '#303030' notitle, \
         datafile index (3 * c) using 3:4 with points pt 6 ps 0.6 lc rgb '#303030' notitle
    unset label 1
}
unset multiplot
