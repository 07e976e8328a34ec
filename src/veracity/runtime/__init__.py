"""Runtime plumbing: which model and evidence a check uses, and the objects that run it."""
