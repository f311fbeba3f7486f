# histogram.gp — kind histogram (Escobar et al. 2019 Fig. 7): one channel's window powers in
# ceil(sqrt(n)) bins with the paper's kernel density scaled to windows per bin and its two
# modes (Pow_idle, Pow_work) marked (left); Pow_idle and Pow_work by the three estimators of
# mw analyze, kde, gmm (+- component sd) and the phase split (+- sample sd), side by side
# (right). docs/plots.md describes the data file.
#
# Variables written by mw: title_text, channel_name, n_windows, n_bins, bin_width (W),
# bandwidth (W), have_kde (block 1 holds the density), kde_ok, kde_bimodal, pow_idle,
# pow_work (W, the kde's levels), have_levels (any estimate), lv_min, lv_max (the right
# panel's range, W), n_notes, notes[]. Blocks: 0 bins (bin_lo_w bin_hi_w
# bin_mid_w windows density_per_w), 1 density (power_w density_per_w windows_per_bin),
# 2 levels (method x pow_idle_w pow_work_w idle_sd_w work_sd_w bimodal note).

set multiplot title title_text font ',12'

# ---- histogram and density
set lmargin at screen 0.08
set rmargin at screen 0.62
set tmargin at screen 0.84
set bmargin at screen 0.12
set xlabel sprintf('window power of %s (W)', channel_name)
set ylabel 'windows per bin'
set yrange [0:*]
# the notes take the top left, 0.06 of the graph each: the level labels (and the bars' head
# room) move down below a second and third note, so that no label runs into a note
lv_down = 0.06 * (n_notes > 1 ? n_notes - 1 : 0)
set offsets 0, 0, graph (1 / (0.77 - lv_down) - 1), 0 # head room: the tallest bar stays below the level labels (graph 0.76-0.87, less lv_down) and the frame
set boxwidth bin_width absolute
set key at screen 0.35, screen 0.865 center bottom horizontal box lc rgb '#c0c0c0'
if (kde_ok) {
    if (kde_bimodal) {
        set arrow 1 from pow_idle, graph 0 to pow_idle, graph (0.84 - lv_down) nohead dt 2 lw 2 lc rgb '#0072B2' front
        set label 1 sprintf('Pow_idle = %.2f W', pow_idle) at pow_idle, graph (0.87 - lv_down) center front tc rgb '#0072B2'
        set arrow 2 from pow_work, graph 0 to pow_work, graph (0.76 - lv_down) nohead dt 4 lw 2 lc rgb '#D55E00' front
        set label 2 sprintf('Pow_work = %.2f W', pow_work) at pow_work, graph (0.79 - lv_down) center front tc rgb '#D55E00'
    } else {
        set arrow 1 from pow_idle, graph 0 to pow_idle, graph (0.84 - lv_down) nohead dt 2 lw 2 lc rgb '#000000' front
        set label 1 sprintf('one level: %.2f W', pow_idle) at pow_idle, graph (0.87 - lv_down) center front
    }
}
do for [i = 1:n_notes] {
    set label (100 + i) notes[i] at graph 0.02, graph (0.96 - 0.06 * (i - 1)) left front boxed tc rgb '#a00000'
}
plot datafile index 0 using 3:4 with boxes fc rgb '#9ecae1' fs solid 0.6 border lc rgb '#4d4d4d' title sprintf('%d windows in %d bins of %.3g W', n_windows, n_bins, bin_width), \
     for [k = 1:have_kde] datafile index (have_kde ? 1 : 0) using 1:3 with lines lw 2 lc rgb '#D55E00' title sprintf('kernel density, h = %.3g W', bandwidth)

# ---- the three estimates
unset arrow
unset label
unset offsets
set lmargin at screen 0.72
set rmargin at screen 0.97
set xrange [0.2:3.8] # room for the value labels beside the kde and split points
set yrange [lv_min:lv_max]
set xtics ('kde' 1, 'gmm' 2, 'split' 3)
set xlabel 'estimator'
set ylabel 'power level (W)'
set key outside bottom center horizontal
if (!have_levels) {
    set label 1 'no estimate' at graph 0.5, graph 0.5 center tc rgb '#a00000'
}
plot for [k = 1:have_levels] datafile index (have_levels ? 2 : 0) using ($2 - 0.08):3:5 with yerrorbars pt 7 ps 1.4 lc rgb '#0072B2' title 'Pow_idle', \
     for [k = 1:have_levels] datafile index (have_levels ? 2 : 0) using ($2 + 0.08):4:6 with yerrorbars pt 9 ps 1.4 lc rgb '#D55E00' title 'Pow_work', \
     for [k = 1:have_levels] datafile index (have_levels ? 2 : 0) using ($2 - 0.1):3:(sprintf('%.2f', $3)) with labels right offset char -0.5, 0 tc rgb '#0072B2' notitle, \
     for [k = 1:have_levels] datafile index (have_levels ? 2 : 0) using ($2 + 0.1):4:(sprintf('%.2f', $4)) with labels left offset char 0.5, 0 tc rgb '#D55E00' notitle, \
     for [k = 1:!have_levels] 1e30 notitle

unset multiplot
