"""``python -m nardy.cli ...``: the ``nardy`` command (the tests and the server's warm-up start it so)."""

from . import main

main()
