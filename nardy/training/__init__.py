"""Training the evaluator nets on labelled positions (the stage after TD self-play).

What GNU Backgammon, wildbg and bgsage do after TD: draw positions (self-play with some random plays, real
match records), label each with a deeper evaluation than the net's own (a teacher), and fit a net to the
labels by supervised learning. Modules:

* :mod:`.positions`: positions to label, ``(boards int8[n, 28], firsts bool[n, 2])`` from the view of the
  side on roll (layout of :mod:`nardy.rules._movegen`), from self-play or from match records, deduplicated;
* :mod:`.teachers`: the labellers: nardy's own n-ply search, nardy's rollouts, and for backgammon the open
  engine bgsage (MPL-2.0) at training time only;
* :mod:`.jobs`: labelling as Ray tasks over fixed chunks (all local cores, or a cluster by address), the
  same labels for the same seed whatever the number of workers;
* :mod:`.fit`: the fit with PyTorch (the optional ``[train]`` extra; GPU when available), exported to the
  numpy/numba :class:`nardy.engine.net.Net` that ships (no PyTorch at run time);
* :mod:`.cli`: ``nardy teach label`` and ``nardy teach fit``.

docs/bots-journal.md records the runs behind the shipped weights.
"""
