"""krepro: kernel methods built on Hilbert-space-valued conditional expectations.

Reference reproduction of oblivious features for fairness (Grünewälder & Khaleghi, JMLR
2021) and related kernel methods, as a library with scikit-learn compatible estimators.
"""

__version__ = "0.1.0"
