"""Every example in README.md and docs/*.md runs as written, or says why it does not.

The conventions, for whoever writes the docs:

* Every fenced block is tagged ``yaml``, ``sh``, ``python`` or ``text``.  ``text`` blocks (output,
  diagrams, transcripts) are never run; the others are, unless marked.
* Markers are HTML comments (invisible on the rendered page) on the lines just above the opening
  fence, one per line:

  ``<!-- not run: REASON -->``
      shown only; REASON says why (it needs a server, it is a benchmark that runs for minutes, ...).
  ``<!-- slow: REASON -->``
      run only when ``ANONSET_DOCS_SLOW=1`` is set (skipped with REASON otherwise).
  ``<!-- file: NAME -->``
      the block is saved as NAME in the doc's example folder instead of being run; a later block of
      the same doc must use NAME (a ``sh`` block running ``anonset anonymize NAME``, say).
  ``<!-- exit: N -->``
      a ``sh`` block is expected to end with exit code N (default 0).
  ``<!-- config check: REASON -->`` (and ``<!-- config check under attributes: REASON -->``)
      a ``yaml`` block that cannot run here (a part of a config, or one that needs a server): its
      top-level keys are laid over the README's Adult config (``attributes`` entries are added to the
      README's) and the result must pass anonset's config loader (keys, values, method options),
      which reads no data.  ``under attributes``: the block is entries of the ``attributes`` section.

* Unmarked blocks run in a fresh folder per block, holding the doc's ``file:`` blocks written above
  it, a link ``.venv`` to the virtual environment running the tests (so ``.venv/bin/anonset`` works)
  and, when the doc declares ``<!-- example data: adult -->`` on a line of its own, links to every
  file of the Adult reference data (``adult.csv``, ``hierarchies/``, ...).  Without that data the
  doc's examples are skipped with the reason, unless the environment variable ``CI`` is set, where
  they fail.

  A doc that declares ``<!-- examples: one session -->`` on a line of its own (a tutorial) runs its
  blocks in order in one folder, as a reader would type them: what a block writes, the next one
  reads.  A failing block fails the doc's one test, named after the block.

  ``yaml``
      a complete config (it has ``input``): ``anonset anonymize`` runs it and must exit 0.
  ``sh``
      run by ``bash -e -o pipefail`` with the virtual environment's ``bin`` first on ``PATH`` (so
      ``anonset`` and ``.venv/bin/anonset`` both run the CLI under test); exit code as above.
  ``python``
      a complete program, run by this interpreter; it must exit 0.

Each ``anonset`` command and each ``python`` block runs in a process forked from one that has
already imported anonset (tests/forkserver.py: a fresh interpreter spends about 1.2 s importing
before it starts working); the shell still runs every block as written.  The whole module takes
about 20 s in one process; the slowest example is docs/workload_aware.md's ``anonset evaluate``
(10-fold cross-validation on Adult, about 6 s).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from forkserver import ForkServer
from support import ADULT

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = ("yaml", "sh", "python", "text")
REASONED = ("not run", "slow", "config check", "config check under attributes")
MARKERS = (*REASONED, "file", "exit")
DATA_DECLARATION = "<!-- example data: adult -->"
SESSION_DECLARATION = "<!-- examples: one session -->"
OPENING = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^`]*)$")
CLOSING = re.compile(r"^[ \t]*```[ \t]*$")
COMMENT = re.compile(r"^[ \t]*<!--(?P<body>.*)-->[ \t]*$")
SLOW = os.environ.get("ANONSET_DOCS_SLOW") == "1"
TIMEOUT = 600


@dataclass
class Block:
    """One fenced block of a doc: where it is, its language, its text and its markers."""

    doc: Path
    line: int
    language: str
    text: str
    markers: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    @property
    def runnable(self) -> bool:
        """Run by the test (not output, not marked as shown only, not saved as a file)."""
        return self.language != "text" and not ({"not run", "file"} & self.markers.keys())


def parse(doc: Path) -> list[Block]:
    """The fenced blocks of ``doc``, with their markers (and what is wrong with them in ``problems``)."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = OPENING.match(lines[i])
        if opening is None:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not CLOSING.match(lines[end]):
            end += 1
        indent = len(opening["indent"])
        body = "".join(line[indent:] + "\n" if line[:indent].strip() == "" else line.lstrip() + "\n"
                       for line in lines[i + 1:end])
        block = Block(doc, i + 1, opening["info"].strip(), body)
        if end == len(lines):
            block.problems.append("the fence is never closed")
        k = i - 1
        while k >= 0 and (comment := COMMENT.match(lines[k])):
            name, _, value = comment["body"].partition(":")
            name = name.strip()
            if name in block.markers:
                block.problems.append(f"marker {name!r} given twice")
            block.markers[name] = value.strip()
            k -= 1
        block.problems.extend(marker_problems(block))
        blocks.append(block)
        i = end + 1
    return blocks


