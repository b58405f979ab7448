/* tilepx command line. Exit status: 0 success, 1 bad input, 2 bad usage. */
#define _XOPEN_SOURCE 700
#include "tilepx.h"
#include "../include/tilepx/tilepx.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
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
	"  nvvm-select ...          the ldmatrix/stmatrix/movmatrix selector (the NVVM selector model)\n"
	"\n"
	"options: -h, --help (also after a command), -V, --version\n"
	"diagnostics (check, emit, explain): -Werror (warnings are errors), -w (no warnings),\n"
	"  --max-errors N (report the first N, default 20, 0 all),\n"
	"  --color[=auto|always|never] (auto: stderr is a terminal and NO_COLOR is unset),\n"
	"  --diagnostics-format=text|json (json: gcc's JSON array, one per input file)\n"
	"compilation (check, emit, explain): -D NAME=VALUE (set constant NAME, or pin scalar param NAME),\n"
	"  -lineinfo, -g (emit: .file/.loc lines mapping the PTX to .tile lines, as nvcc -lineinfo)\n"
	"\n"
	"tilepx --batch < LINES: each line is one invocation's arguments (split at blanks as a shell\n"
	"would: 'a b' and \"a b\" keep blanks, a backslash keeps the next character),\n"
	"run in this process; after its output, 'END STATUS' (its exit status) on stdout.\n"
	"Consecutive lines on the same file (same bytes, target, -D and diagnostics options) share\n"
	"its analysis: check, emit, emit -lineinfo and explain cost one analysis and their own output.\n";

static const char *usage_check = "usage: tilepx check FILE... [-D NAME=VALUE]... [--dump-after=PASS]\n\nParse and check each file; errors go to stderr.\n";
static const char *usage_emit =
	"usage: tilepx emit FILE... [-o OUT] [--target SM] [-D NAME=VALUE]... [-lineinfo] [--dump-after=PASS]\n\n"
	"Write one PTX module per file: FILE.ptx beside it, DIR/FILE.ptx when OUT is a directory, or\n"
	"OUT (one input only; '-' is stdout). FILE '-' reads standard input and writes standard output.\n"
	"A regular output file is replaced through a temporary and a rename, keeping its mode and any\n"
	"symlink to it, so an error never leaves a partial or clobbered file; devices and FIFOs are\n"
	"written directly; an output that is an input file is refused. --target overrides the target.\n"
	"--dump-after=PASS prints (to stderr) the state a pass of the pipeline leaves (docs/design.md).\n"
	"-D NAME=VALUE sets the constant NAME ('define NAME' in the file) to VALUE, a number or a name, or\n"
	"pins scalar param NAME to VALUE (0..2147483647) where it is declared, as the facts\n"
	"'NAME >= VALUE' and 'NAME <= VALUE' would: the code may rely on it, and a launch with another\n"
	"value is refused. -lineinfo (or -g) writes '.file 1' (the input's absolute path) and a\n"
	"'.loc 1 LINE COL' before each statement's instructions, for Nsight Compute and cuda-gdb.\n";
static const char *usage_explain =
	"usage: tilepx explain FILE... [--json] [--target SM] [-D NAME=VALUE]... [--dump-after=PASS]\n\n"
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

static bool write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		data += w;
		len -= (size_t)w;
	}
	return true;
}

static mode_t current_umask(void)
{
	mode_t m = umask(022);
	umask(m);
	return m;
}

/* The output file is the user's data. A regular file (or a symlink to one)
 * is replaced atomically through a temporary beside the real file, keeping
 * its mode (new files get 0666 & ~umask) and the link itself; devices,
 * FIFOs and other non-regular files are written directly; "-" is stdout.
 * Every write and close is checked. */
