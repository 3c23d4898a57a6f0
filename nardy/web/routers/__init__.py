"""The web server's routes (FastAPI's ``APIRouter`` per subject), included by :func:`nardy.web.app.create_app`.

:mod:`~nardy.web.routers.positions` (the engine over HTTP: positions, hints, .mat files),
:mod:`~nardy.web.routers.games` (saved games), :mod:`~nardy.web.routers.online` (games against people elsewhere
and their live channel), :mod:`~nardy.web.routers.lobby` (challenges, pairing, ratings, blocks),
:mod:`~nardy.web.routers.auth` (guests, accounts, logins), :mod:`~nardy.web.routers.review` (analysis and the
tutor), :mod:`~nardy.web.routers.dicetest`, :mod:`~nardy.web.routers.seeding` (provably fair dice),
:mod:`~nardy.web.routers.fairplay` (abandonment claims). A router calls the services (:mod:`nardy.web.services`)
and the store; the HTTP and WebSocket routes of an action both call :func:`nardy.web.services.actions.perform`,
and no router calls another's route.
"""
