"""Terminal front end pieces of ``nardy play`` (:mod:`nardy.play` holds the session that uses them).

* :mod:`~nardy.tui.render`: the output sink and the renderer (board, status lines, events, results,
  lists of plays, hints and estimates).
* :mod:`~nardy.tui.commands`: a typed line turned into a command (English and Russian words), no I/O.
* :mod:`~nardy.tui.explain`: why a typed play or command was refused, worded from error codes.
* :mod:`~nardy.tui.board`: the board drawing; :mod:`~nardy.tui.numbering`: point numbering.
"""