static bool write_output(const char *path, const char *data, size_t len)
{
	if (!strcmp(path, "-")) {
		bool ok = fwrite(data, 1, len, stdout) == len;
		ok = fflush(stdout) == 0 && ok && !ferror(stdout);
		if (!ok)
			fprintf(stderr, "tilepx: cannot write standard output: %s\n", strerror(errno));
		return ok;
	}
	struct stat st;
	bool exists = stat(path, &st) == 0; /* follows symlinks */
	if (exists && !S_ISREG(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_NOCTTY);
		bool ok = fd >= 0 && write_all(fd, data, len);
		int err = errno;
		if (fd >= 0 && close(fd) != 0 && ok) {
			ok = false;
			err = errno;
		}
		if (!ok)
			fprintf(stderr, "tilepx: cannot write %s: %s\n", path, strerror(err));
		return ok;
	}
	/* the real file behind any symlinks, so the rename keeps the link */
	char *real = exists ? realpath(path, NULL) : NULL;
	const char *target = real ? real : path;
	size_t n = strlen(target);
	char *tmp = malloc(n + 16);
	if (!tmp) {
		free(real);
		fprintf(stderr, "tilepx: out of memory\n");
		return false;
	}
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", target);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "tilepx: cannot write %s: %s\n", path, strerror(errno));
		free(tmp);
		free(real);
		return false;
	}
	mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
	bool ok = fchmod(fd, mode) == 0;
	if (ok && exists && geteuid() == 0)
		ok = fchown(fd, st.st_uid, st.st_gid) == 0;
	ok = ok && write_all(fd, data, len);
	int err = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		err = errno;
	}
	if (ok && rename(tmp, target) != 0) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		fprintf(stderr, "tilepx: cannot write %s: %s\n", path, strerror(err));
		unlink(tmp);
	}
	free(tmp);
	free(real);
	return ok;
}

/* same file (device and inode), following symlinks */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return strcmp(a, "-") && strcmp(b, "-") && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* IN.tile -> DIR/IN.ptx (DIR NULL: beside the input); stdin -> stdout */
static char *default_output(const char *in, const char *dir)
{
	if (!strcmp(in, "-") && !dir)
		return strdup("-");
	const char *base = in;
	if (dir) {
		const char *sl = strrchr(in, '/');
		base = sl ? sl + 1 : in;
		if (!strcmp(in, "-"))
			base = "stdin.tile";
	}
	size_t dn = dir ? strlen(dir) : 0, n = strlen(base);
	char *out = malloc(dn + n + 6);
	if (!out)
		return NULL;
	out[0] = 0;
	if (dir) {
		memcpy(out, dir, dn + 1);
		if (dn && out[dn - 1] != '/')
			strcat(out, "/");
	}
	size_t at = strlen(out);
	memcpy(out + at, base, n + 1);
	if (n > 5 && !strcmp(base + n - 5, ".tile"))
		out[at + n - 5] = 0;
	strcat(out, ".ptx");
	return out;
}

/* --target and --dump-after name a target and a pass that exist */
static bool known_names(const char *target, const char *dump_after)
{
	if (target && !target_find(target)) {
		fprintf(stderr, "tilepx: --target: unknown target '%s' (known: %s)\n", target, target_list());
		return false;
	}
	if (dump_after && !pass_known(dump_after)) {
		fprintf(stderr, "tilepx: --dump-after: unknown pass '%s' (passes: %s)\n", dump_after, pass_names());
		return false;
	}
	return true;
}

/* --color=auto, the default: a terminal, and NO_COLOR unset or empty (no-color.org) */
static bool color_auto(void)
{
	const char *no = getenv("NO_COLOR");
	return isatty(STDERR_FILENO) && !(no && *no);
}

/* -w, -Werror, --max-errors N, --color[=WHEN]: the diagnostics' options; false on a bad value */
static bool diag_option(int c, const char *arg, DiagOptions *d)
{
	if (c == 'w') {
		d->no_warnings = true;
	} else if (c == 'W') {
		if (strcmp(arg, "error")) {
			fprintf(stderr, "tilepx: unknown option -W%s (known: -Werror)\n", arg);
			return false;
		}
		d->werror = true;
	} else if (c == 'm') {
		char *end;
		long n = strtol(arg, &end, 10);
		if (end == arg || *end || n < 0 || n > 1000000) {
			fprintf(stderr, "tilepx: --max-errors: '%s' is not a count (0: no limit)\n", arg);
			return false;
		}
		d->max_errors = n ? (int)n : -1;
	} else if (c == 'f') {
		if (strcmp(arg, "json") && strcmp(arg, "text")) {
			fprintf(stderr, "tilepx: --diagnostics-format: '%s' is not text or json\n", arg);
			return false;
		}
		d->json = !strcmp(arg, "json");
	} else if (c == 'c') {
		if (!arg || !strcmp(arg, "always")) {
			d->color = true;
		} else if (!strcmp(arg, "never")) {
			d->color = false;
		} else if (!strcmp(arg, "auto")) {
			d->color = color_auto();
		} else {
			fprintf(stderr, "tilepx: --color: '%s' is not auto, always or never\n", arg);
			return false;
		}
	}
	return true;
}

