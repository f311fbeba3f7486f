# inband.gp — kind inband: a node's wall power (black steps) with its in-band sources
# stacked below it: the additive sources (packages, dram, GPUs) as bands whose top is their
# sum, the parts (core, uncore, psys: inside or around a package) as dashed lines; the space
# between the top band and the wall is the rest of the node. docs/plots.md describes the data.
#
# Variables written by mw: title_text; have_wall, wall_name; n_add, add_name[n_add]; n_part,
# part_name[n_part]; xmin, xmax (s); ymax (W). Block 0: t_s wall_w, then the stacked sums
# (column 3 .. 2 + n_add: the first source, the first two, ...), then the parts' powers.

set title title_text font ',12'
set xlabel 'time since the start of the run (s)'
set ylabel 'power (W)'
set xrange [xmin:xmax]
set yrange [0:ymax]
set key outside bottom center horizontal maxrows 3
set bmargin 7
plot for [i = n_add:1:-1] datafile index 0 using 1:(column(2 + i)) with filledcurves x1 ls i fs solid 0.45 title add_name[i], \
     for [i = 1:n_part] datafile index 0 using 1:(column(2 + n_add + i)) with lines ls (n_add + i) dt 2 title part_name[i], \
     for [k = 1:have_wall] datafile index 0 using 1:2 with steps lw 2 lc rgb '#000000' title sprintf('wall: %s', wall_name)
