# dvfs.gp — kind dvfs (Fanfakh 2016): normalised performance P_Norm = T_old / T_new and
# normalised energy E_Norm = E_new / E_old against the scaling factor S = F_max / F, every
# rank at the same gear (heterogeneous synchronous model, models/dvfs.h), their distance
# P_Norm - E_Norm on the right axis, and the choices of mw dvfs's methods (MaxDist
# highlighted) at the mean scaling factor of their ranks. docs/plots.md describes the data.
#
# Variables written by mw: title_text, n_ranks, n_methods, method_name[], best_uniform_s,
# best_uniform_distance (%), s_max; ymin, ymax, y2min, y2max (ranges); have_maxdist,
# maxdist_freqs, n_other (method rows other than MaxDist). Blocks: 0 the gears (freq_ghz
# scaling_factor p_norm e_norm distance_pct saving_pct degradation_pct), 1 every method
# (method scaling_factor p_norm e_norm distance_pct saving_pct degradation_pct freqs_ghz),
# 2 MaxDist's row alone, 3 the other methods' rows.

set title title_text font ',12'
set xlabel 'scaling factor S = F_max / F (every rank at the same gear)'
set ylabel 'normalised performance and energy'
set y2label 'distance P_Norm - E_Norm (%)'
set ytics nomirror
set y2tics
set xrange [0.95:s_max * 1.05 + 0.05]
set yrange [ymin:ymax]
set y2range [y2min:y2max]
set key outside bottom center horizontal maxrows 3
set bmargin 7
set label 1 sprintf('%d ranks; best uniform S = %.3f (distance %.2f %%)', n_ranks, best_uniform_s, best_uniform_distance) at graph 0.02, graph 0.04 left
plot datafile index 0 using 2:3 with linespoints ls 1 pt 7 title 'P_Norm (performance)', \
     datafile index 0 using 2:4 with linespoints ls 2 pt 5 title 'E_Norm (energy)', \
     datafile index 0 using 2:5 axes x1y2 with linespoints ls 3 pt 9 title 'distance (%, right axis)', \
     for [k = 1:have_maxdist] datafile index (have_maxdist ? 2 : 0) using 2:3 with points pt 3 ps 3 lw 2 lc rgb '#000000' title 'MaxDist: P_Norm', \
     for [k = 1:have_maxdist] datafile index (have_maxdist ? 2 : 0) using 2:4 with points pt 2 ps 3 lw 2 lc rgb '#000000' title 'MaxDist: E_Norm', \
     for [k = 1:have_maxdist] datafile index (have_maxdist ? 2 : 0) using 2:4:(sprintf('MaxDist (%s GHz)', maxdist_freqs)) with labels offset char 1, -1 left notitle, \
     for [k = 1:(n_other > 0)] datafile index (n_other > 0 ? 3 : 0) using 2:4:(strcol(1)) with labels point pt 1 ps 1.5 lc rgb '#606060' offset char 1, 0.8 left font ',9' notitle
