"""python -m jelly COMMAND ...: the jelly program's commands (run, render, view, check, mesh, ...)
with its flags and exit codes (docs/python.md)."""
import os
import sys

from . import _program


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        prog = _program()
    except FileNotFoundError as e:
        print(f"python -m jelly: {e}", file=sys.stderr)
        return 3
    # the program itself, in this process: the same flags, messages, signals and exit codes
    os.execv(prog, [prog] + argv)


if __name__ == "__main__":
    sys.exit(main())
