"""Running a local (stdio) server confined: what the entry asks for (`settings`), what this system can do
(`probe`) and the confined command line (`bubblewrap`)."""
