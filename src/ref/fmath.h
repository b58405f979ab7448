/* The reference's elementary functions (src/ref/fmath.c): no libm. */
#ifndef TILEPX_REF_FMATH_H
#define TILEPX_REF_FMATH_H
double rm_ldexp(double x, int e);
double rm_frexp(double x, int *e);
double rm_rint(double x);   /* ties to even */
double rm_sqrt(double x);
float rm_sqrtf(float x);    /* correctly rounded */
float rm_fmaf(float a, float b, float c); /* one rounding */
double rm_exp2(double x);
double rm_log2(double x);
double rm_tanh(double x);
#endif
