#!/usr/bin/env python3
"""Draws the benchmark tables of docs/benchmarks.md as SVG (standard library
only: the SVG is written by hand). Each plot reads the CSV its benchmark's
--csv writes (or one made from a committed log, bench/results/csv/):

  python3 bench/plot.py gemm      CSV OUT.svg   # gemm sweep: tilepx / cuBLAS per shape (bench/gpu_runs/sweep.sh --csv)
  python3 bench/plot.py attention CSV OUT.svg   # TFLOPS vs sequence length, tilepx against cuDNN (bench/attention.py --csv)
  python3 bench/plot.py copy      CSV OUT.svg   # copy GB/s against the HBM limit (bench/tma.sh --csv)
  python3 bench/plot.py rows      CSV OUT.svg   # row kernels' GB/s against the copy (bench/rows_bench.py --csv)
  python3 bench/plot.py all                     # the four of bench/results/csv/ into docs/plots/
  python3 bench/plot.py gemm-csv RESULTS CSV    # sweep.sh's sweep-results.txt as the gemm CSV (sweep.sh --csv)
  python3 bench/plot.py copy-csv LOG CSV HBM    # bench/tma.sh's output as the copy CSV, HBM peak GB/s (tma.sh --csv)

Lines starting with '#' in a CSV are comments (where its numbers come from).
"""
import csv
import math
import os
import re
import sys
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]
W, H = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 50, 90


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))


class Svg:
    def __init__(self, title, ylabel, ymin, ymax):
        self.parts = []
        self.ymin, self.ymax = ymin, ymax
        self.text(W / 2, 24, title, size=15, anchor="middle", weight="bold")
        self.text(16, TOP + (H - TOP - BOTTOM) / 2, ylabel, size=12, anchor="middle", rotate=True)
        self.grid()

    def y(self, v):
        return H - BOTTOM - (v - self.ymin) / (self.ymax - self.ymin) * (H - TOP - BOTTOM)

    def text(self, x, y, s, size=11, anchor="start", weight="normal", rotate=False, color="#222"):
        rot = ' transform="rotate(-90 %.1f %.1f)"' % (x, y) if rotate else ""
        self.parts.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" font-weight="%s" fill="%s"%s>%s</text>'
                          % (x, y, size, anchor, weight, color, rot, escape(str(s))))

    def line(self, x1, y1, x2, y2, color="#999", width=1, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"%s/>'
                          % (x1, y1, x2, y2, color, width, d))

    def rect(self, x, y, w, h, color):
        self.parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>' % (x, y, max(w, 0), max(h, 0), color))

    def polyline(self, pts, color, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.parts.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                          % (" ".join("%.1f,%.1f" % p for p in pts), color, d))
        for x, y in pts:
            self.parts.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (x, y, color))

    def grid(self):
        step = nice_step((self.ymax - self.ymin) / 6)
        v = math.ceil(self.ymin / step) * step
        while v <= self.ymax + 1e-9:
            self.line(LEFT, self.y(v), W - RIGHT, self.y(v), color="#e5e5e5")
            self.text(LEFT - 6, self.y(v) + 4, ("%g" % round(v, 6)), anchor="end")
            v += step
        self.line(LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, color="#444")
        self.line(LEFT, TOP, LEFT, H - BOTTOM, color="#444")

    def legend(self, items):
        for i, (label, color, dash) in enumerate(items):
            y = TOP + 10 + 18 * i
            self.line(W - RIGHT + 12, y, W - RIGHT + 36, y, color=color, width=3, dash=dash)
            self.text(W - RIGHT + 42, y + 4, label)

    def hline(self, v, label, color="#555"):
        self.line(LEFT, self.y(v), W - RIGHT, self.y(v), color=color, width=1.5, dash="6,4")
        self.text(W - RIGHT - 4, self.y(v) - 5, label, anchor="end", color=color)

    def write(self, path, note=""):
        if note:
            self.text(LEFT, H - 12, note, size=10, color="#666")
        body = "\n".join(self.parts)
        with open(path, "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="%d" '
                    'height="%d" viewBox="0 0 %d %d" font-family="sans-serif">\n<rect width="100%%" height="100%%" '
                    'fill="white"/>\n%s\n</svg>\n' % (W, H, W, H, body))


def nice_step(raw):
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def xs_of(n):
    span = W - LEFT - RIGHT
    return [LEFT + span * (i + 0.5) / n for i in range(n)]


def categories(svg, labels, rotate=False):
    for x, lab in zip(xs_of(len(labels)), labels):
        if rotate:
            svg.parts.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="end" transform="rotate(-40 %.1f %.1f)">%s</text>'
                             % (x, H - BOTTOM + 14, x, H - BOTTOM + 14, escape(lab)))
        else:
            svg.text(x, H - BOTTOM + 16, lab, anchor="middle")


