"""python3 -m tilepx emit|explain FILE.tile [--kernel K] [--target T] [-o OUT]:
the package's view of a program, as the tilepx CLI's emit and explain --json
(FILE "-" reads the program from stdin). Exit 1 on a program error."""
import argparse
import json
import sys

from . import Error, compile


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m tilepx", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["emit", "explain"])
    ap.add_argument("file", help="a .tile program, or - for stdin")
    ap.add_argument("--kernel", default=None, help="explain this kernel (default: the first)")
    ap.add_argument("--target", default=None, help="override the program's target (default: its own)")
    ap.add_argument("-o", dest="out", default=None, help="write here instead of stdout")
    a = ap.parse_args(argv)
    try:
        k = compile(sys.stdin.read() if a.file == "-" else a.file, kernel=a.kernel, target=a.target)
    except Error as e:
        sys.stderr.write(str(e))
        return 1
    except OSError as e:
        sys.stderr.write("tilepx: %s\n" % e)
        return 1
    text = k.ptx if a.command == "emit" else json.dumps(k.explain(), indent=1) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
