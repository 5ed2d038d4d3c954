"""The compiler passes, one module each; `trainc.compiler.pipeline.PASSES` says their order."""