def gemm(rows, out, note=""):
    """tilepx / cuBLAS (speed: cuBLAS time over tilepx time) per shape, one bar per pass"""
    shapes, ratio = [], {}
    for r in rows:
        key = "%sx%sx%s" % (r["M"], r["N"], r["K"])
        if key not in shapes:
            shapes.append(key)
        ratio[(r["pass"], key)] = float(r["cublas_us"]) / float(r["tilepx_us"])
    passes = sorted({p for p, _ in ratio}, key=lambda p: p != "auto")
    svg = Svg("GEMM: tilepx / cublasGemmEx per shape (higher is faster)", "speed ratio", 0,
              max(1.1, max(ratio.values()) * 1.05))
    xs, bw = xs_of(len(shapes)), (W - LEFT - RIGHT) / len(shapes) * 0.8 / len(passes)
    for j, p in enumerate(passes):
        for x, s in zip(xs, shapes):
            if (p, s) in ratio:
                v = ratio[(p, s)]
                x0 = x - bw * len(passes) / 2 + j * bw
                svg.rect(x0, svg.y(v), bw, svg.y(0) - svg.y(v), COLORS[j])
    svg.hline(1.0, "cuBLAS = 1.0")
    categories(svg, shapes, rotate=True)
    svg.legend([("--auto (the chooser)" if p == "auto" else p + " launch", COLORS[j], None) for j, p in enumerate(passes)])
    svg.write(out, note)


def attention(rows, out, note=""):
    """TFLOPS against sequence length: tilepx solid, cuDNN dashed, one colour per head dim and mask"""
    seqs = sorted({int(r["seq"]) for r in rows})
    keys = sorted({(int(r["hd"]), r["mask"]) for r in rows})
    top = max(max(float(r["cudnn"]), float(r["tilepx"])) for r in rows)
    svg = Svg("Attention forward (bf16): TFLOPS vs sequence length", "TFLOPS", 0, top * 1.1)
    xs = dict(zip(seqs, xs_of(len(seqs))))
    legend = []
    for i, (hd, mask) in enumerate(keys):
        sel = sorted((r for r in rows if int(r["hd"]) == hd and r["mask"] == mask), key=lambda r: int(r["seq"]))
        c = COLORS[i % len(COLORS)]
        svg.polyline([(xs[int(r["seq"])], svg.y(float(r["tilepx"]))) for r in sel], c)
        svg.polyline([(xs[int(r["seq"])], svg.y(float(r["cudnn"]))) for r in sel], c, dash="5,4")
        legend.append(("hd %d %s" % (hd, mask), c, None))
    legend += [("solid: tilepx", "#444", None), ("dashed: cuDNN", "#444", "5,4")]
    categories(svg, ["S = %d" % s for s in seqs])
    svg.legend(legend)
    svg.write(out, note)


def bars(svg, labels, values, colors):
    """horizontal bars: one row per label, value on the x axis (svg.y maps values)"""
    n = len(labels)
    band = (H - TOP - BOTTOM) / n
    for i, (lab, v) in enumerate(zip(labels, values)):
        y0 = TOP + i * band + band * 0.15
        svg.rect(LEFT, y0, svg.x(v) - LEFT, band * 0.7, colors[i])
        svg.text(LEFT + 6, y0 + band * 0.35 + 4, "%s: %.0f GB/s" % (lab, v), color="white", weight="bold")


class HSvg(Svg):
    """a chart whose values run along x (horizontal bars)"""

    def __init__(self, title, xlabel, xmax):
        self.xmax = xmax
        Svg.__init__(self, title, "", 0, 1)
        self.text(LEFT + (W - RIGHT - LEFT) / 2, H - BOTTOM + 34, xlabel, anchor="middle", size=12)

    def x(self, v):
        return LEFT + v / self.xmax * (W - LEFT - RIGHT)

    def grid(self):
        step = nice_step(self.xmax / 6)
        v = 0
        while v <= self.xmax + 1e-9:
            self.line(self.x(v), TOP, self.x(v), H - BOTTOM, color="#e5e5e5")
            self.text(self.x(v), H - BOTTOM + 16, "%g" % v, anchor="middle")
            v += step
        self.line(LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, color="#444")


