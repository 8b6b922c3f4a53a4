"""``python -m cueshift.cli``: the `cueshift` command line."""

from cueshift.cli import main

main()
