"""Provenance of a run (krepro.workflow.provenance): keys and config hash."""

from krepro.workflow.provenance import collect_provenance, config_sha256


def test_provenance_keys_and_config_hash():
    provenance = collect_provenance({"scale": "paper", "seed": 1}, ["config/config.yaml"], ".")
    for key in ("commit", "dirty", "scale", "config_sha256", "versions", "date"):
        assert key in provenance
    assert provenance["scale"] == "paper"
    assert provenance["config_files"] == ["config/config.yaml"]
    assert set(provenance["versions"]) >= {"python", "numpy", "scipy", "scikit-learn"}
    assert config_sha256({"a": 1, "b": [1, 2]}) == config_sha256({"b": [1, 2], "a": 1})
    assert config_sha256({"a": 1}) != config_sha256({"a": 2})
