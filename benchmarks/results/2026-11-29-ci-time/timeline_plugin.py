import json, os, time
import pytest
_OUT = os.environ.get("TIMELINE_OUT", "/tmp/cirun/timeline.jsonl")

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = time.time()
    yield
    with open(_OUT, "a") as f:
        f.write(json.dumps({"w": os.environ.get("PYTEST_XDIST_WORKER", "main"),
                            "id": item.nodeid, "start": start, "end": time.time()}) + "\n")
