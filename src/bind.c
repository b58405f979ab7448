/* Binding a kernel's runtime values (scalar params) for the runners: the
 * facts are the launch contract, so a value that breaks one is refused
 * before anything runs; then the grid and the params' extents become the
 * constants the reference and the emulator work with. */
#include "tilepx.h"

#include <stdlib.h>
#include <string.h>

bool kernel_bind(Kernel *k, const int64_t *vals, char *why, size_t n)
{
	for (size_t i = 0; i < k->nscalars; i++) {
		const Scalar *sc = &k->scalars[i];
		int64_t v = vals[i];
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
	for (size_t i = 0; i < k->nbufs; i++) {
		Buffer *b = k->bufs[i];
		if (!b->dynamic)
			continue;
		int64_t size = 1;
		for (int d = 0; d < b->ndim; d++) {
			if (b->dyn_dim[d])
				b->shape[d] = vals[b->dyn_dim[d] - 1];
			size *= b->shape[d];
		}
		for (int d = 0; d < b->ndim && b->tma; d++)
			if (b->shape[d] == 0) { /* cuTensorMapEncodeTiled: every dimension is 1..2^32 */
				const Scalar *sc = &k->scalars[b->dyn_dim[d] - 1];
				snprintf(why, n, "%s=0 gives '%s' an empty dimension %d; a tensor map's dimensions are at least 1",
				         sc->name, b->name, d);
				return false;
			}
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
	}
	k->bound_vals = vals;
	return true;
}

bool kernel_set_value(const char *const *sets, int n, const char *name, int64_t *v, bool *bad)
{
	size_t len = strlen(name);
	for (int i = 0; i < n; i++)
		if (sets[i] && !strncmp(sets[i], name, len) && sets[i][len] == '=') {
			char *end;
			*v = strtoll(sets[i] + len + 1, &end, 10); /* decimal: 010 is ten */
			*bad = *end != 0 || end == sets[i] + len + 1;
			return true;
		}
	return false;
}
