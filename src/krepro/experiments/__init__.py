"""One module per experiment: ``run_*`` produce run records, ``aggregate`` builds tables."""