def marker_problems(block: Block) -> list[str]:
    """What is wrong with a block's tag and markers."""
    if block.language not in LANGUAGES:
        tagged = f"fence tagged {block.language!r}" if block.language else "untagged fence"
        return [f"{tagged}: tag it {', '.join(LANGUAGES)} (text is never run)"]
    out = []
    for name, value in block.markers.items():
        if name not in MARKERS:
            out.append(f"unknown marker <!-- {name} -->; markers: {', '.join(MARKERS)}")
        elif name in REASONED and not value:
            out.append(f"<!-- {name}: ... --> needs a reason")
    names = set(block.markers)
    if block.language == "text" and names:
        out.append("a text block is never run: it takes no marker")
    if "exit" in names and (block.language != "sh" or not re.fullmatch(r"\d+", block.markers["exit"])):
        out.append("<!-- exit: N --> is for sh blocks, N a whole number")
    if names & {"config check", "config check under attributes"} and block.language != "yaml":
        out.append("<!-- config check --> is for yaml blocks")
    if "file" in names and not re.fullmatch(r"[\w.-]+", block.markers["file"]):
        out.append("<!-- file: NAME --> takes a plain file name such as config.yaml")
    if len(names & {"not run", "slow", "file", "config check", "config check under attributes"}) > 1:
        out.append("give one of not run, slow, file, config check")
    return out


BLOCKS = {doc: parse(doc) for doc in DOCS}
#: The blocks the test runs: a block marked ``not run`` is only shown (its marker and reason are checked by
#: test_blocks_are_tagged_and_marked), so it is not collected at all rather than reported as a skipped test.
def _runs(b: Block) -> bool:
    return b.language in LANGUAGES[:3] and "file" not in b.markers and "not run" not in b.markers


def declares(doc: Path, declaration: str) -> bool:
    return any(line.strip() == declaration for line in doc.read_text(encoding="utf-8").splitlines())


SESSIONS = [doc for doc in DOCS if declares(doc, SESSION_DECLARATION)]
RUNNABLE = [b for doc, blocks in BLOCKS.items() if doc not in SESSIONS for b in blocks if _runs(b)]


# --------------------------------------------------------------------------- every block is tagged and marked
@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_blocks_are_tagged_and_marked(doc: Path) -> None:
    """Each block has a known tag and well-formed markers; each saved file is used; each yaml block parses."""
    blocks = BLOCKS[doc]
    problems = [f"{b.where}: {p}" for b in blocks for p in b.problems]
    for b in blocks:
        name = b.markers.get("file")
        if name and not any(name in later.text for later in blocks if later.line > b.line and later.runnable):
            problems.append(f"{b.where}: saved as {name}, but no later block of the doc that runs uses {name}")
        if b.language == "yaml" and "not run" not in b.markers:
            try:
                yaml.safe_load(b.text)
            except yaml.YAMLError as exc:
                problems.append(f"{b.where}: not valid YAML: {' '.join(str(exc).split())}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- every runnable block runs
def declares_adult(doc: Path) -> bool:
    return declares(doc, DATA_DECLARATION)


def require_adult_data() -> None:
    """Skip (loudly) when the Adult reference data is absent; fail instead when CI is set."""
    if (ADULT / "adult.csv").exists():
        return
    message = f"the examples use the Adult reference data, which is not at {ADULT}"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set, so the data must be there)")
    pytest.skip(message)


