def pytest_configure(config):
    config.addinivalue_line("markers", "no_audit: the test corrupts the ledger on purpose; skip the audit after it")
