"""content_key: equal arrays share a key, any change of shape, dtype or value changes it."""

import numpy as np

from krepro.content_key import content_key


def test_equal_content_equal_key():
    X = np.arange(12.0).reshape(3, 4)
    assert content_key(X) == content_key(X.copy()) == content_key(np.asfortranarray(X))
    assert content_key(X, X[:1]) == content_key(X.copy(), X[:1].copy())


def test_shape_dtype_value_and_order_change_the_key():
    X = np.arange(12.0).reshape(3, 4)
    changed = X.copy()
    changed[2, 3] = np.nextafter(changed[2, 3], np.inf)
    keys = {
        content_key(X),
        content_key(X.reshape(4, 3)),
        content_key(X.astype(np.float32)),
        content_key(changed),
        content_key(X, X[:1]),
        content_key(X[:1], X),
    }
    assert len(keys) == 6
