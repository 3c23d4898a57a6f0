"""Terminal front end pieces of ``nardy play``: board drawing and point numbering."""
