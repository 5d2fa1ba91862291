"""Tables, figures and the paper-vs-reproduced comparison, built from aggregate CSVs only."""
