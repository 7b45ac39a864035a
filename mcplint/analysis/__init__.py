"""Analysis: session facts, the lint engine, and running it over one input or many in parallel."""
