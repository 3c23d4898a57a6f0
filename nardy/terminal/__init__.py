"""Terminal front end of ``nardy play`` (:mod:`nardy.terminal.play` holds the terminal game that uses these pieces;
the command is :mod:`nardy.cli.play`).

* :mod:`~nardy.terminal.actions`: what a typed command does; :mod:`~nardy.terminal.saving`: saved games;
  :mod:`~nardy.terminal.players`: a person or the computer at a level.
* :mod:`~nardy.terminal.render`: the output sink and the renderer (board, status lines, events, results,
  lists of plays, hints and estimates).
* :mod:`~nardy.terminal.commands`: a typed line turned into a command (English and Russian words), no I/O.
* :mod:`~nardy.terminal.explain`: why a typed play or command was refused, worded from error codes.
* :mod:`~nardy.terminal.board`: the board drawing; point numbering is :class:`nardy.rules.numbering.Numbering`.
"""
