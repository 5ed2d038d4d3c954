"""The compiler passes, one module each; `trainc.pipeline.PASSES` says their order."""
