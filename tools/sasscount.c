/* sasscount: count SASS instructions in a cubin without cuobjdump.
 * Reads the ELF64 file, and for every section named .text.KERNEL counts its
 * 16-byte instruction words (sm_70 and later encode one instruction per 128
 * bits), leaving out the padding ptxas appends after the last real
 * instruction: trailing NOPs (opcode 0x918 in the low 12 bits) and the
 * branch-to-self that precedes them (opcode 0x947, BRA).
 * Output: one line per kernel, "KERNEL N", then "total N".
 * --shared: per kernel its shared loads and stores by width instead,
 * "KERNEL LDS.128 4 STS.16 1 ... shared N" (what explain's bank records
 * count: sm_90 opcodes 0x984 LDS and 0x388 STS, the size in bits 73..75:
 * 0 U8, 1 S8, 2 U16, 3 S16, 4 32, 5 64, 6 128, read off ptxas 13's
 * encodings of each ld/st.shared width). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* the shared loads and stores among n instruction words at w */
static void print_shared(const char *kernel, const unsigned char *w, long n)
{
	static const char *size[8] = {"8", "S8", "16", "S16", "32", "64", "128", "?"};
	long cnt[2][8] = {{0}}, all = 0;
	for (long i = 0; i < n; i++) {
		uint64_t lo = rd(w + i * 16, 8), hi = rd(w + i * 16 + 8, 8);
		int op = (int)(lo & 0xfff), k = op == 0x984 ? 0 : op == 0x388 ? 1 : -1;
		if (k >= 0)
			cnt[k][(hi >> 9) & 7]++, all++;
	}
	printf("%s", kernel);
	for (int k = 0; k < 2; k++)
		for (int z = 0; z < 8; z++)
			if (cnt[k][z])
				printf(" %s.%s %ld", k ? "STS" : "LDS", size[z], cnt[k][z]);
	printf(" shared %ld\n", all);
}

int main(int argc, char **argv)
{
	bool shared = argc == 3 && !strcmp(argv[1], "--shared");
	if (argc != 2 && !shared) {
		fprintf(stderr, "usage: sasscount [--shared] FILE.cubin\n");
		return 2;
	}
	if (shared)
		argv++;
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *d = malloc(len > 0 ? (size_t)len : 1);
	if (!d || fread(d, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: read error\n", argv[1]);
		return 1;
	}
	fclose(f);
	if (len < 64 || memcmp(d, "\177ELF", 4) || d[4] != 2) {
		fprintf(stderr, "%s: not an ELF64 file\n", argv[1]);
		return 1;
	}
	uint64_t shoff = rd(d + 0x28, 8);
	unsigned shentsize = (unsigned)rd(d + 0x3a, 2), shnum = (unsigned)rd(d + 0x3c, 2),
	         shstrndx = (unsigned)rd(d + 0x3e, 2);
	if (shoff + (uint64_t)shnum * shentsize > (uint64_t)len || shstrndx >= shnum) {
		fprintf(stderr, "%s: bad section table\n", argv[1]);
		return 1;
	}
	const unsigned char *strsh = d + shoff + (uint64_t)shstrndx * shentsize;
	uint64_t stroff = rd(strsh + 0x18, 8);
	long total = 0;
	for (unsigned i = 0; i < shnum; i++) {
		const unsigned char *sh = d + shoff + (uint64_t)i * shentsize;
		const char *name = (const char *)d + stroff + rd(sh, 4);
		uint64_t off = rd(sh + 0x18, 8), size = rd(sh + 0x20, 8);
		if (strncmp(name, ".text.", 6) || off + size > (uint64_t)len)
			continue;
		long n = (long)(size / 16);
		while (n > 0 && (rd(d + off + (uint64_t)(n - 1) * 16, 8) & 0xfff) == 0x918)
			n--;
		if (n > 0) {
			const unsigned char *last = d + off + (uint64_t)(n - 1) * 16;
			/* BRA to itself: relative offset -16 (0xfffffff0) in bits 34..65 */
			if ((rd(last, 8) & 0xfff) == 0x947)
				n--;
		}
		if (shared)
			print_shared(name + 6, d + off, n);
		else
			printf("%s %ld\n", name + 6, n);
		total += n;
	}
	if (!shared)
		printf("total %ld\n", total);
	free(d);
	return 0;
}