def copy(rows, out, note=""):
    """each copy's GB/s (read + written) as a bar; the HBM peak as a line"""
    peak = float(rows[0]["hbm_gbps"])
    svg = HSvg("Streaming copy: GB/s (read + written) against the HBM limit", "GB/s", peak * 1.08)
    bars(svg, [r["what"] for r in rows], [float(r["gbps"]) for r in rows],
         [COLORS[0] if r["what"].startswith("tilepx") else "#888" for r in rows])
    svg.line(svg.x(peak), TOP - 8, svg.x(peak), H - BOTTOM, color="#d62728", width=2, dash="6,4")
    svg.text(svg.x(peak) + 4, TOP - 12, "HBM peak %.0f GB/s" % peak, color="#d62728")
    svg.legend([("tilepx", COLORS[0], None), ("baseline", "#888", None)])
    svg.write(out, note)


def rows_plot(rows, out, note=""):
    """each implementation's median GB/s against the row length, the copy as the ceiling"""
    ns = sorted({int(r["N"]) for r in rows})
    impls = []
    for r in rows:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    top = max(float(r["gbps"]) for r in rows)
    svg = Svg("Row kernels (bf16): GB/s against the row length, with the copy", "GB/s (read + written)", 0, top * 1.1)
    xs = dict(zip(ns, xs_of(len(ns))))
    legend = []
    for i, impl in enumerate(impls):
        sel = sorted((r for r in rows if r["impl"] == impl), key=lambda r: int(r["N"]))
        c = "#555" if impl == "copy" else COLORS[i % len(COLORS)]
        dash = "6,4" if impl == "copy" or impl.startswith("torch") else None
        svg.polyline([(xs[int(r["N"])], svg.y(float(r["gbps"]))) for r in sel], c, dash)
        legend.append((impl, c, dash))
    categories(svg, ["N = %d" % n for n in ns])
    svg.legend(legend)
    svg.write(out, note)


def write_csv(path, header, rows, comment):
    with open(path, "w", newline="") as f:
        f.write("# %s\n" % comment)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def gemm_csv(results, out):
    """sweep.sh's lines "PASS M N K KERNEL:P=p,Q=q TILEPX GEMMEX LT" (us; '-' when missing)"""
    rows = []
    with open(results) as f:
        for line in f:
            w = line.split()
            if len(w) == 8 and "-" not in (w[5], w[6]):
                rows.append(w[:4] + [w[4].replace(",", " ")] + w[5:])
    write_csv(out, ["pass", "M", "N", "K", "kernel", "tilepx_us", "cublas_us", "cublaslt_us"], rows,
              "bench/gpu_runs/sweep.sh: %s" % os.path.basename(results))


COPY_LINE = re.compile(r"^(\S.*?)\s+([0-9.]+) us\s+([0-9.]+) GB/s")
BENCH_LINE = re.compile(r"^BENCH (\S+): ([0-9.]+) us per launch, ([0-9.]+) GB/s")


def copy_csv(log, out, hbm):
    """tma.sh's timing lines: tma_stream's "WHAT US us GBPS GB/s", tilepx-run's "BENCH NAME: US us per launch, GBPS GB/s" """
    rows = []
    with open(log) as f:
        for line in f:
            m = BENCH_LINE.match(line)
            if m:
                rows.append(["tilepx " + m.group(1), m.group(2), m.group(3), hbm])
                continue
            m = COPY_LINE.match(line)
            if m:
                rows.append([m.group(1).strip(), m.group(2), m.group(3), hbm])
    write_csv(out, ["what", "us", "gbps", "hbm_gbps"], rows, "bench/tma.sh: %s" % os.path.basename(log))


PLOTS = {"gemm": gemm, "attention": attention, "copy": copy, "rows": rows_plot}
SOURCES = {"gemm": "gemm_sweep_h200.csv", "attention": "attention_h200.csv", "copy": "copy_h100.csv",
           "rows": "rows_h200.csv"}


def note_of(path):
    """the CSV's first comment line: where the numbers come from"""
    with open(path) as f:
        first = f.readline()
    return first[1:].strip() if first.startswith("#") else ""


def main(argv):
    if len(argv) == 2 and argv[1] == "all":
        here = os.path.dirname(os.path.abspath(__file__))
        for kind, name in SOURCES.items():
            src = os.path.join(here, "results", "csv", name)
            out = os.path.join(here, "..", "docs", "plots", kind + ".svg")
            PLOTS[kind](read_csv(src), out, note_of(src))
            print("wrote", os.path.normpath(out))
        return 0
    if len(argv) == 4 and argv[1] == "gemm-csv":
        gemm_csv(argv[2], argv[3])
        return 0
    if len(argv) == 5 and argv[1] == "copy-csv":
        copy_csv(argv[2], argv[3], argv[4])
        return 0
    if len(argv) != 4 or argv[1] not in PLOTS:
        sys.stderr.write(__doc__)
        return 2
    PLOTS[argv[1]](read_csv(argv[2]), argv[3], note_of(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
