# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stand-in for ``hf download`` (huggingface_hub's CLI), for tests only.

Speaks the same two hub calls over HTTP (``HF_ENDPOINT``): the revision API for the file list, then one
``resolve`` GET per file, written under ``--local-dir``. Only the options sglang_install passes are read.
"""

import argparse
import json
import os
import sys
import urllib.request


def main(argv):
    parser = argparse.ArgumentParser(prog="hf")
    commands = parser.add_subparsers(dest="command", required=True)
    download = commands.add_parser("download")
    download.add_argument("repo_id")
    download.add_argument("--revision", required=True)
    download.add_argument("--local-dir", required=True)
    download.add_argument("--max-workers")
    download.add_argument("--include", nargs="*")
    download.add_argument("--exclude", nargs="*")
    args = parser.parse_args(argv)
    dump = os.environ.get("HF_STANDIN_ENV_DUMP")
    if dump:  # lets a test see the environment hf really got (the role passes part of it through a file)
        with open(dump, "w") as handle:
            json.dump({name: os.environ.get(name) for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "HF_ENDPOINT")}, handle)
    endpoint = os.environ["HF_ENDPOINT"].rstrip("/")
    with urllib.request.urlopen("%s/api/models/%s/revision/%s" % (endpoint, args.repo_id, args.revision)) as answer:
        siblings = json.load(answer)["siblings"]
    for sibling in siblings:
        name = sibling["rfilename"]
        target = os.path.join(args.local_dir, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        url = "%s/%s/resolve/%s/%s" % (endpoint, args.repo_id, args.revision, name)
        with urllib.request.urlopen(url) as answer, open(target, "wb") as handle:
            handle.write(answer.read())
    print(args.local_dir)


if __name__ == "__main__":
    main(sys.argv[1:])
