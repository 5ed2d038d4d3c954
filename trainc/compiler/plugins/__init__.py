"""Framework and gang-scheduler plugins; `registry` lists them in their fixed order."""
