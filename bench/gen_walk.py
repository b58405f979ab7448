"""The kernel header shared by the walk GEMM generators (bench/gen_epilogues.py,
bench/gen_pingpong.py): 384 threads, clusters of CY CTAs along y (the parts
of a CY * 256-row band, B's slice multicast), the M, N, K, P, Q params and
the facts the walk needs. Imported, not run."""


def walk_header(name, nassume, kassume="assume K <= 65536", cy=2):
    """the lines from `kernel NAME` to `grid`; nassume and kassume are the
    kernel's own facts on N and K"""
    band = 256 * cy
    along = "two" if cy == 2 else "%d" % cy
    parts = "halves" if cy == 2 else "quarters" if cy == 4 else "parts"
    mult = "even" if cy == 2 else "a multiple of %d" % cy
    return "\n".join([
        "kernel %s" % name,
        "threads 384",
        "cluster 1, %d                 # %s CTAs along y: the %s of a %d-row band" % (cy, along, parts, band),
        "param  M u32",
        "param  N u32",
        "param  K u32",
        "param  P u32                 # CTAs along y (%s): each cluster walks the %d-row bands ctaid_y / %d, + P / %d, ..."
        % (mult, band, cy, cy),
        "param  Q u32                 # CTAs along x: each walks the 128-column strips ctaid, ctaid + Q, ...",
        "assume K % 8 == 0",
        nassume,
        "assume M <= 65536",
        "assume N <= 65536",
        kassume,
        "assume P >= %d" % cy,
        "assume P %% %d == 0" % cy,
        "assume P <= 1024",
        "assume Q >= 1",
        "assume Q <= 1024",
        "grid   cdiv(Q, 1), cdiv(P, 1)"])
