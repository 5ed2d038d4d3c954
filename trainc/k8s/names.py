"""The name formats of apimachinery's validation that more than one check reads, each one expression."""

from __future__ import annotations

import re

# validation.IsDNS1035Label's pattern (its length, 63, is the caller's to check); match it with fullmatch
DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
