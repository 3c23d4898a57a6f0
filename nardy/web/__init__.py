"""The web app of ``nardy serve``: the FastAPI app (:mod:`nardy.web.app`) with its routers
(:mod:`nardy.web.engine`, :mod:`nardy.web.games`), their dependencies (:mod:`nardy.web.deps`) and
error answers (:mod:`nardy.web.errors`), the page's view (:mod:`nardy.web.view`), saved games
(:mod:`nardy.web.store.storage`), the glue to the game (:mod:`nardy.web.sessions`) and the page
(``static/``: plain HTML, SVG and JavaScript, no build step)."""


def create_app(*args, **kwargs):
    """See :func:`nardy.web.app.create_app`."""
    from .app import create_app as _create

    return _create(*args, **kwargs)
