# dvfs.gp — kind dvfs (Fanfakh 2016): normalised performance P_Norm = T_old / T_new and
# normalised energy E_Norm = E_new / E_old against the scaling factor S = F_max / F, every
# rank at the same gear (heterogeneous synchronous model, models/dvfs.h), their distance
# P_Norm - E_Norm on the right axis, and the choices of mw dvfs's methods (MaxDist
# highlighted) at the mean scaling factor of their ranks, each with its own marker named in
# the key. docs/plots.md describes the data.
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
# Each method's choice is a marker of its own, named in the key (no label beside the point:
# methods that choose the same gear share the point, and labels collided with the markers).
method_title(s) = s eq 'edp' ? 'EDP' : s eq 'rr' ? 'Rauber-Rünger' : s eq 'oracle' ? 'oracle (exhaustive)' : s
other_pt(i) = i == 1 ? 6 : i == 2 ? 8 : 12
plot datafile index 0 using 2:3 with linespoints ls 1 pt 7 title 'P_Norm (performance)', \
     datafile index 0 using 2:4 with linespoints ls 2 pt 5 title 'E_Norm (energy)', \
     datafile index 0 using 2:5 axes x1y2 with linespoints ls 3 pt 9 title 'distance (%, right axis)', \
     for [k = 1:have_maxdist] datafile index (have_maxdist ? 2 : 0) using 2:3 with points pt 3 ps 3 lw 2 lc rgb '#000000' title 'MaxDist: P_Norm', \
     for [k = 1:have_maxdist] datafile index (have_maxdist ? 2 : 0) using 2:4 with points pt 2 ps 3 lw 2 lc rgb '#000000' title sprintf('MaxDist: E_Norm (%s GHz)', maxdist_freqs), \
     for [i = 1:n_other] datafile index 3 every ::(i - 1)::(i - 1) using 2:4 with points pt other_pt(i) ps 2.5 lw 2 lc rgb '#606060' title sprintf('%s: E_Norm', method_title(method_name[i + have_maxdist]))
