"""What only trainc.validation's rules share: upstream's RuntimeInfo and the domain-prefixed-path check.

The error shape and the read-only template reads that the plugins' own rules
use too are one layer down, in `trainc.compiler.admission`.
"""

from __future__ import annotations

import re

from ..compiler import pipeline
from ..compiler.ir import Unit
from ..trainer.api import DNS_SUBDOMAIN, DNS_SUBDOMAIN_MESSAGE, TrainJob

_HTTP_PATH = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"


def domain_prefixed_path(value: str) -> list[str]:
    """apimachinery's IsDomainPrefixedPath messages (callers bound the length)."""
    host, slash, path = value.partition("/")
    if not (slash and host and path):
        return ['must be a domain-prefixed path (such as "acme.io/foo")']
    messages = []
    if not re.fullmatch(DNS_SUBDOMAIN, host):
        messages.append(DNS_SUBDOMAIN_MESSAGE)
    if not re.fullmatch(_HTTP_PATH, path):
        messages.append(f"Invalid path (regex used for validation is '{_HTTP_PATH}')")
    return messages


def info(trainjob: TrainJob, ctx) -> Unit:
    """Upstream's RuntimeInfo as the webhook builds it: the runtime resolved and patched, no plugin run.

    These are the pipeline's FRONT passes, so the webhook sees exactly the
    template the compiler starts from (and the build goes on from this unit).
    """
    return pipeline.run(Unit(trainjob=trainjob), ctx, pipeline.FRONT)
