"""Framework and gang-scheduler plugins, each beside its webhook rules; `registry` holds one record per plugin, in order."""
