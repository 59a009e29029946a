"""Chat tests that sign in mid-turn use the sign-in tests' secret store, OAuth servers and browser."""

from tests.core.auth.conftest import browser, credentials, oauth_server, secrets

__all__ = ["browser", "credentials", "oauth_server", "secrets"]
