# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A bounded load loop through the model gateway, for the scale_out scenario's rolling update.

Sends requests through the gateway from a few threads until the stop file appears (or --max-seconds pass),
and writes the counts to --out: sent, failed (any answer but 2xx, or no answer), the failures' reasons, and
retried: the gateway's own retries to another worker during the run (smg's smg_worker_retries_total, read from
its Prometheus endpoint before and after). The client itself never retries, so a request the gateway could not
serve counts as failed.

Run: python load_loop.py --url http://GW:30080 --metrics http://GW:29000/metrics --api-key-file F --stop STOPFILE
     --out counts.json [--path /generate] [--concurrency 2] [--max-seconds 600]
"""

import argparse
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request

RETRIES = re.compile(r"^smg_worker_retries_total(?:\{[^}]*\})? ([0-9.eE+]+)$", re.MULTILINE)


def gateway_retries(url):
    """The sum of smg_worker_retries_total over its labels, or None without a metrics URL."""
    if not url:
        return None
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode("utf-8", "replace")
    return int(sum(float(value) for value in RETRIES.findall(text)))


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.sent = 0
        self.failed = 0
        self.reasons = {}

    def add(self, reason=None):
        with self.lock:
            self.sent += 1
            if reason:
                self.failed += 1
                self.reasons[reason] = self.reasons.get(reason, 0) + 1


def one_request(url, headers, body):
    """None when the gateway answered 2xx, else the reason."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return None
    except urllib.error.HTTPError as error:
        return "HTTP %d: %s" % (error.code, error.read()[:200].decode("utf-8", "replace"))
    except (urllib.error.URLError, OSError) as error:
        return "%s: %s" % (type(error).__name__, error)


def worker(args, headers, counts, deadline, number):
    url = args.url.rstrip("/") + args.path
    serial = 0
    while not os.path.exists(args.stop) and time.monotonic() < deadline:
        serial += 1
        body = json.dumps({"text": "request %d-%d" % (number, serial), "sampling_params": {"max_new_tokens": 8}}).encode()
        counts.add(one_request(url, headers, body))


def write(path, data):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the gateway's base URL")
    parser.add_argument("--path", default="/generate")
    parser.add_argument("--metrics", default="", help="the gateway's Prometheus URL, for its retry count")
    parser.add_argument("--api-key-file", default="", help="a file holding the API key (kept out of argv)")
    parser.add_argument("--stop", required=True, help="stop when this file exists")
    parser.add_argument("--out", required=True)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    headers = {"Content-Type": "application/json"}
    if args.api_key_file:
        with open(args.api_key_file, encoding="utf-8") as handle:
            headers["Authorization"] = "Bearer " + handle.read().strip()
    counts = Counts()
    retries_before = gateway_retries(args.metrics)
    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(args, headers, counts, started + args.max_seconds, n), daemon=True) for n in range(args.concurrency)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        write(args.out, {"running": True, "sent": counts.sent, "failed": counts.failed})
        time.sleep(1)
    retries_after = gateway_retries(args.metrics)
    write(
        args.out,
        {
            "running": False,
            "seconds": round(time.monotonic() - started, 1),
            "sent": counts.sent,
            "failed": counts.failed,
            "retried": None if retries_before is None else retries_after - retries_before,
            "failure_reasons": counts.reasons,
        },
    )


if __name__ == "__main__":
    main()
