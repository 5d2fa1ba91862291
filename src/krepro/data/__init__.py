"""Data: synthetic generators of the papers' simulation studies, loaders of the UCI data sets
(Adult, Parkinson's telemonitoring) and their checksummed downloads."""
