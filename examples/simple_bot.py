"""A simple bot for a nardy server (docs/bots.md "Write a bot for a nardy server"): it accepts every challenge
made to its account and plays each game with nardy's engine at the level given.

    NARDY_TOKEN=nardy_... python examples/simple_bot.py http://localhost:8000 beginner
"""

import os
import sys
import threading

from nardy.client import Client, ClientError
from nardy.client.players import EnginePlayer

server, level = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "expert")
token = os.environ["NARDY_TOKEN"]
player = EnginePlayer(level)


def play(gid: str) -> None:
    """Answer every view of game ``gid`` that asks us to act, once per state (``seq``)."""
    client, done = Client(server, token), set()
    for view in client.game_stream(gid):  # the view now, then each new one; ends with the match
        action = player.decide(view)
        if action is not None and action["seq"] not in done:
            done.add(action["seq"])
            try:
                client.act(gid, action)
            except ClientError as e:  # e.g. 409 stale_action: the next view says what to do
                print(e, file=sys.stderr)
    print("game", gid, "over", flush=True)


events, started = Client(server, token), set()
for event in events.events():  # on connect: a gameStart for each game in progress, then events as they come
    if event["type"] == "challenge":
        events.accept(event["challenge"]["id"])  # the game's gameStart event follows
    elif event["type"] == "gameStart" and event["game"]["id"] not in started:
        started.add(event["game"]["id"])
        threading.Thread(target=play, args=(event["game"]["id"],), daemon=True).start()
