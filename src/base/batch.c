/* --batch, shared by tilepx and ptxemu: one process for many invocations
 * (make test runs hundreds; a process costs milliseconds). Each line of
 * standard input is one invocation's arguments, split at blanks as a shell
 * would: '...' keeps everything literally, "..." keeps blanks (\" and \\
 * inside), and a backslash outside quotes keeps the next character, so a
 * path with a space is "a b.tile" or a\ b.tile. After the invocation's own
 * output, "END STATUS" (the exit status it would have alone) on stdout. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* split line in place into args (after args[0]); the count, or -1 for an
 * unterminated quote */
static int split_args(char *line, char **args)
{
	int n = 1;
	char *r = line, *w = line;
	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n')
			r++;
		if (!*r)
			return n;
		args[n++] = w;
		char quote = 0;
		for (; *r && (quote || !strchr(" \t\r\n", *r)); r++) {
			if (quote == '\'' && *r == '\'') {
				quote = 0;
			} else if (quote == '\'') {
				*w++ = *r;
			} else if (*r == '\\' && r[1] && (!quote || r[1] == '"' || r[1] == '\\')) {
				*w++ = *++r;
			} else if (*r == quote) {
				quote = 0;
			} else if (!quote && (*r == '\'' || *r == '"')) {
				quote = *r;
			} else {
				*w++ = *r;
			}
		}
		if (quote)
			return -1;
		bool end = !*r;
		*w++ = 0;
		if (end)
			return n;
		r++;
	}
}

int batch_loop_ctx(const char *tool, int (*run)(void *ctx, int argc, char **argv), void *ctx)
{
	char *line = NULL;
	size_t cap = 0;
	int status = 0;
	while (getline(&line, &cap, stdin) > 0) {
		char **args = malloc(sizeof(char *) * (strlen(line) / 2 + 2));
		if (!args) {
			fprintf(stderr, "%s: out of memory\n", tool);
			free(line);
			return 1;
		}
		args[0] = (char *)tool;
		int argc = split_args(line, args), rc = 2;
		if (argc < 0)
			fprintf(stderr, "%s: --batch: a quote is not closed on its line\n", tool);
		else if (argc == 1)
			fprintf(stderr, "%s: --batch: an empty line (no arguments)\n", tool);
		else
			args[argc] = NULL, rc = run(ctx, argc, args);
		fflush(stderr);
		printf("END %d\n", rc);
		if (fflush(stdout) != 0)
			rc = 1;
		status |= rc != 0;
		free(args);
	}
	free(line);
	return status;
}

typedef struct PlainRun { int (*run)(int argc, char **argv); } PlainRun;

static int plain_run(void *ctx, int argc, char **argv) { return ((PlainRun *)ctx)->run(argc, argv); }

int batch_loop(const char *tool, int (*run)(int argc, char **argv))
{
	PlainRun p = {run};
	return batch_loop_ctx(tool, plain_run, &p);
}
