"""Conditional mean embeddings: regression with values in a reproducing-kernel Hilbert space.

:mod:`krepro.cme.embedding` holds :class:`ConditionalMeanEmbedding` and
:class:`CMEConditionalMean` (the CME estimator of :math:`E[\\varphi(X) \\mid S]` for a
continuous S).
"""

from krepro.cme.embedding import CMEConditionalMean, ConditionalMeanEmbedding

__all__ = ["CMEConditionalMean", "ConditionalMeanEmbedding"]
