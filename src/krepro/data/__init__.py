"""Data: synthetic generators of the papers' simulation studies (and, later, UCI loaders)."""
