"""What the web server does with a hosted game, below the routers and above the store.

Modules: :mod:`~nardy.web.services.loading` (a stored game read for a request), :mod:`~nardy.web.services.access`
(who may do what), :mod:`~nardy.web.services.publishing` (views and pushes), :mod:`~nardy.web.services.live`
(the live connections' hub and the clock keeper), :mod:`~nardy.web.services.saving` (storing a changed game),
:mod:`~nardy.web.services.ratings` (a rated match's ratings). A service imports the store and the hosted game,
never a router (:mod:`nardy.web.routers`) nor the request dependencies (:mod:`nardy.web.deps`), which
import the services.
"""
