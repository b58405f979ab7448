/* Binding a kernel's runtime values (scalar params) for the runners: the
 * facts are the launch contract, so a value that breaks one is refused
 * before anything runs; then the grid and the params' extents become the
 * constants the reference and the emulator work with. */
#include "tilepx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* every scalar's value against the 31-bit range and its facts, as written */
static bool check_scalar_values(const Kernel *k, const int64_t *vals, char *why, size_t n)
{
	for (size_t i = 0; i < k->nscalars; i++) {
		const Scalar *sc = &k->scalars[i];
		int64_t v = vals[i];
		if (dtype_is_float_scalar(sc->dt)) /* its bits: any value */
			continue;
		if (v < 0 || v > SCALAR_MAX) {
			snprintf(why, n, "%s=%lld is outside 0..%d (scalar values are 31-bit)", sc->name, (long long)v, SCALAR_MAX);
			return false;
		}
		/* the facts are a conjunction: check each one as written */
		for (size_t f = 0; f < sc->nfacts; f++) {
			const struct Fact *ft = &sc->facts[f];
			char fact[64];
			if (ft->op == '>' ? v >= ft->v : ft->op == '<' ? v <= ft->v : v % ft->v == 0)
				continue;
			if (ft->op == '%')
				snprintf(fact, sizeof fact, "%s %% %lld == 0", sc->name, (long long)ft->v);
			else
				snprintf(fact, sizeof fact, "%s %c= %lld", sc->name, ft->op, (long long)ft->v);
			snprintf(why, n, "%s=%lld breaks the fact '%s' (line %d); the kernel's code relies on it", sc->name,
			         (long long)v, fact, ft->loc.line);
			return false;
		}
		if (v < sc->lo || v > sc->hi || v % sc->mult) { /* the facts imply these: a broken invariant */
			snprintf(why, n, "%s=%lld is outside the facts' %lld..%lld, multiple of %lld", sc->name, (long long)v,
			         (long long)sc->lo, (long long)sc->hi, (long long)sc->mult);
			return false;
		}
	}
	return true;
}

/* the grid dimensions given as cdiv(scalar, tile): non-empty, whole clusters */
static bool bind_grid(Kernel *k, const int64_t *vals, char *why, size_t n)
{
	for (int d = 0; d < 2; d++) {
		if (k->grid_var[d] < 0)
			continue;
		const Scalar *sc = kernel_scalar_of_var(k, k->grid_var[d]);
		int64_t v = vals[sc - k->scalars], g = (v + k->grid_div[d] - 1) / k->grid_div[d];
		if (g < 1) {
			snprintf(why, n, "%s=%lld gives an empty grid (cdiv(%s, %lld) = 0)", sc->name, (long long)v, sc->name,
			         (long long)k->grid_div[d]);
			return false;
		}
		if (d == 0)
			k->grid = g;
		else
			k->grid_y = g;
		int64_t cl = d ? k->cluster_y : k->cluster_x;
		if (k->cluster_x && g % cl) {
			snprintf(why, n, "%s=%lld gives a grid of %lld in %c, not a multiple of the cluster's %lld", sc->name,
			         (long long)v, (long long)g, "xy"[d], (long long)cl);
			return false;
		}
	}
	return true;
}

/* cuTensorMapEncodeTiled: every stride (bytes of the dimensions inside it)
 * below 2^40; rank 1 and 2 always are (a row is below 2^31 elements of at
 * most 8 bytes), an outer stride of rank 3..5 may not be */
static bool tma_strides_fit(const Kernel *k, const Buffer *b, const int64_t *vals, char *why, size_t n)
{
	int64_t stride = dtype_bytes(b->dt);
	for (int d = b->ndim - 1; d > 0; d--) {
		int64_t line = d == b->ndim - 1 && b->ld_scalar ? vals[b->ld_scalar - 1] : b->shape[d];
		if (mul_ok(stride, line, &stride) && stride < ((int64_t)1 << 40))
			continue;
		char vs[160] = "";
		for (int j = d; j < b->ndim; j++)
			if (b->dyn_dim[j])
				snprintf(vs + strlen(vs), sizeof vs - strlen(vs), "%s%s=%lld", *vs ? " " : "",
				         k->scalars[b->dyn_dim[j] - 1].name, (long long)b->shape[j]);
		snprintf(why, n, "%s gives dimension %d of '%s' a stride of 2^40 bytes or more, past what a tensor map "
		         "encodes", vs, d - 1, b->name);
		return false;
	}
	return true;
}

