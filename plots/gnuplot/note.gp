# note.gp — a figure with nothing to draw but the reason (a kind that does not apply to the
# input, or data that is missing). Variables written by mw: title_text, note_text (the
# whole note), n_lines, note_lines[] (the note cut into lines that fit the figure).
set title title_text font ',12'
unset border
unset tics
unset grid
unset key
do for [i = 1:n_lines] {
    set label i note_lines[i] at graph 0.5, graph (0.5 + 0.04 * ((n_lines + 1) / 2.0 - i)) center font ',14' tc rgb '#a00000'
}
plot [0:1] [0:1] 2 notitle
