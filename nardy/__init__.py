"""nardy: backgammon, short nardy and long nardy."""
