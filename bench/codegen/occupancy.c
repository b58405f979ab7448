/* occupancy CUBIN KERNEL THREADS [CUBIN KERNEL THREADS...]: CTAs per SM that
 * the GPU's occupancy calculator gives each kernel (registers, shared
 * memory and the launch bound, as the driver sees the cubin), one line
 * each: "KERNEL CUBIN N". make bench-codegen OCCUPANCY=1 uses it on a GPU
 * machine to compare tilepx's kernels with their CUDA twins. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static int check(CUresult r, const char *what, const char *arg)
{
	if (r == CUDA_SUCCESS)
		return 1;
	const char *s = "?";
	cuGetErrorString(r, &s);
	fprintf(stderr, "occupancy: %s %s: %s\n", what, arg, s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4 || (argc - 1) % 3) {
		fprintf(stderr, "usage: occupancy CUBIN KERNEL THREADS...\n");
		return 2;
	}
	CUdevice dev;
	CUcontext ctx;
	if (!check(cuInit(0), "cuInit", "") || !check(cuDeviceGet(&dev, 0), "cuDeviceGet", "") ||
	    !check(cuCtxCreate(&ctx, NULL, 0, dev), "cuCtxCreate", ""))
		return 1;
	int status = 0;
	for (int i = 1; i + 2 < argc; i += 3) {
		CUmodule mod;
		CUfunction fn;
		int n = 0;
		if (!check(cuModuleLoad(&mod, argv[i]), "cuModuleLoad", argv[i]) ||
		    !check(cuModuleGetFunction(&fn, mod, argv[i + 1]), "cuModuleGetFunction", argv[i + 1]) ||
		    !check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, atoi(argv[i + 2]), 0), "occupancy", argv[i + 1])) {
			status = 1;
			continue;
		}
		printf("%s %s %d\n", argv[i + 1], argv[i], n);
		cuModuleUnload(mod);
	}
	cuCtxDestroy(ctx);
	return status;
}
