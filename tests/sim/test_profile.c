/* A power profile drives the real firmware: a step from 100 W to 500 W at t = 2 s shows in
 * the windows before and after it, and every window, including the one that straddles the
 * step, reads the mean of v(t) i(t) over its own sample instants (a few ms past the step
 * are not a whole mains cycle, so a time-weighted mean of 100 and 500 W would be wrong). */
#include <math.h>
#include <unistd.h>

#include "harness.h"
#include "mw_simprofile.h"

static void step_appears_where_it_should(void **s)
{
    char path[] = "/tmp/mw-step-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "t_s,A1\n0,100\n2.0,500\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char err[256];
    mw_simprofile *p = mw_simprofile_load(path, err, sizeof err);
    unlink(path);
    if (!p) fail_msg("%s", err);
    h_board *h = h_open();
    mw_simprofile_attach(p, h->sim, 1.0, MW_SIM_SINE);
    h_run_windows(h, 16, 6.0);
    int straddled = 0;
    for (int i = 1; i < h->nwin; i++) {
        const mw_proto_window *w = &h->win[i];
        /* true time of the window's first and last samples */
        double a = mw_sim_adc_sample_time(h->sim, w->t0_us / 104);
        double b = mw_sim_adc_sample_time(h->sim, w->t1_us / 104);
        /* truth: P(t) = 100 or 500 W, i = sqrt2 P(t)/230 sin(wt), v = 230 sqrt2 sin(wt) */
        double svi = 0;
        for (uint32_t n = 0; n < w->nsets; n++) {
            double t = mw_sim_adc_sample_time(h->sim, w->t0_us / 104 + 7u * n + 2); /* sets of 5 + 2 */
            double pw = t < 2.0 ? 100 : 500, x = sin(2 * M_PI * 50 * t);
            double v = 230 * M_SQRT2 * x, cur = M_SQRT2 * pw / 230 * x;
            svi += v * cur;
        }
        double want = svi / w->nsets; /* no DC in the injected waveforms */
        if (a < 2.0 && b > 2.0) straddled++;
        double got = w->ch[0].p_mw / 1e3;
        if (fabs(got - want) / want > 0.02)
            fail_msg("window %u [%.4f, %.4f] s: %.2f W, want %.2f W", w->seq, a, b, got, want);
    }
    assert_int_equal(straddled, 1);
    h_close(h);
    mw_simprofile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(step_appears_where_it_should)};
    return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
