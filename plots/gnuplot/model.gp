# model.gp — kind model (Escobar et al. 2019, Figs. 5 and 9): measured time (left) and
# energy (right) of eeg-mofs runs over N_Spop, per version, as the paper draws them: the mean
# of the runs at each N_Spop with its 95 % Student-t interval (from n >= 3 runs; fewer: the
# mean alone), each run as a small point, and the Escobar model as lines through its mean
# value at each N_Spop — with each run's own parameters (dashed) and, when the runs allow a
# fit, with fitted time parameters (solid); NRMSE of each model series in the legend.
# docs/plots.md describes the data file; docs/models.md, "What the numbers mean", the NRMSEs.
#
# Variables written by mw: title_text, nver, ver_name[nver] (block k-1 is version k's runs:
# n_spop t_measured_s t_predicted_s t_fitted_s e_measured_j e_predicted_j e_fitted_j run;
# block nver+k-1 its means per N_Spop: n_spop n_runs t_mean_s t_ci_lo_s t_ci_hi_s e_mean_j
# e_ci_lo_j e_ci_hi_j t_predicted_s t_fitted_s e_predicted_j e_fitted_j), t_pred_title[],
# t_fit_title[], e_pred_title[], e_fit_title[] (legend texts with NRMSE), have_fit;
# t_meas_list, t_pred_list, t_fit_list, e_meas_list, e_pred_list, e_fit_list, t_ci_list,
# e_ci_list (the versions, 1-based, with values in each series, as words); xmin, xmax, tmin, tmax, emin, emax
# (ranges), xtic_step (N_Spop between tics; 0: gnuplot's choice); n_notes, notes[].

set multiplot layout 1, 2 title title_text . "\nmarkers: the mean of the runs at each N_Spop with its 95 % interval (from 3 runs on); dots: single runs; lines: the model" font ',11'
set xlabel 'N_Spop (subpopulations)'
set xrange [xmin:xmax]
if (xtic_step) {
    set xtics xtic_step
}
set key outside bottom center vertical maxrows 6 samplen 3
set tmargin (4 + 1.5 * n_notes)  # the notes sit below the two-line title, above the panels
set bmargin 10
do for [i = 1:n_notes] {
    set label (100 + i) notes[i] at screen 0.02, screen (0.925 - 0.03 * i) left tc rgb '#a00000'
}
# time
set ylabel 'time of the N_Gm epochs (s)'
set title 'time'
set yrange [tmin:tmax]
plot for [w in t_meas_list] datafile index (word_index(w) - 1) using 1:2 with points pt 7 ps 0.45 lc rgb series_color[word_index(w)] notitle, \
     for [w in t_ci_list] datafile index (nver + word_index(w) - 1) using 1:3:(column(strlen(t_ci_list) ? 4 : 3)):(column(strlen(t_ci_list) ? 5 : 3)) with yerrorbars pt -1 lw 1.5 lc rgb series_color[word_index(w)] notitle, \
     for [w in t_meas_list] datafile index (nver + word_index(w) - 1) using 1:3 with points pt (word_index(w) == 1 ? 5 : 9) ps 1.6 lc rgb series_color[word_index(w)] title sprintf('%s measured', ver_name[word_index(w)]), \
     for [w in t_pred_list] datafile index (nver + word_index(w) - 1) using 1:(column(strlen(t_pred_list) ? 9 : 3)) with lines lw 1.5 dt 2 lc rgb series_color[word_index(w)] title t_pred_title[word_index(w)], \
     for [w in t_fit_list] datafile index (nver + word_index(w) - 1) using 1:(column(strlen(t_fit_list) ? 10 : 3)) with lines lw 2 dt 1 lc rgb series_color[word_index(w) + 2] title t_fit_title[word_index(w)]
unset label
# energy
set ylabel 'energy over them, every channel (J)'
set title 'energy'
set yrange [emin:emax]
plot for [w in e_meas_list] datafile index (word_index(w) - 1) using 1:5 with points pt 7 ps 0.45 lc rgb series_color[word_index(w)] notitle, \
     for [w in e_ci_list] datafile index (nver + word_index(w) - 1) using 1:6:(column(strlen(e_ci_list) ? 7 : 6)):(column(strlen(e_ci_list) ? 8 : 6)) with yerrorbars pt -1 lw 1.5 lc rgb series_color[word_index(w)] notitle, \
     for [w in e_meas_list] datafile index (nver + word_index(w) - 1) using 1:6 with points pt (word_index(w) == 1 ? 5 : 9) ps 1.6 lc rgb series_color[word_index(w)] title sprintf('%s measured', ver_name[word_index(w)]), \
     for [w in e_pred_list] datafile index (nver + word_index(w) - 1) using 1:(column(strlen(e_pred_list) ? 11 : 6)) with lines lw 1.5 dt 2 lc rgb series_color[word_index(w)] title e_pred_title[word_index(w)], \
     for [w in e_fit_list] datafile index (nver + word_index(w) - 1) using 1:(column(strlen(e_fit_list) ? 12 : 6)) with lines lw 2 dt 1 lc rgb series_color[word_index(w) + 2] title e_fit_title[word_index(w)]
unset multiplot