/* one command's options */
typedef struct Opts {
	DiagOptions dopt;
	CompileOptions copt;
	const char *out, *target, *dump_after;
	bool json;
	const char **defines; /* -D's, argc of room (copt.defines) */
	Analysis **kept;      /* --batch: the last file's analysis, for the next line on it (NULL: none) */
} Opts;

/* -D NAME=VALUE: NAME an identifier and VALUE not empty, each NAME once (a
 * usage error otherwise). Whether VALUE fits is the use's question: a
 * scalar param wants a decimal, a constant a number or a name where it is
 * used (located errors) */
static bool define_ok(const char *d, const char **defs, int n)
{
	char why[300];
	defs[n] = d;
	if (defines_check(defs, n + 1, why, sizeof why))
		return true;
	fprintf(stderr, "tilepx: -D %s\n", why);
	return false;
}

/* the options before and among the files; -1, or the exit status for a
 * usage error or --help */
static int parse_opts(int argc, char **argv, const char *usage, Opts *o)
{
	static const struct option opts[] = {
		{"help", no_argument, 0, 'h'},   {"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'},   {"target", required_argument, 0, 't'},
		{"dump-after", required_argument, 0, 'd'}, {"max-errors", required_argument, 0, 'm'},
		{"color", optional_argument, 0, 'c'}, {"diagnostics-format", required_argument, 0, 'f'},
		{"lineinfo", no_argument, 0, 'g'},
		{0, 0, 0, 0},
	};
	for (int i = 1; i < argc; i++) /* nvcc's spelling: one dash */
		if (!strcmp(argv[i], "-lineinfo"))
			argv[i] = "--lineinfo";
	int c;
	optind = 0; /* 0, not 1: getopt starts afresh (tilepx --batch parses many argument lists) */
	while ((c = getopt_long(argc, argv, "ho:t:wW:D:g", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(usage, stdout); return 0;
		case 'w':
		case 'W':
		case 'm':
		case 'c':
		case 'f':
			if (!diag_option(c, optarg, &o->dopt))
				return 2;
			break;
		case 'g': o->copt.lineinfo = true; break;
		case 'D':
			if (!define_ok(optarg, o->defines, o->copt.ndefines))
				return 2;
			o->defines[o->copt.ndefines++] = optarg;
			break;
		case 'o': o->out = optarg; break;
		case 'j': o->json = true; break;
		case 't': o->target = optarg; break;
		case 'd': o->dump_after = optarg; break;
		default: fputs(usage, stderr); return 2;
		}
	}
	return -1;
}

/* one input file: compile it, print its diagnostics, write its output;
 * its exit status (0 or 1) */
static int run_file(const Opts *o, tilepx_mode mode, char **argv, int argc, int i, bool out_dir)
{
	size_t len;
	char *src = read_file(argv[i], &len);
	if (!src) {
		fprintf(stderr, "tilepx: cannot read %s: %s\n", argv[i], strerror(errno));
		return 1;
	}
	char *path = NULL;
	if (mode == TILEPX_EMIT) {
		path = o->out && !out_dir ? strdup(o->out) : default_output(argv[i], out_dir ? o->out : NULL);
		if (!path) {
			fputs("tilepx: out of memory\n", stderr);
			free(src);
			return 1;
		}
		for (int j = optind; j < argc; j++)
			if (same_file(path, argv[j])) {
				fprintf(stderr, "tilepx: output %s is the input file %s; refusing to overwrite it\n", path, argv[j]);
				free(path);
				free(src);
				return 1;
			}
	}
	CompileOptions copt = o->copt; /* .file names the input by its absolute path (nvcc's choice) */
	char *real = copt.lineinfo && strcmp(argv[i], "-") ? realpath(argv[i], NULL) : NULL;
	copt.lineinfo_file = real;
	tilepx_result r;
	if (o->kept && !o->dump_after) {
		if (!analysis_is(*o->kept, argv[i], src, len, o->target, &o->dopt, &copt)) {
			analysis_free(*o->kept);
			*o->kept = analysis_new(argv[i], src, len, o->target, &o->dopt, &copt);
		}
	}
	if (o->kept && !o->dump_after && *o->kept)
		analysis_result(*o->kept, (int)mode, &copt, &r);
	else
		compile_dump(argv[i], src, len, o->target, (int)mode, o->dump_after, &o->dopt, &copt, &r);
	free(real);
	int status = 0;
	if (r.diagnostics)
		fputs(r.diagnostics, stderr);
	if (!r.ok)
		status = 1;
	if (r.ok && mode == TILEPX_EMIT) {
		if (!write_output(path, r.output, r.output_len))
			status = 1;
	} else if (mode != TILEPX_EMIT && r.output) { /* explain prints its table even when it then fails */
		if (!write_output("-", r.output, r.output_len))
			status = 1;
	}
	free(path);
	tilepx_result_free(&r);
	free(src);
	return status;
}

static int run_files(int argc, char **argv, tilepx_mode mode, const char *usage, Opts *o)
{
	if ((o->out && mode != TILEPX_EMIT) || (o->json && mode != TILEPX_EXPLAIN) ||
	    (o->copt.lineinfo && mode != TILEPX_EMIT)) {
		fprintf(stderr, "tilepx: %s is not an option of this command\n",
		        o->out ? "-o" : o->json ? "--json" : "-lineinfo");
		fputs(usage, stderr);
		return 2;
	}
	if (!known_names(o->target, o->dump_after))
		return 2;
	if (o->json)
		mode = TILEPX_EXPLAIN_JSON;
	int nfiles = argc - optind;
	if (nfiles < 1) {
		fputs("tilepx: no input file\n", stderr);
		fputs(usage, stderr);
		return 2;
	}
	bool out_dir = o->out && is_dir(o->out);
	if (o->out && nfiles > 1 && !out_dir) {
		fputs("tilepx: -o takes one input file (or a directory)\n", stderr);
		return 2;
	}
	int status = 0;
	for (int i = optind; i < argc; i++)
		status |= run_file(o, mode, argv, argc, i, out_dir);
	return status;
}

static int run(int argc, char **argv, tilepx_mode mode, const char *usage, Analysis **kept)
{
	Opts o = {.dopt = {.color = color_auto()}, .kept = kept};
	o.defines = calloc((size_t)argc + 1, sizeof *o.defines);
	if (!o.defines) {
		fputs("tilepx: out of memory\n", stderr);
		return 1;
	}
	o.copt.defines = o.defines;
	int status = parse_opts(argc, argv, usage, &o);
	if (status < 0)
		status = run_files(argc, argv, mode, usage, &o);
	free(o.defines);
	return status;
}

static int tilepx_main(void *kept, int argc, char **argv)
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
		return run(argc - 1, argv + 1, TILEPX_CHECK, usage_check, kept);
	if (!strcmp(cmd, "emit"))
		return run(argc - 1, argv + 1, TILEPX_EMIT, usage_emit, kept);
	if (!strcmp(cmd, "explain"))
		return run(argc - 1, argv + 1, TILEPX_EXPLAIN, usage_explain, kept);
	if (!strcmp(cmd, "regclasses")) {
		if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
			puts("usage: tilepx regclasses\n\nPrint the NVPTX register-class model (the NVVM selector model).");
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--batch")) {
		Analysis *kept = NULL; /* a file's consecutive lines share its analysis */
		int status = batch_loop_ctx("tilepx", tilepx_main, &kept);
		analysis_free(kept);
		return status;
	}
	return tilepx_main(NULL, argc, argv);
}
