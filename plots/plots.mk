# plots/ — libmwplot (build/lib/libmwplot.a): gnuplot figures (data files, scripts from the
# templates in plots/gnuplot/, gnuplot run with an argument vector) and the HTML report
# (its style sheet plots/report.css is compiled in). Public headers in plots/include/.
PLOT_SRCS += $(wildcard plots/*.c)
$(BUILD)/obj/plots/report_css.o $(BUILD)/asan/obj/plots/report_css.o: plots/report.css
