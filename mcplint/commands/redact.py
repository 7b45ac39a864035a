"""``mcplint redact``: make a transcript safe to share, keeping what makes it useful."""

from __future__ import annotations

import contextlib
import os
import sys

import click

from mcplint.commands.common import OutputFile, fail, one_input, split_list
from mcplint.config import files as config_file
from mcplint.input.readers import FORMATS
from mcplint.redact.engine import (
    KINDS,
    ConfigurationError,
    RedactOptions,
    Redactor,
    UserRule,
)
from mcplint.redact.formats import UnsupportedFormat, redact_stream
from mcplint.redact.known import SecretsFileError
from mcplint.redact.known import load as load_secrets
from mcplint.untrusted import json_text, shown


def build_options(keep=(), keep_blobs=False, secrets_from=(), key=None, config_path=None,
                  record_hits=False) -> RedactOptions:
    """Options from the command line merged with the configuration file (raises on errors)."""
    loaded = config_file.load(config_path)
    cfg = loaded.config.redact
    files = [str(loaded.relative(name)) for name in cfg.secrets_from] + list(secrets_from)
    rules = tuple(UserRule(p.kind, p.regex, tuple(p.triggers), p.group) for p in cfg.patterns)
    options = RedactOptions(
        key=key, keep=list(cfg.keep) + list(keep), keep_blobs=keep_blobs or cfg.keep_blobs,
        secrets=load_secrets(files) if files else (), extra_keys=cfg.keys, keep_keys=cfg.keep_keys,
        allow=cfg.allow, keep_values=cfg.keep_values, rules=rules, record_hits=record_hits)
    Redactor(options)  # validates kinds and patterns now, not half-way through the input
    return options


@click.command("redact")
@click.argument("path", required=False, metavar="[PATH|-]")
@click.option("-o", "--output-file", "output", metavar="FILE",
              help="Write the redacted input here (may be PATH itself) instead of stdout.")
@click.option("--output", "output_alias", hidden=True)
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True,
              help="Input format; sniffed from the first lines by default.")
@click.option("--check", is_flag=True,
              help="Write nothing; list kind, line and JSON path of each hit and exit 1 if anything would be redacted.")
@click.option("--report", "report_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Summary of counts per kind on stderr, as text or JSON.")
@click.option("--keep", multiple=True, metavar="KIND",
              help="Keep a kind (email, phone, card, ip-address, home-user, ... or pii, blobs); repeatable.")
@click.option("--keep-blobs", is_flag=True, help="Keep images, audio and blobs (text blobs are still redacted).")
@click.option("--secrets-from", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Redact the exact secrets of a host config (JSON with env/args) or a .env file; repeatable.")
@click.option("--key", envvar="MCPLINT_REDACT_KEY", metavar="KEY",
              help="HMAC key for placeholder tags (stable tags across runs); default: random per run. "
                   "Env: MCPLINT_REDACT_KEY.")
@click.option("--config", "config_path", metavar="PATH",
              help="Configuration file (default: found from the working directory upwards).")
@click.option("--list-kinds", is_flag=True, help="List the kinds of secrets and personal data, then exit.")
def redact(path, output, output_alias, input_format, check, report_format, keep, keep_blobs, secrets_from, key, config_path,
           list_kinds) -> None:
    """Redact secrets and personal data from a capture, keeping it debuggable.

    Output keeps the input's format, line count, key order, ids, methods and timestamps;
    each secret becomes [REDACTED:<kind>:<tag>] (the same secret, the same tag). Exit
    status: 0 done (or --check found nothing), 1 --check found something, 2 error.
    """
    if list_kinds:
        click.echo("\n".join(sorted(KINDS)))
        return
    if config_path is not None and not os.path.isfile(config_path):
        fail(f"--config {config_path}: no such file")
    path = one_input(path)
    try:
        options = build_options(split_list(keep), keep_blobs, secrets_from, key, config_path, record_hits=check)
    except (config_file.ConfigError, ConfigurationError, SecretsFileError) as exc:
        fail(str(exc))
    redactor = Redactor(options)
    output = output or output_alias
    name = "<stdin>" if path == "-" else path
    target = None if check else OutputFile(output, binary=True).open()  # an unwritable -o fails first
    try:
        with contextlib.nullcontext(sys.stdin.buffer) if path == "-" else open(path, "rb") as src:
            redact_stream(src, target.stream if target else None, redactor, input_format, strict=True)
        if target:
            target.commit()
    except OSError as exc:
        fail(f"{exc.filename or path}: {exc.strerror or exc}")
    except UnsupportedFormat as exc:
        fail(f"{name}: {exc}")
    finally:
        if target:
            target.discard()
    report = redactor.report
    if check:
        for hit in report.hits:
            click.echo(f"{shown(name)}:{hit.line}: {hit.kind} at {shown(hit.path)}")
    if report_format == "json":
        data = report.as_json(name)
        if check:
            data["hits"] = [{"line": h.line, "path": h.path, "kind": h.kind} for h in report.hits]
        click.echo(json_text(data), err=True)
    else:
        verb = "would redact" if check else "redacted"
        summary = report.summary()
        click.echo(f"mcplint redact: {shown(name)}: {verb + ' ' + summary if report.total else summary}", err=True)
    if check and report.total:
        sys.exit(1)
