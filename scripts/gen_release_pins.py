# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate ``plugins/plugin_utils/data/sglang-releases.json``: the install pins of SGLang releases.

``python scripts/gen_release_pins.py 0.5.9 0.5.10 ... 0.5.23`` reads, per release, the ``METADATA`` of the
wheel that ``gen_flag_catalog.py`` reads (CPython 3.12, x86_64 Linux; downloaded once into
``.cache/wheels``): ``Requires-Python`` and the ``Requires-Dist`` pins of torch, flashinfer_python,
cuda-python, sgl-kernel / sglang-kernel and transformers. The CUDA build of the pinned torch comes from the
``Requires-Dist`` of torch's own PyPI wheel for the same Python and platform (``nvidia-cuda-runtime-cu12==X``
or ``cuda-toolkit==Y``): its PEP 658 ``.metadata`` file where PyPI serves one, otherwise the ``METADATA``
member read out of the remote wheel with HTTP range requests, so the ~1 GB wheel is never downloaded.
Fetched metadata is cached under ``.cache/release-pins``.

A pin is written as the exact version when the requirement is ``==V`` and as the specifier text otherwise
(``>=13.0``); what cannot be read is ``null``, and ``source_notes`` says why. The releases named replace or
join those already in the file, which stays in release order.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import io
import json
import sys
import urllib.error
import urllib.request
import zipfile
from dataclasses import asdict, dataclass, field

from packaging.requirements import Requirement
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from gen_flag_catalog import DATA, REPO, TARGET_PLATFORM, TARGET_PYTHON, download_wheel

CACHE = REPO / ".cache" / "release-pins"
OUTPUT = DATA / "sglang-releases.json"
SIMPLE_INDEX = "https://pypi.org/simple/{project}/"
TARGET_INTERPRETER = "cp" + TARGET_PYTHON.replace(".", "")
# torch's own PyPI wheels are tagged manylinux_2_28 (2.9 and later), not SGLang's manylinux_2_34.
TORCH_PLATFORM_SUFFIX = "_x86_64"
KERNEL_DISTRIBUTIONS = ("sgl-kernel", "sglang-kernel")  # sgl-kernel up to 0.5.9, sglang-kernel from 0.5.10
CUDA_RUNTIME_PREFIX = "nvidia-cuda-runtime-cu"


@dataclass
class Release:
    version: str
    wheel: str
    sha256: str
    requires_python: str | None
    python_tags: list[str]
    torch: str | None = None
    torch_cuda: str | None = None
    flashinfer: str | None = None
    flashinfer_extra: str | None = None
    cuda_python: str | None = None
    sgl_kernel: str | None = None
    sgl_kernel_distribution: str | None = None
    transformers: str | None = None
    source_notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------------
# PyPI
# ---------------------------------------------------------------------------------------------------


def _get(url: str, headers: dict | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "llmops.sglang gen_release_pins", **(headers or {})})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def index_files(project: str) -> list[dict]:
    """The project's files from PyPI's JSON simple index (PEP 691)."""
    body = _get(SIMPLE_INDEX.format(project=project), {"Accept": "application/vnd.pypi.simple.v1+json"})
    return json.loads(body)["files"]


class HttpRangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file that fetches only the byte ranges read."""

    def __init__(self, url: str):
        super().__init__()
        self.url = url
        request = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(request, timeout=120) as response:
            if response.headers.get("Accept-Ranges") != "bytes":
                raise OSError(f"{url} does not serve byte ranges")
            self.size = int(response.headers["Content-Length"])
        self.position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer) -> int:
        end = min(self.size, self.position + len(buffer))
        if end <= self.position:
            return 0
        data = _get(self.url, {"Range": f"bytes={self.position}-{end - 1}"})
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)


def remote_wheel_metadata(file: dict) -> tuple[str, str]:
    """(METADATA text, how it was read) of a wheel listed in a simple index, cached by file name."""
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = CACHE / f"{file['filename']}.metadata"
    source = CACHE / f"{file['filename']}.metadata.source"
    if cached.exists() and source.exists():
        return cached.read_text(encoding="utf-8"), source.read_text(encoding="utf-8")
    try:
        text = _get(file["url"] + ".metadata").decode("utf-8")
        how = "PEP 658 .metadata file"
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise
        name, version = parse_wheel_filename(file["filename"])[:2]
        member = f"{name.replace('-', '_')}-{version}.dist-info/METADATA"
        with zipfile.ZipFile(HttpRangeFile(file["url"])) as archive:
            text = archive.read(member).decode("utf-8")
        how = f"{member} read from the wheel with HTTP range requests (PyPI serves no .metadata file for it)"
    cached.write_text(text, encoding="utf-8")
    source.write_text(how, encoding="utf-8")
    return text, how


# ---------------------------------------------------------------------------------------------------
# METADATA
# ---------------------------------------------------------------------------------------------------


def parse_metadata(text: str) -> tuple[str | None, list[Requirement]]:
    """(Requires-Python, the unconditional or platform-conditional Requires-Dist; extras' ones left out)."""
    message = email.parser.HeaderParser().parsestr(text)
    requirements = [Requirement(line) for line in message.get_all("Requires-Dist") or []]
    return message.get("Requires-Python"), [r for r in requirements if not (r.marker and "extra" in str(r.marker))]


def find(requirements: list[Requirement], *names: str) -> Requirement | None:
    wanted = {n.replace("_", "-").lower() for n in names}
    return next((r for r in requirements if r.name.replace("_", "-").lower() in wanted), None)


def exact_version(requirement: Requirement) -> str | None:
    """``V`` when the requirement is exactly ``==V``, else None."""
    specifiers = list(requirement.specifier)
    if len(specifiers) == 1 and specifiers[0].operator == "==" and "*" not in specifiers[0].version:
        return specifiers[0].version
    return None


def pin_text(requirement: Requirement, notes: list[str]) -> str | None:
    """``V`` for ``==V``; otherwise the specifier as written, with a note."""
    pin = exact_version(requirement)
    if pin is None and requirement.specifier:
        pin = str(requirement.specifier)
        notes.append(f"{requirement.name} is not pinned exactly: {requirement}")
    elif pin is None:
        notes.append(f"{requirement.name} is required without a version: {requirement}")
        return None
    if requirement.marker:
        notes.append(f"{requirement.name} carries the marker {requirement.marker}")
    return pin


def cuda_of_torch(torch_version: str, torch_files: list[dict], notes: list[str]) -> str | None:
    """The CUDA major.minor that torch's own PyPI wheel for the target Python and platform depends on."""
    candidates = []
    for file in torch_files:
        if not file["filename"].endswith(".whl") or file.get("yanked"):
            continue
        version, tags = parse_wheel_filename(file["filename"])[1::2]
        if str(version) == torch_version and any(
            t.interpreter == TARGET_INTERPRETER and t.platform.startswith("manylinux") and t.platform.endswith(TORCH_PLATFORM_SUFFIX) for t in tags
        ):
            candidates.append(file)
    if not candidates:
        notes.append(f"torch_cuda: PyPI lists no torch {torch_version} {TARGET_INTERPRETER} manylinux x86_64 wheel")
        return None
    file = candidates[0]
    text, how = remote_wheel_metadata(file)
    requirements = parse_metadata(text)[1]
    for requirement in requirements:
        name = requirement.name.lower()
        if name.startswith(CUDA_RUNTIME_PREFIX) or name == "cuda-toolkit":
            exact = [s for s in requirement.specifier if s.operator == "=="]
            if len(exact) != 1:
                notes.append(f"torch_cuda: {file['filename']} requires {requirement}, no exact CUDA pin")
                return None
            major, minor = Version(exact[0].version).release[:2]
            notes.append(f"torch_cuda: {file['filename']} requires {requirement.name}{requirement.specifier} ({how})")
            return f"{major}.{minor}"
    notes.append(f"torch_cuda: {file['filename']} declares neither {CUDA_RUNTIME_PREFIX}* nor cuda-toolkit ({how})")
    return None


# ---------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------


def python_tags(version: str, sglang_files: list[dict]) -> list[str]:
    """The interpreter tags of every wheel PyPI holds for the release (``py3`` or ``cp310``...)."""
    tags = set()
    for file in sglang_files:
        if file["filename"].endswith(".whl"):
            file_version, file_tags = parse_wheel_filename(file["filename"])[1::2]
            if str(file_version) == version:
                tags.update(t.interpreter for t in file_tags)
    return sorted(tags, key=lambda t: (len(t), t))


def build_release(version: str, sglang_files: list[dict], torch_files: list[dict]) -> Release:
    wheel = download_wheel(version)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    listed = next((f for f in sglang_files if f["filename"] == wheel.name), None)
    if listed is None or listed["hashes"].get("sha256") != digest:
        raise SystemExit(f"{wheel.name}: sha256 {digest} is not the one PyPI's index lists")
    with zipfile.ZipFile(wheel) as archive:
        metadata_member = f"sglang-{version}.dist-info/METADATA"
        requires_python, requirements = parse_metadata(archive.read(metadata_member).decode("utf-8"))
    release = Release(version=version, wheel=wheel.name, sha256=digest, requires_python=requires_python, python_tags=python_tags(version, sglang_files))
    notes = release.source_notes
    notes.append(f"pins from {wheel.name}:{metadata_member}")
    if requires_python is None:
        notes.append("requires_python: METADATA has no Requires-Python")

    def pin(field_name: str, *names: str) -> Requirement | None:
        requirement = find(requirements, *names)
        if requirement is None:
            notes.append(f"{field_name}: METADATA requires none of {', '.join(names)}")
            return None
        setattr(release, field_name, pin_text(requirement, notes))
        return requirement

    torch = pin("torch", "torch")
    flashinfer = pin("flashinfer", "flashinfer_python")
    if flashinfer is not None and flashinfer.extras:
        release.flashinfer_extra = ",".join(sorted(flashinfer.extras))
    pin("cuda_python", "cuda-python")
    kernel = pin("sgl_kernel", *KERNEL_DISTRIBUTIONS)
    if kernel is not None:
        release.sgl_kernel_distribution = kernel.name
    pin("transformers", "transformers")
    if torch is not None and exact_version(torch) is not None:
        release.torch_cuda = cuda_of_torch(exact_version(torch), torch_files, notes)
    elif torch is not None:
        notes.append("torch_cuda: torch is not pinned to one version, so its wheel's CUDA build is not one value")
    return release


def merge(existing: list[dict], generated: list[Release]) -> list[dict]:
    """The existing entries with the generated releases replacing or joining them, in release order."""
    by_version = {entry["version"]: entry for entry in existing}
    by_version.update((r.version, asdict(r)) for r in generated)
    return [by_version[v] for v in sorted(by_version, key=Version)]


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("versions", nargs="+", metavar="VERSION")
    args = cli.parse_args(argv)
    sglang_files, torch_files = index_files("sglang"), index_files("torch")
    releases = [build_release(v, sglang_files, torch_files) for v in sorted(set(args.versions), key=Version)]
    existing = json.loads(OUTPUT.read_text(encoding="utf-8"))["releases"] if OUTPUT.exists() else []
    document = {
        "generated_by": "scripts/gen_release_pins.py (each wheel's METADATA; the CUDA build of the pinned torch from its own PyPI wheel's METADATA)",
        "target": {"python": TARGET_PYTHON, "platform": TARGET_PLATFORM},
        "releases": merge(existing, releases),
    }
    OUTPUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    for r in releases:
        print(
            f"{r.version}: python {r.requires_python} {','.join(r.python_tags)}; "
            f"torch {r.torch} (CUDA {r.torch_cuda}); flashinfer {r.flashinfer}[{r.flashinfer_extra or ''}]; cuda-python {r.cuda_python}; "
            f"{r.sgl_kernel_distribution} {r.sgl_kernel}; transformers {r.transformers}"
        )
    print(f"{OUTPUT.relative_to(REPO)}: {len(releases)} releases written, {len(document['releases'])} in the file")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
