"""The pytest integration: `plugin` holds the hooks and fixtures (the ``pytest11`` entry point);
`settings` parses options, ini keys and the ``semantic`` marker; the feature modules (`runs`,
`snapshots`, `extras`) add their parts of the session."""
