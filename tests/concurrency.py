"""Run test code on several threads at once, switching as often as the interpreter can."""

from __future__ import annotations

import sys
import threading


def hammer(work, n_threads):
    """Run ``work(thread_index)`` on several threads that switch every microsecond; return
    the exceptions raised."""
    errors = []

    def run(index):
        try:
            work(index)
        except Exception as error:  # collected and reported by the test
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(n_threads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return errors
