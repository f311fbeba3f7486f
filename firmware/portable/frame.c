/* frame — see frame.h. */
#include "frame.h"

#include <math.h>

#include "line.h"

void mw_frame_set_values(mw_frame *f, const mw_metrology *r, uint8_t nchan)
{
    f->freq_mhz = (int32_t)lroundf(r->freq_hz * 1000.0f);
    f->vrms_mv = (int32_t)lroundf(r->vrms_v * 1000.0f);
    f->nchan = nchan;
    for (uint8_t k = 0; k < nchan; k++) {
        f->p_mw[k] = (int32_t)lroundf(r->p_w[k] * 1000.0f);
        f->irms_ua[k] = (int32_t)lroundf(r->irms_a[k] * 1e6f);
        f->pf_milli[k] = (int16_t)lroundf(r->pf[k] * 1000.0f);
    }
}

uint16_t mw_frame_encode(const mw_frame *f, char *buf, uint16_t cap)
{
    mw_line l;
    mw_line_init(&l, buf, cap);
    mw_line_str(&l, "W,");
    mw_line_u64(&l, f->seq);
    mw_line_char(&l, ',');
    mw_line_u64(&l, f->t0_us);
    mw_line_char(&l, ',');
    mw_line_u64(&l, f->t1_us);
    mw_line_char(&l, ',');
    mw_line_hex(&l, f->flags);
    mw_line_char(&l, ',');
    mw_line_u64(&l, f->nsets);
    mw_line_char(&l, ',');
    mw_line_u64(&l, f->missed);
    mw_line_char(&l, ',');
    mw_line_hex(&l, f->clip);
    mw_line_char(&l, ',');
    mw_line_i64(&l, f->freq_mhz);
    mw_line_char(&l, ',');
    mw_line_i64(&l, f->vrms_mv);
    for (uint8_t k = 0; k < f->nchan; k++) {
        mw_line_char(&l, ';');
        mw_line_i64(&l, f->p_mw[k]);
        mw_line_char(&l, ',');
        mw_line_i64(&l, f->irms_ua[k]);
        mw_line_char(&l, ',');
        mw_line_i64(&l, f->pf_milli[k]);
        mw_line_char(&l, ',');
        mw_line_i64(&l, f->e_mj[k]);
    }
    return mw_line_finish(&l);
}

void mw_energy_add(mw_energy *e, int32_t p_mw, uint32_t dt_us)
{
    int64_t nj = (int64_t)p_mw * dt_us + e->rem_nj;
    e->uj += nj / 1000;
    e->rem_nj = (int32_t)(nj % 1000);
}

int64_t mw_energy_mj(const mw_energy *e)
{
    return e->uj / 1000;
}
