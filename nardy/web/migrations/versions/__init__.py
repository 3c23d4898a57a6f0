"""The revisions of the database schema (see :mod:`nardy.web.migrations`)."""
