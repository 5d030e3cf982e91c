"""``anonset methods``: the registered methods, their family, where they run, what they enforce, their options."""

from __future__ import annotations

from typing import Any

import click

__all__ = ["methods"]


@click.command()
@click.option("--markdown", is_flag=True, help="Print the table in Markdown (as in docs/methods.md).")
def methods(markdown: bool) -> None:
    """List the registered methods: family, where they run, what they enforce, and their options.

    \b
    Example:
      anonset methods --markdown > methods.md
    """
    from anonset.methods import registry
    from anonset.methods.base import MODEL_WORDS

    rows = []
    for name in registry.names():
        m = registry.get(name)
        models = "every model" if m.models is None else ", ".join(MODEL_WORDS.get(x, x) for x in sorted(m.models))
        runs = "memory" if m.in_memory else "memory or database"
        facts = [runs, "seeded" if m.randomized else "deterministic", "budget" if m.suppresses else "no budget"]
        options = "; ".join(f"{o.name} ({o.describe()}, default {_option_default(o.default)})" for o in m.options)
        rows.append((name, m.family.value, m.summary, models, ", ".join(facts), options or "none"))
    if markdown:
        click.echo("| method | family | what it does | enforces | runs | options |")
        click.echo("|---|---|---|---|---|---|")
        for row in rows:
            click.echo("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        return
    for name, family, summary, models, notes, _ in rows:
        m = registry.get(name)
        click.echo(f"{name} ({family}; {notes})\n  {summary}\n  enforces: {models}")
        for o in m.options:
            click.echo(f"  {o.name}: {o.describe()}, default {_option_default(o.default)}; {o.doc}")
    click.echo("\nIn a config: method: {name: NAME, OPTION: VALUE}; in the API: Anonymizer(method=NAME,"
               " method_options={...}).")


def _option_default(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)
