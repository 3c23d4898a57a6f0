"""Terminal front end pieces of ``nardy play`` (:mod:`nardy.terminal.play` holds the session that uses them).

* :mod:`~nardy.terminal.render`: the output sink and the renderer (board, status lines, events, results,
  lists of plays, hints and estimates).
* :mod:`~nardy.terminal.commands`: a typed line turned into a command (English and Russian words), no I/O.
* :mod:`~nardy.terminal.explain`: why a typed play or command was refused, worded from error codes.
* :mod:`~nardy.terminal.board`: the board drawing; point numbering is :class:`nardy.rules.numbering.Numbering`.
"""
