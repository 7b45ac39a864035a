"""mcplint inside test suites: the pytest plugin and the SDK session recorder it uses."""
