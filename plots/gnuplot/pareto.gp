# pareto.gp — kind pareto (Khaleghzadeh et al. 2023): the Pareto front of execution time against dynamic
# energy of a workload split over devices (LBOPA), its end-points, the total energy
# (dynamic + P_S t) along it, and the part optimal for time and total energy (LBOPA-TE)
# highlighted. docs/plots.md describes the data file.
#
# Variables written by mw: title_text, subtitle, have_total, static_power (W), have_te,
# n_te_pieces, n_notes, notes[] (a missing static power; the additivity check, in red when
# it failed), additivity_pct (NaN: not checked), additivity_failed; xmin, xmax, ymin, ymax. Blocks: 0 the front (t_s dynamic_energy_j total_energy_j),
# 1 the end-points (t_s dynamic_energy_j total_energy_j split), 2 LBOPA-TE (t_s
# total_energy_j: the performance-optimal point, then pieces as pairs of rows).

set title title_text . "\n" . subtitle font ',11'
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set xlabel 'execution time (s)'
set ylabel 'energy (J)'
set key outside bottom center horizontal maxrows 3
do for [i = 1:n_notes] {
    set label (100 + i) notes[i] at graph 0.02, graph (0.95 - 0.05 * (i - 1)) left tc rgb (notes[i][1:23] eq 'additivity check passed' ? '#404040' : '#a00000')
}
plot datafile index 0 using 1:2 with lines ls 1 lw 2 title 'Pareto front: dynamic energy', \
     datafile index 1 using 1:2 with points pt 7 ps 1.3 lc rgb '#0072B2' title 'end-points (one device fewer each)', \
     for [k = 1:have_total] datafile index 0 using 1:(column(have_total ? 3 : 2)) with lines ls 2 lw 1.5 title sprintf('total energy (P_S = %g W)', static_power), \
     for [k = 1:have_te] datafile index (have_te ? 2 : 0) using 1:2 with linespoints lw 4 pt 5 ps 1.5 lc rgb '#009E73' title 'optimal for time and total energy (LBOPA-TE)'