/* a param with runtime extents: its shape, storage and layout (lines ld
 * apart for an ld or colmajor param) from the values; false with why when
 * no runner can address it or its lines would overlap */
static bool bind_dynamic_param(const Kernel *k, Buffer *b, const int64_t *vals, char *why, size_t n)
{
	/* span: the bytes of every dimension at least 1 long, which bounds each
	 * stride and the byte size; past int64 no runner can address it */
	int64_t size = 1, span = dtype_bytes(b->dt);
	bool fits = true;
	for (int d = 0; d < b->ndim; d++) {
		if (b->dyn_dim[d])
			b->shape[d] = vals[b->dyn_dim[d] - 1];
		fits = fits && mul_ok(span, b->shape[d] ? b->shape[d] : 1, &span);
		size *= fits ? b->shape[d] : 1;
	}
	if (fits && (b->ld_scalar || b->colmajor)) {
		int in = dyn_inner(b), out = dyn_outer(b);
		int64_t ld = b->ld_scalar ? vals[b->ld_scalar - 1] : b->shape[in], lines;
		fits = mul_ok(b->shape[out] ? b->shape[out] : 1, ld, &lines) && mul_ok(lines, dtype_bytes(b->dt), &lines);
	}
	if (!fits) {
		char dims[MAX_DIMS * 24] = "";
		for (int d = 0; d < b->ndim; d++)
			snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", d ? ", " : "",
			         (long long)b->shape[d]);
		snprintf(why, n, "the values make param '%s' [%s] more than 2^63 - 1 bytes: no runner can address it",
		         b->name, dims);
		return false;
	}
	for (int d = 0; d < b->ndim && b->tma; d++)
		if (b->shape[d] == 0) { /* cuTensorMapEncodeTiled: every dimension is 1..2^32 */
			const Scalar *sc = &k->scalars[b->dyn_dim[d] - 1];
			snprintf(why, n, "%s=0 gives '%s' an empty dimension %d; a tensor map's dimensions are at least 1",
			         sc->name, b->name, d);
			return false;
		}
	if (b->tma && !tma_strides_fit(k, b, vals, why, n))
		return false;
	b->storage = size;
	b->has_layout = false;
	lay_compact(&b->layout, b->shape, b->ndim);
	if (b->ld_scalar || b->colmajor) { /* lines ld apart: the last ends at (lines-1)*ld + its length */
		int in = dyn_inner(b), out = dyn_outer(b);
		int64_t ld = b->ld_scalar ? vals[b->ld_scalar - 1] : b->shape[in];
		if (ld < b->shape[in]) {
			const char *line = b->colmajor ? "column" : "row";
			snprintf(why, n, "%s=%lld is less than the %lld elements of a %s of '%s': its %ss would overlap",
			         k->scalars[b->ld_scalar - 1].name, (long long)ld, (long long)b->shape[in], line, b->name, line);
			return false;
		}
		b->layout.n = 2;
		b->layout.it[0] = (Iter){b->shape[0], out == 0 ? ld : 1, AX_M};
		b->layout.it[1] = (Iter){b->shape[1], out == 1 ? ld : 1, AX_M};
		b->has_layout = true;
		b->storage = b->shape[out] && b->shape[in] ? (b->shape[out] - 1) * ld + b->shape[in] : 0;
	}
	return true;
}

bool kernel_bind(Kernel *k, const int64_t *vals, char *why, size_t n)
{
	if (!check_scalar_values(k, vals, why, n) || !bind_grid(k, vals, why, n))
		return false;
	for (size_t i = 0; i < k->nbufs; i++)
		if (k->bufs[i]->dynamic && !bind_dynamic_param(k, k->bufs[i], vals, why, n))
			return false;
	k->bound_vals = vals;
	return true;
}

/* V of "NAME=V": an optional sign and decimal digits, nothing else, within
 * int64 (strtoll alone skips leading blanks and saturates on overflow) */