def example_folder(block: Block, tmp_path: Path) -> Path:
    """A folder with what the block's doc provides: its data, its saved files above the block, .venv.

    In a one-session doc the folder is made once, by its first block, and kept for the others.
    """
    folder = tmp_path / "example"
    if folder.exists():
        for saved in BLOCKS[block.doc]:
            if "file" in saved.markers and saved.line < block.line:
                (folder / saved.markers["file"]).write_text(saved.text, encoding="utf-8")
        return folder
    folder.mkdir()
    if declares_adult(block.doc):
        require_adult_data()
        for entry in ADULT.iterdir():
            (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    (folder / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    for saved in BLOCKS[block.doc]:
        if "file" in saved.markers and saved.line < block.line:
            (folder / saved.markers["file"]).write_text(saved.text, encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def fork_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    """One process that has imported anonset, forking the examples' commands (tests/forkserver.py)."""
    server = ForkServer(tmp_path_factory.mktemp("forkserver"))
    yield server
    server.close()


def run(command: list[str], folder: Path, server: ForkServer) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **server.env}
    env["PATH"] = os.pathsep.join((str(server.bin), str(Path(sys.executable).parent), env.get("PATH", "")))
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                          check=False)


def readme_config() -> dict[str, Any]:
    """The README's Adult config (its block saved as config.yaml): the base a config check lays a block over."""
    for b in BLOCKS[ROOT / "README.md"]:
        if b.markers.get("file") == "config.yaml":
            config = yaml.safe_load(b.text)
            assert isinstance(config, dict)
            return config
    raise AssertionError("README.md has no yaml block marked <!-- file: config.yaml -->, the base of config checks")


def check_config(block: Block, tmp_path: Path) -> None:
    """Lay the block over the README's config and run anonset's config loader on the result."""
    from anonset.config import load_config

    part = yaml.safe_load(block.text)
    if "config check under attributes" in block.markers:
        part = {"attributes": part}
    assert isinstance(part, dict), f"{block.where}: a config check needs a mapping"
    config = readme_config()
    for key, value in part.items():
        if key == "attributes" and isinstance(value, dict):
            config["attributes"] = {**config["attributes"], **value}
        else:
            config[key] = value
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    load_config(path)


@pytest.mark.parametrize("doc", SESSIONS, ids=lambda d: str(d.relative_to(ROOT)))
def test_one_session_doc_runs_in_order(doc: Path, tmp_path: Path, fork_server: ForkServer) -> None:
    """A tutorial's blocks, in order, in one folder: each runs as written."""
    for block in BLOCKS[doc]:
        if _runs(block):
            test_example_runs(block, tmp_path, fork_server)


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.where)
def test_example_runs(block: Block, tmp_path: Path, fork_server: ForkServer) -> None:
    """The block runs as written (a slow one only with ANONSET_DOCS_SLOW=1)."""
    if block.problems:
        pytest.fail(f"{block.where}: " + "; ".join(block.problems))
    if "slow" in block.markers and not SLOW:
        pytest.skip(f"{block.where}: slow ({block.markers['slow']}); set ANONSET_DOCS_SLOW=1 to run it")
    if {"config check", "config check under attributes"} & block.markers.keys():
        check_config(block, tmp_path)
        return
    folder = example_folder(block, tmp_path)
    expected = 0
    if block.language == "yaml":
        config = yaml.safe_load(block.text)
        if not isinstance(config, dict) or "input" not in config:
            pytest.fail(f"{block.where}: a yaml block that is not a whole config (no input:) cannot run: mark it"
                        " <!-- config check: REASON --> or <!-- not run: REASON -->, or save it with"
                        " <!-- file: NAME -->")
        name = f"example-{block.line}.yaml"
        (folder / name).write_text(block.text, encoding="utf-8")
        proc = run([str(fork_server.bin / "anonset"), "anonymize", name], folder, fork_server)
    elif block.language == "sh":
        expected = int(block.markers.get("exit", "0"))
        proc = run(["bash", "-e", "-o", "pipefail", "-c", block.text], folder, fork_server)
    else:
        name = f"example-{block.line}.py"
        (folder / name).write_text(block.text, encoding="utf-8")
        proc = run([str(fork_server.bin / "python-example"), name], folder, fork_server)
    assert proc.returncode == expected, (
        f"{block.where}: exit {proc.returncode}, expected {expected}\n--- block\n{block.text}"
        f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}")


def test_the_conventions_catch_mistakes(tmp_path: Path) -> None:
    """An untagged fence, a marker without its reason, a misplaced or unknown marker: each is a problem."""
    doc = tmp_path / "example.md"
    doc.write_text("```\nplain\n```\n\n<!-- not run -->\n```sh\nmake\n```\n\n<!-- exit: 1 -->\n```yaml\na: 1\n```\n\n"
                   "<!-- sometimes: maybe -->\n```python\npass\n```\n\n<!-- file: a.yaml -->\n```text\nout\n```\n\n"
                   "<!-- file: b.yaml -->\n<!-- not run: twice -->\n```yaml\nb: 2\n```\n", encoding="utf-8")
    problems = [(b.line, p.split(" ")[0]) for b in parse(doc) for p in b.problems]
    assert problems == [(1, "untagged"), (6, "<!--"), (11, "<!--"), (16, "unknown"), (21, "a"), (27, "give")]


def test_the_fork_server_gives_back_what_the_command_did(tmp_path: Path, fork_server: ForkServer) -> None:
    """A forked command's output, error and exit code reach the caller as a fresh process's would."""
    ok = run(["bash", "-e", "-o", "pipefail", "-c", "anonset --version | tr a-z A-Z"], tmp_path, fork_server)
    assert ok.returncode == 0 and ok.stdout.startswith("ANONSET, VERSION "), ok
    missing = run([str(fork_server.bin / "anonset"), "anonymize", "missing.yaml"], tmp_path, fork_server)
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and "missing.yaml" in missing.stderr
    (tmp_path / "exits.py").write_text("import sys\nprint(sys.argv[1:])\nsys.exit(3)\n", encoding="utf-8")
    exits = run([str(fork_server.bin / "python-example"), "exits.py", "x"], tmp_path, fork_server)
    assert exits.returncode == 3 and exits.stdout == "['x']\n"
    (tmp_path / "raises.py").write_text("raise ValueError('boom')\n", encoding="utf-8")
    raises = run([str(fork_server.bin / "python-example"), "raises.py"], tmp_path, fork_server)
    assert raises.returncode == 1 and raises.stderr.rstrip().endswith("ValueError: boom")
    assert "Traceback" in raises.stderr
