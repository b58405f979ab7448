/* tilepx public C API: compile a .tile program to PTX text, check it, or
 * explain its dispatch decisions. Everything a call allocates lives in its
 * result and is released by tilepx_result_free. */
#ifndef TILEPX_H
#define TILEPX_H

#include <stddef.h>

/* the version this header belongs to; tilepx_version() is the library's */
#define TILEPX_VERSION_MAJOR 0
#define TILEPX_VERSION_MINOR 2
#define TILEPX_VERSION_PATCH 0
#define TILEPX_VERSION_STRING "0.2.0"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilepx_mode {
	TILEPX_CHECK,        /* front end only */
	TILEPX_EMIT,         /* PTX module text */
	TILEPX_EXPLAIN,      /* dispatch table, human readable */
	TILEPX_EXPLAIN_JSON, /* one JSON object per copy (docs/language.md) */
} tilepx_mode;

typedef struct tilepx_result {
	int ok;             /* 1 on success, 0 when the input has errors */
	char *output;       /* PTX or explain text (NULL for CHECK or on error) */
	size_t output_len;
	char *diagnostics;  /* FILE:LINE:COL: error|warning: ... lines with carets */
} tilepx_result;

/* Compile src[0..len). path names the source in diagnostics (NULL: "<input>");
 * src need not be NUL-terminated and may be NULL only when len is 0.
 * target overrides the file's `target` when not NULL (e.g. "sm_90").
 * Returns 1 and sets out->ok = 1 on success; returns 0 with out->ok = 0 when
 * the input has errors or an argument is invalid (src NULL with len > 0, an
 * unknown mode): out->diagnostics then says why. out must not be NULL (the
 * call returns 0 and does nothing if it is). Free out with tilepx_result_free. */
int tilepx_compile(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out);
/* releases what a result holds and zeroes it; NULL is allowed */
void tilepx_result_free(tilepx_result *r);
/* the library version, "MAJOR.MINOR.PATCH" */
const char *tilepx_version(void);

#ifdef __cplusplus
}
#endif
#endif
