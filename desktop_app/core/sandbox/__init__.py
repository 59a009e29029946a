"""Running a local (stdio) server confined: what the entry asks for (`settings`), what this system can do
(`probe`), the confined command line (`bubblewrap`), and the only way out to the network, for the hosts the
entry lists: the filtering `proxy` (with its `refusals` log) and, inside the sandbox, the `forwarder`."""