static bool set_number(const char *s, int64_t *v)
{
	if (!(*s >= '0' && *s <= '9') && !((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9'))
		return false;
	errno = 0;
	char *end;
	long long x = strtoll(s, &end, 10); /* decimal: 010 is ten */
	if (*end || errno == ERANGE)
		return false;
	*v = x;
	return true;
}

/* V of "NAME=V" for a float scalar: a float literal as strtof reads it,
 * written as one (a point or an exponent: 1.0, -2e-3, 0x1p-3; or inf, nan,
 * with a sign), rounded to nearest f32, nothing after it. An integer's
 * spelling is an integer's, checked as one (-1, +5, 0x10 are refused). */
static bool set_float(const char *s, float *f)
{
	const char *m = s + (*s == '-' || *s == '+');
	bool hex = m[0] == '0' && (m[1] == 'x' || m[1] == 'X');
	bool named = !strcmp(m, "inf") || !strcmp(m, "nan");
	bool digits = *m >= '0' && *m <= '9';
	if (!named && !(digits && (hex ? strpbrk(m, "pP") : strpbrk(m, ".eE"))) && !(*m == '.' && m[1] >= '0' && m[1] <= '9'))
		return false;
	char *end;
	*f = strtof(s, &end);
	return !*end;
}

bool kernel_set_check(const char *set, char *why, size_t n)
{
	const char *eq = set ? strchr(set, '=') : NULL;
	size_t len = eq ? (size_t)(eq - set) : 0;
	bool name_ok = len > 0 && !(set[0] >= '0' && set[0] <= '9');
	for (size_t i = 0; i < len && name_ok; i++)
		name_ok = (set[i] >= 'a' && set[i] <= 'z') || (set[i] >= 'A' && set[i] <= 'Z') ||
		          (set[i] >= '0' && set[i] <= '9') || set[i] == '_';
	int64_t v;
	if (!name_ok) {
		snprintf(why, n, "'%s' is not NAME=VALUE (a scalar param's name, '=', a decimal integer)", set ? set : "(null)");
		return false;
	}
	const char *num = eq + 1;
	if (*num >= '0' && *num <= '9' && set_number(num, &v) && v <= SCALAR_MAX)
		return true;
	float f;
	if (set_float(num, &f)) /* a float scalar's value (an integer one refuses it at binding) */
		return true;
	bool digits = *num != 0; /* digits, however many, or a minus and digits */
	for (const char *c = num + (*num == '-'); *c && digits; c++)
		digits = *c >= '0' && *c <= '9';
	if (digits && num[*num == '-'])
		snprintf(why, n, "'%s': the value is outside 0..%d (scalar values are 31-bit)", set, SCALAR_MAX);
	else
		snprintf(why, n, "'%s': the value is not a decimal integer", set);
	return false;
}

bool kernel_sets_check(const char *const *sets, int n, char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		if (!kernel_set_check(sets[i], why, len))
			return false;
		size_t nl = strcspn(sets[i], "=");
		for (int j = 0; j < i; j++)
			if (!strncmp(sets[j], sets[i], nl + 1)) { /* the later one would be ignored */
				snprintf(why, len, "'%.*s' is given twice ('%s', '%s')", (int)nl, sets[i], sets[j], sets[i]);
				return false;
			}
	}
	return true;
}

/* f32 bits u rounded to nearest even into f16 or bf16 bits (integer
 * arithmetic: the library links without libm) */
static uint64_t half_bits(uint32_t u, bool bf16)
{
	uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, man = u & 0x7fffff;
	if (bf16) {
		if (exp == 0xff && man)
			return (u >> 16) | 0x40; /* a NaN stays a NaN */
		return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
	}
	if (exp == 0xff)
		return sign | 0x7c00 | (man ? 0x200 : 0);
	int e = (int)exp - 127 + 15, shift = 13;
	if (e >= 31)
		return sign | 0x7c00;
	uint32_t h;
	if (e <= 0) { /* a subnormal f16, or zero */
		if (e < -10)
			return sign;
		man |= 0x800000;
		shift = 14 - e;
		h = man >> shift;
	} else {
		h = (uint32_t)e << 10 | man >> 13;
	}
	uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (h & 1)))
		h++; /* a carry moves into the exponent, up to infinity */
	return sign | h;
}

bool kernel_set_float(const char *const *sets, int n, const char *name, DType dt, int64_t *bits, bool *bad)
{
	size_t len = strlen(name);
	for (int i = 0; i < n; i++)
		if (sets[i] && !strncmp(sets[i], name, len) && sets[i][len] == '=') {
			float f = 0;
			uint32_t u;
			*bad = !set_float(sets[i] + len + 1, &f);
			memcpy(&u, &f, 4);
			*bits = dt == DT_F32 ? (int64_t)u : (int64_t)half_bits(u, dt == DT_BF16);
			return true;
		}
	return false;
}

bool kernel_set_value(const char *const *sets, int n, const char *name, int64_t *v, bool *bad)
{
	size_t len = strlen(name);
	for (int i = 0; i < n; i++)
		if (sets[i] && !strncmp(sets[i], name, len) && sets[i][len] == '=') {
			*bad = !set_number(sets[i] + len + 1, v);
			return true;
		}
	return false;
}
