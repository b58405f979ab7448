/* tilepx public C API: compile a .tile program to PTX text, check it, or
 * explain its dispatch decisions. Everything a call allocates lives in its
 * result and is released by tilepx_result_free. */
#ifndef TILEPX_H
#define TILEPX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilepx_mode {
	TILEPX_CHECK,        /* front end only */
	TILEPX_EMIT,         /* PTX module text */
	TILEPX_EXPLAIN,      /* dispatch table, human readable */
	TILEPX_EXPLAIN_JSON, /* one JSON object per copy (TILE_LANGUAGE.md) */
} tilepx_mode;

typedef struct tilepx_result {
	int ok;             /* 1 on success, 0 when the input has errors */
	char *output;       /* PTX or explain text (NULL for CHECK or on error) */
	size_t output_len;
	char *diagnostics;  /* FILE:LINE:COL: error|warning: ... lines with carets */
} tilepx_result;

/* path names the source in diagnostics; src need not be NUL-terminated.
 * target overrides the file's `target` when not NULL (e.g. "sm_90"). */
int tilepx_compile(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out);
void tilepx_result_free(tilepx_result *r);
const char *tilepx_version(void);

#ifdef __cplusplus
}
#endif
#endif
