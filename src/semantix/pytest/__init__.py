"""The pytest integration: `plugin` holds the hooks and fixtures (the ``pytest11`` entry point),
each handing over to the session's one `session.SemanticSession`; `settings` reads the options
and ini keys, `markers` the ``semantic`` marker; the feature parts (`runs`, `snapshots`,
`verdicts`, `downloads`) are the session's. Imports point down: plugin → session → parts."""
