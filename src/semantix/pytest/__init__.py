"""The pytest integration: `plugin` holds the hooks and fixtures (the ``pytest11`` entry point),
each handing over to the session's one `session.SemanticSession`; `settings` reads the options,
`markers` the marker; `runs`, `verdicts`, `downloads` and `baseline` are the session's parts."""
