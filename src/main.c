/* tilepx command line. Exit status: 0 success, 1 bad input, 2 bad usage. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"
#include "../include/tilepx/tilepx.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *usage_main =
	"usage: tilepx COMMAND [OPTIONS] FILE...\n"
	"\n"
	"Lower tile copies in .tile programs straight to PTX.\n"
	"\n"
	"commands:\n"
	"  check FILE...            parse and check programs (no output)\n"
	"  emit FILE... [-o OUT]    write one .ptx module per file\n"
	"  explain FILE [--json]    show each copy's dispatch decision\n"
	"  regclasses               print the NVPTX register-class table\n"
	"  nvvm-select ...          the ldmatrix/stmatrix/movmatrix selector (seed 002)\n"
	"\n"
	"options: -h, --help (also after a command), -V, --version\n";

static const char *usage_check = "usage: tilepx check FILE...\n\nParse and check each file; errors go to stderr.\n";
static const char *usage_emit =
	"usage: tilepx emit FILE... [-o OUT] [--target SM]\n\n"
	"Write one PTX module per file: FILE.ptx beside it, or OUT (one input only; '-' is stdout).\n"
	"The output is written to a temporary file and renamed, so an error never leaves a partial or\n"
	"clobbered file. --target overrides the file's target.\n";
static const char *usage_explain =
	"usage: tilepx explain FILE... [--json] [--target SM]\n\n"
	"Show every copy's candidates, the chosen variant and its parameters.\n";

static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n == cap) {
			if (cap > ((size_t)1 << 30)) {
				free(buf);
				if (f != stdin)
					fclose(f);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

/* write atomically: a temporary in the same directory, then rename */
static bool write_output(const char *path, const char *data, size_t len)
{
	if (!strcmp(path, "-"))
		return fwrite(data, 1, len, stdout) == len;
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "tilepx: cannot write %s: %s\n", path, strerror(errno));
		free(tmp);
		return false;
	}
	FILE *f = fdopen(fd, "wb");
	bool ok = f && fwrite(data, 1, len, f) == len;
	ok = f && fclose(f) == 0 && ok;
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok) {
		fprintf(stderr, "tilepx: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok;
}

static char *default_output(const char *in)
{
	size_t n = strlen(in);
	char *out = malloc(n + 5);
	memcpy(out, in, n + 1);
	if (n > 5 && !strcmp(in + n - 5, ".tile"))
		out[n - 5] = 0;
	strcat(out, ".ptx");
	return out;
}

static int run(int argc, char **argv, tilepx_mode mode, const char *usage)
{
	static const struct option opts[] = {
		{"help", no_argument, 0, 'h'},   {"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'},   {"target", required_argument, 0, 't'},
		{0, 0, 0, 0},
	};
	const char *out = NULL, *target = NULL;
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:t:", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(usage, stdout); return 0;
		case 'o': out = optarg; break;
		case 'j': json = true; break;
		case 't': target = optarg; break;
		default: fputs(usage, stderr); return 2;
		}
	}
	if ((out && mode != TILEPX_EMIT) || (json && mode != TILEPX_EXPLAIN)) {
		fprintf(stderr, "tilepx: %s is not an option of this command\n", out ? "-o" : "--json");
		fputs(usage, stderr);
		return 2;
	}
	if (json)
		mode = TILEPX_EXPLAIN_JSON;
	int nfiles = argc - optind;
	if (nfiles < 1) {
		fputs("tilepx: no input file\n", stderr);
		fputs(usage, stderr);
		return 2;
	}
	if (out && nfiles > 1) {
		fputs("tilepx: -o takes one input file\n", stderr);
		return 2;
	}
	int status = 0;
	for (int i = optind; i < argc; i++) {
		size_t len;
		char *src = read_file(argv[i], &len);
		if (!src) {
			fprintf(stderr, "tilepx: cannot read %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		tilepx_result r;
		tilepx_compile(argv[i], src, len, target, mode, &r);
		if (r.diagnostics)
			fputs(r.diagnostics, stderr);
		if (!r.ok) {
			status = 1;
		} else if (mode == TILEPX_EMIT) {
			char *path = out ? strdup(out) : default_output(argv[i]);
			if (!write_output(path, r.output, r.output_len))
				status = 1;
			free(path);
		} else if (r.output) {
			fwrite(r.output, 1, r.output_len, stdout);
		}
		tilepx_result_free(&r);
		free(src);
	}
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("tilepx %s\n", tilepx_version());
		return 0;
	}
	if (!strcmp(cmd, "check"))
		return run(argc - 1, argv + 1, TILEPX_CHECK, usage_check);
	if (!strcmp(cmd, "emit"))
		return run(argc - 1, argv + 1, TILEPX_EMIT, usage_emit);
	if (!strcmp(cmd, "explain"))
		return run(argc - 1, argv + 1, TILEPX_EXPLAIN, usage_explain);
	if (!strcmp(cmd, "regclasses")) {
		if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
			puts("usage: tilepx regclasses\n\nPrint the NVPTX register-class model (seed 002).");
			return 0;
		}
		regclass_print_table(stdout);
		return 0;
	}
	if (!strcmp(cmd, "nvvm-select"))
		return nvvm_select_main(argc - 1, argv + 1);
	fprintf(stderr, "tilepx: unknown command '%s'\n", cmd);
	fputs(usage_main, stderr);
	return 2;
}
