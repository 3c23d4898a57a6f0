"""A Python client of a nardy server's API for programs (bots): issue 44, docs/bots.md "Write a bot for a nardy
server".

* :class:`~nardy.client.http.Client`: the HTTP API with an API token (``Authorization: Bearer``), its errors
  raised as :class:`~nardy.client.http.ClientError` quoting the server's code and message; the event and game
  streams as iterators of JSON objects;
* :class:`~nardy.client.players.EnginePlayer`: the action body nardy's own engine chooses for a game view;
* :class:`~nardy.client.external.ExternalPlayer`: the same, chosen by a program speaking GNU Backgammon's
  external-player protocol (``gnubg`` running its ``external`` command);
* :class:`~nardy.client.bot.BotRunner`: a bot's life: accept challenges, play every game, reconnect.

A front end (independent of the web server, the terminal and the others); ``nardy bot-client`` runs it.
"""

from __future__ import annotations

from .http import Client, ClientError

__all__ = ["Client", "ClientError"]
