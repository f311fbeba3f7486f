# model.gp — kind model (Escobar et al. 2019 Figs. 5 and 9): measured time (left) and energy (right) of
# eeg-mofs runs over N_Spop, per version, against the Escobar model with each run's own
# parameters and, when the runs allow a fit, with fitted time parameters (mw fit --model
# escobar); NRMSE of each model series in the legend. docs/plots.md describes the data file.
#
# Variables written by mw: title_text, nver, ver_name[nver] (block k-1 is version k:
# n_spop t_measured_s t_predicted_s t_fitted_s e_measured_j e_predicted_j e_fitted_j run),
# t_pred_title[], t_fit_title[], e_pred_title[], e_fit_title[] (legend texts with NRMSE),
# have_fit; t_meas_list, t_pred_list, t_fit_list, e_meas_list, e_pred_list, e_fit_list (the
# versions, 1-based, with values in each series, as words); xmin, xmax, tmin, tmax, emin,
# emax (ranges), xtic_step (N_Spop between tics; 0: gnuplot's choice); n_notes, notes[].

set multiplot layout 1, 2 title title_text font ',12'
set xlabel 'N_Spop (subpopulations)'
set xrange [xmin:xmax]
if (xtic_step) {
    set xtics xtic_step
}
set key outside bottom center vertical maxrows 6 samplen 3
set tmargin (3 + 1.5 * n_notes)  # the notes sit above the panels, not over their titles
set bmargin 10
do for [i = 1:n_notes] {
    set label (100 + i) notes[i] at screen 0.02, screen (0.97 - 0.03 * i) left tc rgb '#a00000'
}
# time
set ylabel 'time of the N_Gm epochs (s)'
set title 'time'
set yrange [tmin:tmax]
plot for [w in t_meas_list] datafile index (word_index(w) - 1) using 1:2 with points pt (word_index(w) == 1 ? 7 : 5) ps 1.3 lc rgb series_color[word_index(w)] title sprintf('%s measured', ver_name[word_index(w)]), \
     for [w in t_pred_list] datafile index (word_index(w) - 1) using 1:(column(strlen(t_pred_list) ? 3 : 2)) with linespoints lw 1.5 dt 2 pt (word_index(w) == 1 ? 6 : 4) lc rgb series_color[word_index(w)] title t_pred_title[word_index(w)], \
     for [w in t_fit_list] datafile index (word_index(w) - 1) using 1:(column(strlen(t_fit_list) ? 4 : 2)) with lines lw 2 dt 1 lc rgb series_color[word_index(w) + 2] title t_fit_title[word_index(w)]
unset label
# energy
set ylabel 'energy over them, every channel (J)'
set title 'energy'
set yrange [emin:emax]
plot for [w in e_meas_list] datafile index (word_index(w) - 1) using 1:5 with points pt (word_index(w) == 1 ? 7 : 5) ps 1.3 lc rgb series_color[word_index(w)] title sprintf('%s measured', ver_name[word_index(w)]), \
     for [w in e_pred_list] datafile index (word_index(w) - 1) using 1:(column(strlen(e_pred_list) ? 6 : 5)) with linespoints lw 1.5 dt 2 pt (word_index(w) == 1 ? 6 : 4) lc rgb series_color[word_index(w)] title e_pred_title[word_index(w)], \
     for [w in e_fit_list] datafile index (word_index(w) - 1) using 1:(column(strlen(e_fit_list) ? 7 : 5)) with lines lw 2 dt 1 lc rgb series_color[word_index(w) + 2] title e_fit_title[word_index(w)]
unset multiplot
