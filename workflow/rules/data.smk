"""Downloads: UCI files, checksummed and written atomically (KREPRO_DATA_MIRROR for offline).

The files under resources/ are shared by every results_dir; the log and benchmark record of a
download go to the run that made it.
"""


# On the submit host: compute nodes are often offline.
rule fetch_dataset:
    output:
        "resources/{dataset}/{filename}",
    log:
        logs("fetch/{dataset}/{filename}.log"),
    benchmark:
        benchmarks("fetch_dataset/{dataset}/{filename}.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=200,
        runtime=10,
    params:
        # The mirror is deliberately not a param: changing the source never reruns anything;
        # the SHA-256 guarantees identical bytes.
        code=script_code("fetch_dataset.py"),
    script:
        "../scripts/fetch_dataset.py"
