"""The web app of ``nardy serve``, laid out as FastAPI's "bigger applications" (issue 42).

* :mod:`nardy.web.routers`: the routes, one ``APIRouter`` per subject (positions, games, online, lobby, auth,
  review, dice test, seeding, fair play). Routers call services and the store, never each other's routes.
* :mod:`nardy.web.services`: what the server does with a hosted game (reading it for a request, who may do
  what, the action service, views and live pushes, storing, ratings, making online games). Services import the
  store and the hosted game, never a router nor :mod:`nardy.web.deps`.
* :mod:`nardy.web.store`: the database (tables, engine, migrations runner, games, users, logins, the lobby's
  and ratings' rows). The store imports nothing above it.
* The core of the app stays at this package's top: :mod:`~nardy.web.app` (``create_app``),
  :mod:`~nardy.web.server` (``nardy serve``), :mod:`~nardy.web.guard` and :mod:`~nardy.web.edge` (limits at the
  edge), :mod:`~nardy.web.errors` (the exception handlers), :mod:`~nardy.web.params` and :mod:`~nardy.web.deps`
  (request parameters and dependencies), :mod:`~nardy.web.lang`; beside them the hosted game
  (:mod:`~nardy.web.sessions`), its view (:mod:`~nardy.web.view`), the process's game cache
  (:mod:`~nardy.web.gamecache`), the cluster's notifications (:mod:`~nardy.web.cluster`), the computer's work
  (:mod:`~nardy.web.botwork`, :mod:`~nardy.web.analysisqueue`), seeds, presence, ratings' rules and names.
* ``static/``: the page (plain HTML, SVG and JavaScript, no build step).
"""


def create_app(*args, **kwargs):
    """See :func:`nardy.web.app.create_app`."""
    from .app import create_app as _create

    return _create(*args, **kwargs)
