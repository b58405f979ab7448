"""The kernel header shared by the walk GEMM generators (bench/gen_epilogues.py,
bench/gen_pingpong.py): 384 threads, clusters of 2 CTAs along y (the halves
of a 512-row band, B's slice multicast), the M, N, K, P, Q params and the
facts the walk needs. Imported, not run."""


def walk_header(name, nassume, kassume="assume K <= 65536"):
    """the lines from `kernel NAME` to `grid`; nassume and kassume are the
    kernel's own facts on N and K"""
    return "\n".join([
        "kernel %s" % name,
        "threads 384",
        "cluster 1, 2                 # two CTAs along y: the halves of a 512-row band",
        "param  M u32",
        "param  N u32",
        "param  K u32",
        "param  P u32                 # CTAs along y (even): each cluster walks the 512-row bands ctaid_y / 2, + P / 2, ...",
        "param  Q u32                 # CTAs along x: each walks the 128-column strips ctaid, ctaid + Q, ...",
        "assume K % 8 == 0",
        nassume,
        "assume M <= 65536",
        "assume N <= 65536",
        kassume,
        "assume P >= 2",
        "assume P % 2 == 0",
        "assume P <= 1024",
        "assume Q >= 1",
        "assume Q <= 1024",
        "grid   cdiv(Q, 1), cdiv(P, 1)"])
